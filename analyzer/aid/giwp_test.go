package aid

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/culprit-dev/culprit/analyzer/note"
	"github.com/culprit-dev/culprit/analyzer/result"
	"github.com/culprit-dev/culprit/analyzer/stats"
	"github.com/culprit-dev/culprit/analyzer/trace"
	"github.com/google/go-cmp/cmp"
)

// siteOf is a simulated candidate's branch site.
func siteOf(c *Candidate) trace.SiteID { return c.Pred.Sites[0] }

// evenUp is n rounded up to whole batches of two workers.
func evenUp(n int) int { return (n + 1) / 2 * 2 }

func TestExplainSimulated(t *testing.T) {
	for _, seed := range []uint64{7, 11, 23, 42} {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { explainSimulated(t, seed) })
	}
}

func explainSimulated(t *testing.T, seed uint64) {
	s := newSim(seed, 0.3)
	ex, err := Explain(context.Background(), s, Bounds{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if ex.Traced.Failures < minFailing || ex.Traced.Runs-ex.Traced.Failures < minPassing {
		t.Fatalf("observed %d failures in %d runs, want at least %d of each", ex.Traced.Failures, ex.Traced.Runs, minFailing)
	}
	// The pool in topological order: the load effect has no order with
	// the chain, so it sorts by mean time right after the root.
	var pool []trace.SiteID
	for _, i := range ex.Order {
		c := ex.Candidates[i]
		pool = append(pool, siteOf(c))
		if c.Approx || c.Pred.Family != Branch || c.Pred.Arg != 1 {
			t.Errorf("candidate %s: approx=%v; want the fully discriminative branch(S,1)", c.Pred, c.Approx)
		}
		if want := []Pred{{Family: Never, Sites: c.Pred.Sites}}; !slices.Equal(c.Merged, want) {
			t.Errorf("candidate %s merged %v, want %v", c.Pred, c.Merged, want)
		}
	}
	if diff := cmp.Diff([]trace.SiteID{simP1, simL, simS1, simP2, simX, simP3}, pool); diff != "" {
		t.Fatalf("pool (-want +got):\n%s", diff)
	}
	type test struct {
		Sites   []trace.SiteID
		Verdict Verdict
	}
	var got []test
	for _, iv := range ex.Interventions {
		var ss []trace.SiteID
		for _, i := range iv.Candidates {
			ss = append(ss, siteOf(ex.Candidates[i]))
		}
		got = append(got, test{ss, iv.Verdict})
	}
	want := []test{
		{[]trace.SiteID{simP1, simL, simS1}, Stopped},
		{[]trace.SiteID{simP1, simL}, Stopped},
		{[]trace.SiteID{simP1}, Stopped},
		// The load effect holds without F while P1 is forced off, and is
		// not P1's ancestor: pruned without a test of its own.
		{[]trace.SiteID{simS1}, Persists},
		// Forcing X crashes the program: the group is invalid, so its
		// halves are tested apart.
		{[]trace.SiteID{simP2, simX}, Invalid},
		{[]trace.SiteID{simP2}, Stopped},
		{[]trace.SiteID{simX}, Invalid},
		{[]trace.SiteID{simP3}, Stopped},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("interventions (-want +got):\n%s", diff)
	}
	lower := stats.Wilson(ex.Traced.Failures, ex.Traced.Runs, stats.Z95).Lo
	stop := evenUp(stats.NewSPRT(lower).PassesNeeded())
	total := 0
	for _, iv := range ex.Interventions {
		total += iv.Runs
		switch iv.Verdict {
		case Stopped:
			if iv.Runs != stop || iv.Valid != stop || iv.Failures != 0 {
				t.Errorf("stopped test %v: %d runs, %d valid, %d failures; want %d, %d, 0", iv.Items, iv.Runs, iv.Valid, iv.Failures, stop, stop)
			}
		case Invalid:
			if iv.Runs != 2 || iv.Valid != 0 {
				t.Errorf("invalid test %v: %d runs, %d valid; want 2, 0", iv.Items, iv.Runs, iv.Valid)
			}
		case Persists:
			if iv.Failures == 0 || iv.Runs%2 != 0 {
				t.Errorf("persisting test %v: %d failures in %d runs", iv.Items, iv.Failures, iv.Runs)
			}
		}
	}
	if n := len(s.specs) - ex.Traced.Runs; n != total {
		t.Errorf("the traced test ran %d intervened runs, the interventions count %d", n, total)
	}
	// The chain: confirmed P1, P2, P3 with X (unintervenable, after P1
	// on the DAG) as a correlated step; S1 and the load effect are gone.
	var chain []string
	for _, st := range ex.Steps {
		chain = append(chain, fmt.Sprintf("%d:%s", siteOf(st.Candidate), st.Link))
	}
	wantChain := []string{
		fmt.Sprintf("%d:confirmed", simP1), fmt.Sprintf("%d:confirmed", simP2),
		fmt.Sprintf("%d:correlated", simX), fmt.Sprintf("%d:confirmed", simP3),
	}
	if diff := cmp.Diff(wantChain, chain); diff != "" {
		t.Errorf("chain (-want +got):\n%s", diff)
	}
	// The tree: F at the root, the step nearest F its child.
	var lines []int
	var links, effects []string
	for n := ex.Tree; n != nil; {
		lines = append(lines, n.Target.Line)
		links = append(links, n.Link)
		effects = append(effects, n.Effect)
		if len(n.Children) > 1 {
			t.Fatalf("node at line %d has %d children, want a chain", n.Target.Line, len(n.Children))
		}
		if len(n.Children) == 0 {
			break
		}
		n = n.Children[0]
	}
	line := func(id trace.SiteID) int { return 10 + int(id) }
	if diff := cmp.Diff([]int{line(simFail), line(simP3), line(simX), line(simP2), line(simP1)}, lines); diff != "" {
		t.Errorf("tree lines (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"", Confirmed, Correlated, Confirmed, Confirmed}, links); diff != "" {
		t.Errorf("tree links (-want +got):\n%s", diff)
	}
	rate := float64(ex.Traced.Failures) / float64(ex.Traced.Runs)
	eff := fmt.Sprintf("%.2f → 0/%d", rate, stop)
	if diff := cmp.Diff([]string{"", eff, "", eff, eff}, effects); diff != "" {
		t.Errorf("tree effects (-want +got):\n%s", diff)
	}
	if got := ex.Tree.Children[0].Target.Outcome; got != "true" {
		t.Errorf("P3's outcome = %q, want true", got)
	}
}

func TestExplainBudget(t *testing.T) {
	s := newSim(7, 0.3)
	ob, err := Observe(context.Background(), s, Bounds{})
	if err != nil {
		t.Fatal(err)
	}
	ex, err := Intervene(context.Background(), s, ob, Bounds{MaxRuns: 6})
	if err != nil {
		t.Fatal(err)
	}
	if len(ex.Interventions) != 1 || ex.Interventions[0].Verdict != Undecided || ex.Interventions[0].Runs != 6 {
		t.Fatalf("interventions = %+v, want one undecided test of 6 runs", ex.Interventions)
	}
	if diff := cmp.Diff(result.Findings{{Code: note.InterventionBudget, N: 1, M: 6}}, ex.Notes); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
	if len(ex.Steps) != 6 {
		t.Errorf("%d steps, want the 6 open candidates", len(ex.Steps))
	}
	for _, st := range ex.Steps {
		if st.Link != Correlated || st.Effect != "" {
			t.Errorf("step %s: link %q effect %q; want correlated without effect", st.Candidate.Pred, st.Link, st.Effect)
		}
	}
}

// TestJudge checks which intervened runs count.
func TestJudge(t *testing.T) {
	s := newSim(3, 0.3)
	ob, err := Observe(context.Background(), s, Bounds{})
	if err != nil {
		t.Fatal(err)
	}
	cs := ob.selectCandidates(Bounds{}.withDefaults())
	g := &giwp{ob: ob, cs: cs}
	p1 := slices.IndexFunc(cs, func(c *Candidate) bool { return siteOf(c) == simP1 })
	pass, _ := s.Run(context.Background(), fmt.Sprintf("force:%d=0", simP1))
	for pass.Trace.Result.Failed || !holdsSite(pass.Trace, simL) {
		pass, _ = s.Run(context.Background(), fmt.Sprintf("force:%d=0", simP1))
	}
	fail, _ := s.Run(context.Background(), "")
	for !fail.Trace.Result.Failed {
		fail, _ = s.Run(context.Background(), "")
	}
	crash, _ := s.Run(context.Background(), fmt.Sprintf("force:%d=0", simX))
	l := slices.IndexFunc(cs, func(c *Candidate) bool { return siteOf(c) == simL })
	for _, tc := range []struct {
		name  string
		run   Run
		group []int
		valid bool
	}{
		{"passing, predicate gone", pass, []int{p1}, true},
		{"no hook acted", Run{Trace: pass.Trace}, []int{p1}, false},
		{"passing, intervened predicate still holds", pass, []int{p1, l}, false},
		{"failing with F", Run{Trace: fail.Trace, Applied: 1}, []int{p1}, true},
		{"failing with F, a lock gave up", Run{Trace: fail.Trace, Applied: 1, Expired: 1}, []int{p1}, false},
		{"failing otherwise", crash, []int{p1}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, class := g.judge(g.outcome(tc.run), tc.group); (class == countedRun) != tc.valid || class == skippedRun {
				t.Errorf("class = %v, want valid %v", class, tc.valid)
			}
		})
	}
}

func holdsSite(tr *trace.Trace, id trace.SiteID) bool {
	for _, e := range tr.Events {
		if e.Site == id && e.Kind == trace.EvBranch && e.Values[0].Bool() {
			return true
		}
	}
	return false
}

// TestPrune checks interventional pruning: a candidate that held without
// F is discarded, unless it is an ancestor of the tested group.
func TestPrune(t *testing.T) {
	// 0 ⇝ 1 (the tested group), 2 unrelated, 3 consistent with the runs.
	reach := [][]bool{
		{false, true, false, false, true},
		{false, false, false, false, true},
		{false, false, false, false, true},
		{false, false, false, false, true},
		{false, false, false, false, false},
	}
	g := newGIWP(nil, &Observation{}, nil, &dag{reach: reach}, Bounds{})
	runs := []testedRun{
		{holds: []bool{true, false, true, false}},
		{holds: []bool{true, false, true, false}},
		{failing: true, holds: []bool{true, true, true, true}},
	}
	g.prune([]int{0, 1, 2, 3}, []int{1}, runs)
	if diff := cmp.Diff(map[int]bool{2: true}, g.discarded); diff != "" {
		t.Errorf("discarded (-want +got):\n%s", diff)
	}
	// Absent from two failing runs also discards.
	g.discarded = map[int]bool{}
	g.prune([]int{0, 1, 2, 3}, []int{1}, []testedRun{
		{failing: true, holds: []bool{false, true, true, false}},
		{failing: true, holds: []bool{false, true, true, false}},
	})
	if diff := cmp.Diff(map[int]bool{3: true}, g.discarded); diff != "" {
		t.Errorf("discarded (-want +got):\n%s", diff)
	}
}

func TestFisher(t *testing.T) {
	c2010 := 184756.0 // C(20,10)
	for _, tc := range []struct {
		f, nf, p, np int
		want         float64
	}{
		{10, 10, 0, 10, 1 / c2010},
		{9, 10, 1, 10, (10*10 + 1) / c2010},
		{0, 10, 0, 10, 1},
		{3, 3, 0, 0, 1},         // no passing runs: nothing to discriminate
		{1, 1, 1, 1, 1},         // it holds in every run: no evidence
		{2, 2, 0, 2, 1.0 / 6.0}, // both true runs failing out of 2+2: C(2,2)/C(4,2)
	} {
		t.Run(fmt.Sprint(tc.f, tc.nf, tc.p, tc.np), func(t *testing.T) {
			if got := fisherGreater(tc.f, tc.nf, tc.p, tc.np); math.Abs(got-tc.want) > 1e-12 {
				t.Errorf("p = %g, want %g", got, tc.want)
			}
		})
	}
}

func TestPreconditions(t *testing.T) {
	ex, err := Explain(context.Background(), newSim(7, 0.3), Bounds{Prefer: func(s trace.SiteID) bool { return s == simP2 }})
	if err != nil {
		t.Fatal(err)
	}
	var steps, pre []trace.SiteID
	for _, st := range ex.Steps {
		steps = append(steps, siteOf(st.Candidate))
	}
	for _, st := range ex.Preconditions {
		pre = append(pre, siteOf(st.Candidate))
	}
	if diff := cmp.Diff([]trace.SiteID{simP2, simX, simP3}, steps); diff != "" {
		t.Errorf("steps (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]trace.SiteID{simP1}, pre); diff != "" {
		t.Errorf("preconditions (-want +got):\n%s", diff)
	}
}

// serialSim stands for a runtime with serial and delay hooks over the
// simulated program: serial on the simulated function makes P1 false
// (the lock removes the bad timing) and waits 3ms per run; the delay of
// its placebo does what placebo says.
type serialSim struct {
	*sim
	placebo string // spec item the delay amounts to ("" for none)
}

func (s *serialSim) Run(ctx context.Context, spec string) (Run, error) {
	var items []string
	hooked, waited := false, time.Duration(0)
	for _, it := range strings.Split(spec, ";") {
		switch {
		case it == fmt.Sprintf("serial:%d", simFunc):
			items = append(items, fmt.Sprintf("force:%d=0", simP1))
			hooked, waited = true, 3*time.Millisecond
		case strings.HasPrefix(it, fmt.Sprintf("delay:%d=", simFunc)):
			if it != fmt.Sprintf("delay:%d=3ms", simFunc) {
				return Run{}, fmt.Errorf("placebo %q, want the serial link's mean wait", it)
			}
			items = append(items, s.placebo)
			hooked = true
		default:
			items = append(items, it)
		}
	}
	rn, err := s.sim.Run(ctx, strings.Join(slices.DeleteFunc(items, func(s string) bool { return s == "" }), ";"))
	if hooked {
		rn.Applied, rn.Waited = 1, waited
	}
	return rn, err
}

func TestPlacebo(t *testing.T) {
	for _, tc := range []struct {
		name    string
		placebo string
		link    string
		verdict Verdict
	}{
		{"delay changes nothing", "", Confirmed, Persists},
		{"delay alone stops the failure", fmt.Sprintf("force:%d=0", simP2), Correlated, Stopped},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &serialSim{sim: newSim(7, 0.3), placebo: tc.placebo}
			ctx := context.Background()
			ob, err := Observe(ctx, r, Bounds{})
			if err != nil {
				t.Fatal(err)
			}
			opt := Bounds{}.withDefaults()
			cs := ob.selectCandidates(opt)
			d := buildDAG(ob, cs)
			p1 := slices.IndexFunc(cs, func(c *Candidate) bool { return siteOf(c) == simP1 })
			cs[p1].Item = fmt.Sprintf("serial:%d", simFunc)
			g := newGIWP(r, ob, cs, d, opt)
			if err := g.run(ctx, []int{p1}); err != nil {
				t.Fatal(err)
			}
			if !g.confirmed[p1] {
				t.Fatalf("serial on P1 did not confirm it: %+v", g.tests)
			}
			n, err := g.placebos(ctx)
			if err != nil || n != 1 {
				t.Fatalf("placebos checked %d (err %v), want 1", n, err)
			}
			last := g.tests[len(g.tests)-1]
			if !last.Placebo || last.Verdict != tc.verdict {
				t.Errorf("placebo test %+v, want verdict %s", last, tc.verdict)
			}
			steps, _ := g.chain()
			if len(steps) == 0 || steps[0].Candidate != cs[p1] || steps[0].Link != tc.link {
				t.Errorf("steps %+v, want P1 %s first", steps, tc.link)
			}
		})
	}
}

// TestPlaceboBound checks that a placebo whose runs never show the
// predicate ends undecided at its bound and leaves the link confirmed.
func TestPlaceboBound(t *testing.T) {
	r := &serialSim{sim: newSim(7, 0.3), placebo: fmt.Sprintf("force:%d=0", simP1)}
	ctx := context.Background()
	ob, err := Observe(ctx, r, Bounds{})
	if err != nil {
		t.Fatal(err)
	}
	opt := Bounds{}.withDefaults()
	cs := ob.selectCandidates(opt)
	p1 := slices.IndexFunc(cs, func(c *Candidate) bool { return siteOf(c) == simP1 })
	cs[p1].Item = fmt.Sprintf("serial:%d", simFunc)
	g := newGIWP(r, ob, cs, buildDAG(ob, cs), opt)
	if err := g.run(ctx, []int{p1}); err != nil {
		t.Fatal(err)
	}
	if _, err := g.placebos(ctx); err != nil {
		t.Fatal(err)
	}
	confirm, placebo := g.tests[0], g.tests[len(g.tests)-1]
	if placebo.Verdict != Undecided || placebo.Runs != placeboRuns*confirm.Runs || placebo.Valid != 0 {
		t.Errorf("placebo %+v, want undecided after %d runs with none valid", placebo, placeboRuns*confirm.Runs)
	}
	if !g.confirmed[p1] || g.out {
		t.Errorf("confirmed %v, budget spent %v; want the link kept and budget left", g.confirmed[p1], g.out)
	}
}

// TestSameSpecReused: two candidates that one spec item makes false (as
// an interleaving and an order on one serialised function are) are tested
// apart, and the second test judges the first one's runs again instead of
// making new ones.
func TestSameSpecReused(t *testing.T) {
	s := newSim(11, 0.3)
	ctx := context.Background()
	ob, err := Observe(ctx, s, Bounds{})
	if err != nil {
		t.Fatal(err)
	}
	opt := Bounds{}.withDefaults()
	cs := ob.selectCandidates(opt)
	p1 := slices.IndexFunc(cs, func(c *Candidate) bool { return siteOf(c) == simP1 })
	p2 := slices.IndexFunc(cs, func(c *Candidate) bool { return siteOf(c) == simP2 })
	spec := fmt.Sprintf("force:%d=0", simP1) // P2 is gone whenever P1 is
	cs[p1].Item, cs[p2].Item = spec, spec
	g := newGIWP(s, ob, cs, buildDAG(ob, cs), opt)
	first, _, err := g.test(ctx, []int{p1})
	if err != nil {
		t.Fatal(err)
	}
	second, _, err := g.test(ctx, []int{p2})
	if err != nil {
		t.Fatal(err)
	}
	if first.Verdict != Stopped || second.Verdict != Stopped {
		t.Fatalf("verdicts %s, %s; want both stopped", first.Verdict, second.Verdict)
	}
	if first.Reused != 0 || second.Reused != second.Runs || second.Runs > first.Runs {
		t.Errorf("first %+v, second %+v: want the second to judge the first's runs only", first, second)
	}
	if n := int(s.calls[spec]); n != first.Runs || g.used != first.Runs {
		t.Errorf("%d runs of %q made (budget counted %d), want the first test's %d", n, spec, g.used, first.Runs)
	}
}

// TestExplainTotal: MaxTotal bounds every traced run, observed and
// intervened, and a cut says so.
func TestExplainTotal(t *testing.T) {
	for _, total := range []int{12, 40} {
		s := newSim(7, 0.3)
		ex, err := Explain(context.Background(), s, Bounds{MaxTotal: total})
		if err != nil {
			t.Fatal(err)
		}
		if len(s.specs) > total {
			t.Errorf("MaxTotal %d: %d traced runs", total, len(s.specs))
		}
		observed := 0
		for _, sp := range s.specs {
			if sp == "" {
				observed++
			}
		}
		if observed > total/2 {
			t.Errorf("MaxTotal %d: observation took %d runs, more than half", total, observed)
		}
		cut := false
		for _, n := range ex.Notes {
			cut = cut || n.Code == note.InterventionBudget
		}
		if !cut {
			t.Errorf("MaxTotal %d: no note of the cut: %v", total, ex.Notes)
		}
	}
	// Unbounded, the same program uses more than both bounds.
	s := newSim(7, 0.3)
	if _, err := Explain(context.Background(), s, Bounds{}); err != nil {
		t.Fatal(err)
	}
	if len(s.specs) <= 40 {
		t.Errorf("without MaxTotal only %d runs: the bounds above test nothing", len(s.specs))
	}
}

// TestObserveOutOfReach checks that observation stops once the rates seen
// put its quota out of reach, and says so, and goes on when they do not.
func TestObserveOutOfReach(t *testing.T) {
	// Nearly every run fails: ten passing runs would take hundreds.
	rare := newSim(3, 0.99)
	ob, err := Observe(context.Background(), rare, Bounds{})
	if err != nil {
		t.Fatal(err)
	}
	if ob.Cut == 0 || ob.Runs >= maxObserve || ob.Runs < minForecast {
		t.Fatalf("observed %d runs (%d failing), cut %d; want a stop between %d and %d runs", ob.Runs, ob.Failures, ob.Cut, minForecast, maxObserve)
	}
	ex, err := Intervene(context.Background(), rare, ob, Bounds{})
	if err != nil {
		t.Fatal(err)
	}
	if !ex.Notes.Has(note.ObserveCut) {
		t.Errorf("notes %+v lack %s", ex.Notes, note.ObserveCut)
	}

	// About half fail: the quota is in reach and observation meets it.
	even := newSim(3, 0.5)
	if ob, err = Observe(context.Background(), even, Bounds{}); err != nil {
		t.Fatal(err)
	}
	if ob.Cut != 0 || ob.Failures < minFailing || ob.Runs-ob.Failures < minPassing {
		t.Errorf("observed %d runs, %d failing, cut %d; want the quota met", ob.Runs, ob.Failures, ob.Cut)
	}
}

// TestOutOfReachByTime checks the forecast against the time left: the
// same counts stop near a deadline and go on far from one.
func TestOutOfReachByTime(t *testing.T) {
	// 5 failing and 3 passing of 8 runs, 10 s a run: at the upper end of
	// the passing rate's interval (0.69), 11 more runs are wanted for ten
	// passing ones, nearly two minutes.
	near, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if more, out := outOfReach(near, 5, 3, 8, 80*time.Second, maxObserve); !out || more != 11 {
		t.Errorf("a minute left: more %d, out %v; want 11 runs, out of reach", more, out)
	}
	far, cancel2 := context.WithTimeout(context.Background(), time.Hour)
	defer cancel2()
	if _, out := outOfReach(far, 5, 3, 8, 80*time.Second, maxObserve); out {
		t.Error("an hour left: out of reach, want in reach")
	}
	if _, out := outOfReach(near, 0, 0, minForecast-1, time.Hour, maxObserve); out {
		t.Error("too few runs to forecast: out of reach, want no forecast")
	}
}

// cutTraces marks the trace of every run whose number (from 0) is a
// multiple of every as filled up, as a trace that outgrew its buffer is.
type cutTraces struct {
	r     TracedTest
	every int

	mu sync.Mutex
	n  int
}

func (c *cutTraces) Run(ctx context.Context, spec string) (Run, error) {
	rn, err := c.r.Run(ctx, spec)
	c.mu.Lock()
	cut := c.n%c.every == 0
	c.n++
	c.mu.Unlock()
	if err == nil && cut {
		rn.Trace.Truncated = true
	}
	return rn, err
}

// TestObserveSetsCutTracesAside: a run whose trace filled up records
// neither its failure nor the whole of a passing run, so observation sets
// it aside and says so; when every run is cut, it stops after the first
// few instead of tracing up to its cap.
func TestObserveSetsCutTracesAside(t *testing.T) {
	all := &cutTraces{r: newSim(5, 0.5), every: 1}
	ex, err := Explain(context.Background(), all, Bounds{TraceLimit: "64 MiB"})
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(ex.Notes, func(n result.Note) bool { return n.Code == note.TracesFull })
	if i < 0 {
		t.Fatalf("notes %+v lack %s", ex.Notes, note.TracesFull)
	}
	if n := ex.Notes[i]; n.N != n.M || n.N != all.n || n.Limit != "64 MiB" {
		t.Errorf("note %+v after %d runs: want every run counted as cut, with the trace's size", n, all.n)
	}
	if all.n > minForecast+2 || ex.Traced.Runs != 0 || ex.Tree != nil {
		t.Errorf("%d runs made, %d observed, tree %v: want a stop after %d runs and nothing observed", all.n, ex.Traced.Runs, ex.Tree != nil, minForecast)
	}

	some := &cutTraces{r: newSim(5, 0.5), every: 3}
	ob, err := Observe(context.Background(), some, Bounds{})
	if err != nil {
		t.Fatal(err)
	}
	if ob.Full == 0 || ob.Observed+ob.Full > some.n || ob.Failures < minFailing || ob.Runs-ob.Failures < minPassing {
		t.Errorf("%d runs made: %d cut, %d observed (%d failing of %d with F's signature); want the cut ones aside and the quota met from the rest",
			some.n, ob.Full, ob.Observed, ob.Failures, ob.Runs)
	}
}
