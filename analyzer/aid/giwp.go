package aid

import (
	"context"
	"slices"
	"strings"

	"github.com/culprit-dev/culprit/analyzer/stats"
)

// Verdict is a group test's outcome (FLAKY.md §4).
type Verdict string

const (
	Stopped   Verdict = "stopped"   // the SPRT accepted the base-like rate: the group holds a cause
	Persists  Verdict = "persists"  // a valid, applied run failed with F's signature
	Invalid   Verdict = "invalid"   // too many runs were not applied, crashed otherwise or kept the predicates
	Undecided Verdict = "undecided" // the budget ran out first
)

// Intervention is one group test: its spec items, the candidates it made
// false, and what its runs gave. Runs counts every run, Valid those that
// count.
type Intervention struct {
	Items      []string `json:"items"`
	Candidates []int    `json:"candidates"`
	Runs       int      `json:"runs"`
	Valid      int      `json:"valid"`
	Failures   int      `json:"failures"`
	Verdict    Verdict  `json:"verdict"`
}

// invalidShare: an item whose runs are at least this share invalid (and
// at least minInvalid of them) is unintervenable.
const (
	invalidShare = 0.3
	minInvalid   = 2
)

// testedRun is a valid run of a group test, reduced to what pruning needs.
type testedRun struct {
	failing bool
	holds   []bool // per candidate
}

// giwp is one pass of group intervention with pruning over a pool.
type giwp struct {
	ctx  context.Context
	r    Runner
	ob   *Observation
	cs   []*Candidate
	d    *dag
	sprt stats.SPRT
	opt  Options

	used int // intervened runs so far
	out  bool
	// state per candidate
	confirmed, discarded, unintervenable map[int]bool
	effect                               map[int]int // index in tests of the single-candidate test that decided it
	tests                                []Intervention
}

func (g *giwp) decided(i int) bool {
	return g.confirmed[i] || g.discarded[i] || g.unintervenable[i]
}

// exhausted reports whether the budget is spent.
func (g *giwp) exhausted() bool {
	if g.used >= g.opt.MaxRuns || g.ctx.Err() != nil {
		g.out = true
	}
	return g.out
}

// test runs the group's spec until the SPRT or the counterexample rule
// decides, the runs turn out invalid, or the budget ends.
func (g *giwp) test(group []int) (Intervention, []testedRun, error) {
	var items []string
	for _, i := range group {
		if it := g.cs[i].Item; !slices.Contains(items, it) {
			items = append(items, it)
		}
	}
	iv := Intervention{Items: items, Candidates: slices.Clone(group), Verdict: Undecided}
	spec := strings.Join(items, ";")
	var valid []testedRun
	invalid := 0
	for !g.exhausted() {
		n := min(g.opt.Workers, g.opt.MaxRuns-g.used)
		runs, err := batch(g.ctx, g.r, spec, n)
		if err != nil {
			if g.ctx.Err() != nil {
				g.out = true
				break
			}
			return iv, nil, err
		}
		g.used += n
		for _, rn := range runs {
			iv.Runs++
			t, ok := g.judge(rn, group)
			if !ok {
				invalid++
				continue
			}
			valid = append(valid, t)
			iv.Valid++
			if t.failing {
				iv.Failures++
			}
		}
		switch {
		case iv.Failures > 0:
			iv.Verdict = Persists
		case invalid >= minInvalid && float64(invalid) >= invalidShare*float64(iv.Runs):
			iv.Verdict = Invalid
		case g.sprt.Decide(0, iv.Valid) == stats.Passes:
			iv.Verdict = Stopped
		default:
			continue
		}
		break
	}
	g.tests = append(g.tests, iv)
	return iv, valid, nil
}

// judge decides whether an intervened run counts: a hook acted, and it
// passed with the intervened candidates absent, or failed with F's
// signature.
func (g *giwp) judge(rn Run, group []int) (testedRun, bool) {
	if rn.Trace == nil || rn.Applied == 0 {
		return testedRun{}, false
	}
	o, ok := classify(rn.Trace)
	if !ok || o.failing && o.sig != g.ob.Signature {
		return testedRun{}, false
	}
	g.ob.derive(o.x)
	t := testedRun{failing: o.failing, holds: make([]bool, len(g.cs))}
	for i, c := range g.cs {
		t.holds[i] = c.holds(o.x)
	}
	if !o.failing {
		for _, i := range group {
			if t.holds[i] {
				return testedRun{}, false
			}
		}
	}
	return t, true
}

// run is GIWP over pool, in topological order, earliest first.
func (g *giwp) run(pool []int) error {
	for len(pool) > 0 && !g.exhausted() {
		half := pool[:(len(pool)+1)/2]
		iv, runs, err := g.test(half)
		if err != nil {
			return err
		}
		switch iv.Verdict {
		case Stopped:
			if len(half) == 1 {
				g.confirmed[half[0]] = true
				g.effect[half[0]] = len(g.tests) - 1
			} else if err := g.run(slices.Clone(half)); err != nil {
				return err
			}
		case Persists:
			for _, i := range half {
				g.discarded[i] = true
				if len(half) == 1 {
					g.effect[i] = len(g.tests) - 1
				}
			}
		case Invalid:
			if len(half) == 1 {
				g.unintervenable[half[0]] = true
			} else {
				// Some item of the group breaks the runs: test the halves
				// apart, so that only the culprit item is lost.
				k := (len(half) + 1) / 2
				for _, part := range [][]int{slices.Clone(half[:k]), slices.Clone(half[k:])} {
					if err := g.run(part); err != nil {
						return err
					}
				}
			}
		case Undecided:
			return nil
		}
		g.prune(pool, half, runs)
		pool = slices.DeleteFunc(pool, g.decided)
	}
	return nil
}

// prune discards candidates outside the tested group that are not its
// ancestors when the group's valid runs contradict them: they held in at
// least two runs without F, or were absent in at least two runs with F.
func (g *giwp) prune(pool, group []int, runs []testedRun) {
	for _, q := range pool {
		if slices.Contains(group, q) || g.decided(q) || g.d.ancestorOf(q, group) {
			continue
		}
		without, missing := 0, 0
		for _, t := range runs {
			switch {
			case t.holds[q] && !t.failing:
				without++
			case !t.holds[q] && t.failing:
				missing++
			}
		}
		if without >= 2 || missing >= 2 {
			g.discarded[q] = true
		}
	}
}
