package aid

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

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
	// Reused counts the runs, among Runs, that an earlier test of the
	// same spec made and this one judged again.
	Reused int `json:"reused,omitempty"`
	// Placebo marks the delay-only test of a confirmed serial link.
	Placebo bool `json:"placebo,omitempty"`

	// applied and waited sum the valid runs' hook counters.
	applied int
	waited  time.Duration
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
	r    TracedTest
	ob   *Observation
	cs   []*Candidate
	d    *dag
	sprt stats.SPRT
	opt  Bounds

	used int // intervened runs so far
	out  bool
	// state per candidate
	confirmed, discarded, unintervenable map[int]bool
	downgraded                           map[int]bool // confirmed, then stopped by the placebo too
	effect                               map[int]int  // index in tests of the single-candidate test that decided it
	tests                                []Intervention
	// kept holds every intervened run by spec: GIWP often tests one
	// item for several groups (candidates that map to one serial lock),
	// and a later test judges the runs an earlier one made before it
	// makes more.
	kept map[string][]seen
}

// seen is one intervened run as judging needs it.
type seen struct {
	o       *observed // nil unless class is countedRun
	class   runClass
	applied int
	waited  time.Duration
}

func newGIWP(r TracedTest, ob *Observation, cs []*Candidate, d *dag, opt Bounds) *giwp {
	return &giwp{
		r: r, ob: ob, cs: cs, d: d, opt: opt,
		sprt:           stats.NewSPRT(ob.Rate.Lo),
		confirmed:      map[int]bool{},
		discarded:      map[int]bool{},
		unintervenable: map[int]bool{},
		downgraded:     map[int]bool{},
		effect:         map[int]int{},
		kept:           map[string][]seen{},
	}
}

func (g *giwp) decided(i int) bool {
	return g.confirmed[i] || g.discarded[i] || g.unintervenable[i]
}

// exhausted reports whether the budget is spent.
func (g *giwp) exhausted(ctx context.Context) bool {
	if g.used >= g.opt.MaxRuns || ctx.Err() != nil {
		g.out = true
	}
	return g.out
}

// test runs the group's spec until the SPRT or the counterexample rule
// decides, the runs turn out invalid, or the budget ends.
func (g *giwp) test(ctx context.Context, group []int) (Intervention, []testedRun, error) {
	var items []string
	for _, i := range group {
		if it := g.cs[i].Item; !slices.Contains(items, it) {
			items = append(items, it)
		}
	}
	return g.runTest(ctx, Intervention{Items: items, Candidates: slices.Clone(group)}, g.judge, 0)
}

// runTest runs iv's spec with the SPRT; judge says whether a run counts.
// A limit > 0 caps the test's runs (the test is then undecided).
func (g *giwp) runTest(ctx context.Context, iv Intervention, judge func(seen, []int) (testedRun, runClass), limit int) (Intervention, []testedRun, error) {
	group := iv.Candidates
	iv.Verdict = Undecided
	spec := strings.Join(iv.Items, ";")
	var valid []testedRun
	invalid := 0
	for !g.exhausted(ctx) && (limit <= 0 || iv.Runs < limit) {
		var runs []seen
		if kept := g.kept[spec]; iv.Runs < len(kept) {
			runs = kept[iv.Runs:min(len(kept), iv.Runs+g.opt.Workers)]
			iv.Reused += len(runs)
		} else {
			n := min(g.opt.Workers, g.opt.MaxRuns-g.used)
			raw, err := batch(ctx, g.r, spec, n)
			if err != nil {
				if ctx.Err() != nil {
					g.out = true
					break
				}
				return iv, nil, err
			}
			g.used += n
			for _, rn := range raw {
				runs = append(runs, g.outcome(rn))
			}
			g.kept[spec] = append(kept, runs...)
		}
		for _, rn := range runs {
			iv.Runs++
			t, class := judge(rn, group)
			switch class {
			case invalidRun:
				invalid++
				continue
			case skippedRun:
				continue
			}
			valid = append(valid, t)
			iv.Valid++
			iv.applied += rn.applied
			iv.waited += rn.waited
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

// runClass is how a group test takes one run.
type runClass int

const (
	countedRun runClass = iota // valid: it enters the SPRT
	invalidRun                 // the intervention did not act, or broke the run
	skippedRun                 // a placebo run where the predicate did not occur: says nothing
)

// judge decides whether an intervened run counts: a hook acted, and it
// passed with the intervened candidates absent, or failed with F's
// signature.
func (g *giwp) judge(rn seen, group []int) (testedRun, runClass) {
	o, class := rn.o, rn.class
	if class != countedRun {
		return testedRun{}, class
	}
	t := testedRun{failing: o.failing, holds: make([]bool, len(g.cs))}
	for i, c := range g.cs {
		t.holds[i] = c.holds(o.x)
	}
	if !o.failing {
		for _, i := range group {
			if t.holds[i] {
				return testedRun{}, invalidRun
			}
		}
	}
	return t, countedRun
}

// outcome classifies an intervened run: invalid when no hook acted or it
// ended neither passing nor with F's signature.
func (g *giwp) outcome(rn Run) seen {
	bad := seen{class: invalidRun}
	if rn.Trace == nil || rn.Applied == 0 || rn.Trace.Truncated {
		return bad
	}
	o, ok := observeRun(rn.Trace)
	if !ok || o.failing && o.sig != g.ob.Signature {
		return bad
	}
	if o.failing && rn.Expired > 0 {
		// A lock gave up waiting: the failure may have come through
		// the gap, so the run says nothing against the intervention.
		return bad
	}
	g.ob.derive(o.x)
	return seen{o: o, class: countedRun, applied: rn.Applied, waited: rn.Waited}
}

// run is GIWP over pool, in topological order, earliest first.
func (g *giwp) run(ctx context.Context, pool []int) error {
	for len(pool) > 0 && !g.exhausted(ctx) {
		half := pool[:(len(pool)+1)/2]
		iv, runs, err := g.test(ctx, half)
		if err != nil {
			return err
		}
		switch iv.Verdict {
		case Stopped:
			if len(half) == 1 {
				g.confirmed[half[0]] = true
				g.effect[half[0]] = len(g.tests) - 1
			} else if err := g.run(ctx, slices.Clone(half)); err != nil {
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
					if err := g.run(ctx, part); err != nil {
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

// placeboRuns bounds a placebo at this many times the runs of the test
// that confirmed its link: the predicate occurs in only some runs, and a
// delay that removes it would otherwise spend the whole budget.
const placeboRuns = 5

// placebos re-test each confirmed serial link with a delay of the same
// mean wait at the same function and no exclusion (FLAKY.md §4). Only runs
// in which the candidate still holds count when they pass: if the failure
// stops anyway, the timing, not the predicate, stopped it, and the link
// is downgraded to correlated. Links whose runs reported no wait are not
// checked; placebos returns how many were.
func (g *giwp) placebos(ctx context.Context) (int, error) {
	checked := 0
	for i, c := range g.cs {
		k, ok := g.effect[i]
		fn, serial := strings.CutPrefix(c.Item, "serial:")
		if !g.confirmed[i] || !ok || !serial || g.tests[k].waited <= 0 || g.tests[k].applied <= 0 {
			continue
		}
		if g.exhausted(ctx) {
			break
		}
		wait := g.tests[k].waited / time.Duration(g.tests[k].applied)
		iv := Intervention{Items: []string{fmt.Sprintf("delay:%s=%s", fn, wait)}, Candidates: []int{i}, Placebo: true}
		iv, _, err := g.runTest(ctx, iv, g.judgePlacebo, placeboRuns*g.tests[k].Runs)
		if err != nil {
			return checked, err
		}
		checked++
		if iv.Verdict == Stopped {
			delete(g.confirmed, i)
			g.downgraded[i] = true
		}
	}
	return checked, nil
}

// judgePlacebo counts a valid placebo run only when the candidate held
// in it: the placebo asks whether the failure stops while the predicate
// still occurs. Runs without it are skipped, not invalid, since the
// predicate occurs in only a share of the runs.
func (g *giwp) judgePlacebo(rn seen, group []int) (testedRun, runClass) {
	o, class := rn.o, rn.class
	if class != countedRun {
		return testedRun{}, class
	}
	for _, i := range group {
		if !g.cs[i].holds(o.x) {
			return testedRun{}, skippedRun
		}
	}
	return testedRun{failing: o.failing}, countedRun
}
