package analyzer_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/culprit-dev/culprit/analyzer"
	"github.com/culprit-dev/culprit/analyzer/gotest"
	"github.com/culprit-dev/culprit/analyzer/note"
	"github.com/culprit-dev/culprit/analyzer/result"
	"github.com/culprit-dev/culprit/diffhunks"
	"github.com/culprit-dev/culprit/internal/scenario"
	"github.com/culprit-dev/culprit/internal/scenario/request"
)

// TestScenarios explains every bundled scenario with the default strategy
// against a real git repository and real go test runs, and checks the
// verdict, the root and auxiliary hunks, the proof and, where the scenario
// names them, the statements the causal tree must show.
// dynamicOnly are the notes that say why an explanation has no tree.
var dynamicOnly = map[note.Code]bool{
	note.CausesTouchNothing: true, note.SemanticFailed: true, note.NoFailureInTrace: true,
	note.SemanticBudget: true, note.CommandModeDynamic: true,
}

func TestScenarios(t *testing.T) {
	// In parallel with the package's other explanations: the memory gate
	// (admit), not the order of the tests, decides how many run at once.
	t.Parallel()
	paths, err := filepath.Glob("../testdata/*.txtar")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no scenarios: %v", err)
	}
	for _, p := range paths {
		sc := loadScenario(t, p)
		t.Run(sc.Name, func(t *testing.T) {
			t.Parallel()
			checkScenario(t, sc, analyzer.StrategyAfter)
		})
	}
}

// TestBaselinesOnAFTERExample runs the dynamic-only strategies on the
// paper's running example: each must find a root whose revert passes, and
// the asymmetric search must find the paper's {c2, c3}. The baselines'
// proven sets are explained as AFTER's are, from a trace of the failing
// run: they have a causal tree; the dynamic strategy traces nothing.
func TestBaselinesOnAFTERExample(t *testing.T) {
	t.Parallel()
	sc := loadScenario(t, "../testdata/after-example.txtar")
	for _, s := range []analyzer.Strategy{analyzer.StrategyDynamic, analyzer.StrategyDDMin, analyzer.StrategyOneByOne} {
		t.Run(string(s), func(t *testing.T) {
			t.Parallel()
			res := explain(t, sc, s)
			if res.Status != result.Explained || res.Proof == nil || !res.Proof.Passed() {
				t.Fatalf("status %s, proof %+v, notes %+v", res.Status, res.Proof, res.Notes)
			}
			if s == analyzer.StrategyDynamic {
				want := resolve(t, res.Hunks, sc.Root)
				if !slices.Equal(res.Root, want) {
					t.Errorf("root = %v, want %v", res.Root, want)
				}
				if res.Tree != nil {
					t.Errorf("the dynamic strategy has a tree: %+v", res.Tree)
				}
				return
			}
			if res.Tree == nil {
				t.Fatalf("%s: no tree; notes %+v", s, res.Notes)
			}
			on := res.Tree.Hunks(nil)
			if !slices.ContainsFunc(res.Root, func(id diffhunks.ID) bool { return on[id] }) {
				t.Errorf("%s: the tree reaches none of the root hunks %v", s, res.Root)
			}
		})
	}
}

func explain(t *testing.T, sc *scenario.Scenario, s analyzer.Strategy) *analyzer.Result {
	t.Helper()
	return explainWith(t, sc, s, nil)
}

// explainWith is explain with the request changed by edit, when not nil.
func explainWith(t *testing.T, sc *scenario.Scenario, s analyzer.Strategy, edit func(*analyzer.Request)) *analyzer.Result {
	t.Helper()
	res, err := explainIn(t.TempDir(), sc, s, edit)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// explainIn materializes sc under dir and explains it, once the memory
// gate admits it.
func explainIn(dir string, sc *scenario.Scenario, s analyzer.Strategy, edit func(*analyzer.Request)) (*analyzer.Result, error) {
	repo, err := sc.Materialize(filepath.Join(dir, "repo"))
	if err != nil {
		return nil, err
	}
	req := request.For(sc, repo, s)
	if edit != nil {
		edit(&req)
	}
	defer admit()()
	res, err := analyzer.Explain(context.Background(), req)
	if err != nil {
		return nil, fmt.Errorf("Explain: %w", err)
	}
	return res, nil
}

// shared holds the explanations that several tests check: each scenario's
// request is explained once per strategy, its builds, trials and traces
// made once, and every test reads the one result (never changing it).
var shared sync.Map // scenario name and strategy -> *sharedExplanation

type sharedExplanation struct {
	once sync.Once
	res  *analyzer.Result
	err  error
}

// explainShared is explain of the scenario's own request, made once for
// all the tests that ask for it.
func explainShared(t *testing.T, sc *scenario.Scenario, s analyzer.Strategy) *analyzer.Result {
	t.Helper()
	v, _ := shared.LoadOrStore(sc.Name+"/"+string(s), &sharedExplanation{})
	e := v.(*sharedExplanation)
	e.once.Do(func() {
		// Not under t.TempDir: the result outlives the test that made it,
		// and the repository is not needed once it is explained.
		dir, err := os.MkdirTemp("", "culprit-scenario-")
		if err != nil {
			e.err = err
			return
		}
		defer os.RemoveAll(dir)
		e.res, e.err = explainIn(dir, sc, s, nil)
	})
	if e.err != nil {
		t.Fatal(e.err)
	}
	return e.res
}

// chainAttempts bounds how often a flaky regression is explained before
// its chain is judged missing (checkScenario).
const chainAttempts = 3

func checkScenario(t *testing.T, sc *scenario.Scenario, s analyzer.Strategy) {
	res := explainShared(t, sc, s)
	// A flaky regression's chain is a statistical outcome: its traced runs
	// may by chance hold no predicate that tells the failing runs from the
	// passing ones (no-discriminator). The analysis is asked again, at
	// most chainAttempts times in all, before the chain is judged missing.
	for try := 1; try < chainAttempts && res.Status == result.FlakyRegression && sc.Keys["chain"] != "" &&
		res.Tree == nil && res.Notes.Has(note.NoDiscriminator); try++ {
		t.Logf("attempt %d: no predicate of the traced runs discriminated; explaining again", try)
		res = explain(t, sc, s)
	}
	if string(res.Status) != sc.Status {
		t.Fatalf("status = %s, want %s; notes %+v; evidence %+v", res.Status, sc.Status, res.Notes, res.Evidence)
	}
	if want := sc.Keys["explains"]; want != "" && res.Test.Name != want {
		t.Errorf("explained %s, want the subtest %s", res.Test.Name, want)
	}
	if want := strings.Fields(sc.Keys["new-subtests"]); len(want) > 0 && !slices.Equal(res.Subtests.New, want) {
		t.Errorf("new subtests = %q, want %q", res.Subtests.New, want)
	}
	if res.Status == result.FlakyRegression {
		checkFlakyRegression(t, sc, res)
		return
	}
	if fl := res.Flakiness; res.Status == result.Flaky && fl != nil {
		// Flaky, not a regression: base failed too, or could not be
		// shown not to.
		if fl.Base.Failures == 0 && !res.Notes.Has(note.FlakyInconclusive) {
			t.Errorf("flaky with a base that never failed and no note why: %+v, notes %+v", fl.Base, res.Notes)
		}
	}
	if res.Status != result.Explained {
		if len(res.Root) != 0 || res.Tree != nil {
			t.Errorf("status %s must claim no culprit, got root %v", res.Status, res.Root)
		}
		return
	}
	if res.Proof == nil || !res.Proof.Passed() {
		t.Fatalf("explained without a passing proof: %+v", res.Proof)
	}
	proved := append(append([]diffhunks.ID{}, res.Root...), res.Aux...)
	slices.Sort(proved)
	if !slices.Equal(res.Proof.Reverted, proved) {
		t.Errorf("proof reverted %v, want root ∪ aux = %v", res.Proof.Reverted, proved)
	}
	if want := resolve(t, res.Hunks, sc.Root); !slices.Equal(res.Root, want) {
		t.Errorf("root = %v, want %v (%s); aux %v; notes %+v", res.Root, want, sc.Root, res.Aux, res.Notes)
	}
	if want := resolve(t, res.Hunks, sc.Aux); !slices.Equal(res.Aux, want) {
		t.Errorf("aux = %v, want %v (%s); notes %+v", res.Aux, want, sc.Aux, res.Notes)
	}
	if lines := strings.Fields(sc.Keys["tree"]); len(lines) > 0 && s == analyzer.StrategyAfter {
		if res.Tree == nil {
			// A scenario the semantic analysis cannot explain yet names
			// the gap; the result must then say it is dynamic only,
			// never show a tree it did not derive.
			gap := sc.Keys["gap"]
			if gap == "" {
				t.Fatalf("no causal tree; notes %+v", res.Notes)
			}
			if !slices.ContainsFunc(res.Notes, func(n result.Note) bool { return dynamicOnly[n.Code] }) {
				t.Errorf("no tree and no note saying the explanation is dynamic only: %+v", res.Notes)
			}
			t.Logf("known semantic gap (%s): %+v", gap, res.Notes)
			return
		}
		seen := treeLocs(res.Tree)
		onlyPassing := map[string]bool{}
		ranPassing := map[diffhunks.ID]bool{}
		res.Tree.Walk(func(n *result.Node) {
			for _, st := range n.Statements {
				if st.OnlyPassing {
					onlyPassing[loc(st)] = true
					ranPassing[st.Hunk] = true
				}
			}
		})
		for _, l := range lines {
			if !seen[l] {
				t.Errorf("the causal tree does not show %s; it shows %v", l, keys(seen))
			}
		}
		// "only-passing" names steps the tree shows as run in the passing
		// run only: deleted code where it ran there, not where the
		// failing run's analysis would place it.
		for _, l := range strings.Fields(sc.Keys["only-passing"]) {
			if !onlyPassing[l] {
				t.Errorf("the causal tree does not show %s as run in the passing run only; it shows %v", l, keys(seen))
			}
		}
		res.Tree.Walk(func(n *result.Node) {
			for _, st := range n.Statements {
				if st.Deleted && ranPassing[st.Hunk] {
					t.Errorf("deleted code of hunk %d is placed at %s although the passing run shows where it ran", st.Hunk, loc(st))
				}
			}
		})
		checkChain(t, sc, res)
	}
}

// checkChain checks the chain the explanation opens with against the
// scenario's keys: "chain" lists steps that must appear in that order,
// "diverges" the step where the runs first differ, and "contrast" entries
// "file:line name=failing/passing" (separated by ";") a value in both
// runs, "-" for a run without that step.
func checkChain(t *testing.T, sc *scenario.Scenario, res *analyzer.Result) {
	t.Helper()
	var got []string
	for _, st := range res.Chain {
		got = append(got, loc(st))
		t.Logf("chain step %+v passing %+v", st, st.Passing)
	}
	want := strings.Fields(sc.Keys["chain"])
	if len(want) == 0 {
		return
	}
	if n := len(res.Chain); n < 3 || n > 7 {
		t.Errorf("the chain has %d steps, want 3–7: %v", n, got)
	}
	k := 0
	for _, g := range got {
		if k < len(want) && g == want[k] {
			k++
		}
	}
	if k < len(want) {
		t.Errorf("chain %v does not show %v in that order", got, want)
	}
	if d := sc.Keys["diverges"]; d != "" {
		i := slices.IndexFunc(res.Chain, func(st result.Statement) bool { return st.Diverges })
		if i < 0 || loc(res.Chain[i]) != d {
			t.Errorf("the runs first differ at %v, want %s", got, d)
		}
	}
	for _, entry := range strings.Split(sc.Keys["contrast"], ";") {
		f := strings.Fields(entry)
		if len(f) != 2 {
			continue
		}
		name, vals, _ := strings.Cut(f[1], "=")
		fail, pass, _ := strings.Cut(vals, "/")
		i := slices.IndexFunc(res.Chain, func(st result.Statement) bool { return loc(st) == f[0] })
		if i < 0 {
			t.Errorf("no chain step at %s", f[0])
			continue
		}
		st := res.Chain[i]
		gf := st.Values[name]
		if st.OnlyPassing {
			gf = "-"
		}
		gp := "-"
		switch {
		case st.OnlyPassing:
			gp = st.Values[name]
		case st.Passing != nil && !st.Passing.Missing:
			gp = st.Passing.Values[name]
		}
		if gf != fail || gp != pass {
			t.Errorf("%s: %s = %s failing, %s passing; want %s, %s (step %+v)", f[0], name, gf, gp, fail, pass, st)
		}
	}
}

// checkFlakyRegression checks what a flaky regression must show, with
// bounds generous enough for any machine: a head rate strictly between 0
// and 1 whose interval holds it, a base that never failed in enough runs,
// a root proven by a batch of runs without failure, and no causal tree
// (none is derived for a flaky test, and a note says so).
func checkFlakyRegression(t *testing.T, sc *scenario.Scenario, res *analyzer.Result) {
	t.Helper()
	fl := res.Flakiness
	if fl == nil {
		t.Fatal("flaky-regression without rates")
	}
	t.Logf("head %d/%d failed (%.2f, CI [%.2f, %.2f]), base %d/%d; %d trials, %v; variants %+v",
		fl.Head.Failures, fl.Head.Runs, fl.Head.Rate, fl.Head.CI.Lo, fl.Head.CI.Hi,
		fl.Base.Failures, fl.Base.Runs, res.Cost.Trials, res.Cost.Wall.Round(time.Millisecond), fl.Variants)
	// Head passed some plain runs, so its runs were amplified, or left
	// plain when no amplification made it fail more often per second; an
	// amplified process may fail every time.
	top := 0.98
	if a := fl.Amplification; a == nil || !res.Notes.Has(note.Amplified) {
		t.Errorf("head passed some runs but no amplification was measured: %+v, notes %+v", a, res.Notes)
	} else if a.Chosen.Iterations > 1 || a.Chosen.GoMaxProcs > 0 {
		top = 1
		if len(a.Tried) != 3 {
			t.Errorf("amplifications tried: %+v, want plain and two candidates", a.Tried)
		}
	}
	if h := fl.Head; h.Rate < 0.02 || h.Rate > top || h.CI.Lo <= 0 || h.CI.Lo > h.Rate || h.CI.Hi < h.Rate-1e-9 {
		t.Errorf("head rate %+v", h)
	}
	if b := fl.Base; b.Failures != 0 || b.Runs == 0 || b.Upper >= fl.Head.CI.Lo {
		t.Errorf("base %+v against head %+v", b, fl.Head)
	}
	checkInterventionChain(t, sc, res)
	if want := resolve(t, res.Hunks, sc.Root); !slices.Equal(res.Root, want) {
		t.Fatalf("root = %v, want %v (%s); aux %v; notes %+v", res.Root, want, sc.Root, res.Aux, res.Notes)
	}
	if want := resolve(t, res.Hunks, sc.Aux); !slices.Equal(res.Aux, want) {
		t.Errorf("aux = %v, want %v (%s)", res.Aux, want, sc.Aux)
	}
	if res.Proof == nil || !res.Proof.Passed() {
		t.Fatalf("root without a passing proof: %+v", res.Proof)
	}
	proven := false
	for _, v := range fl.Variants {
		if v.ProofRuns > 0 && v.ProofFailures == 0 && slices.Equal(v.Reverted, res.Proof.Reverted) {
			proven = true
		}
		if v.Verdict == "passes" && v.Failures != 0 {
			t.Errorf("variant %v judged passing with %d failures", v.Reverted, v.Failures)
		}
	}
	if !proven {
		t.Errorf("no proof batch for %v among %+v", res.Proof.Reverted, fl.Variants)
	}
	checkRace(t, sc, fl.Race)
}

// checkInterventionChain checks the chain found by intervention against
// the scenario's "chain" key: the head lines that the chain's steps must
// show, "file:line" for a confirmed step, "~file:line" for a step of any
// link. When no chain was derived, a note must say why there is none.
func checkInterventionChain(t *testing.T, sc *scenario.Scenario, res *analyzer.Result) {
	t.Helper()
	if ivs := res.Flakiness.Interventions; ivs != nil {
		runs := 0
		for _, it := range ivs.Tests {
			t.Logf("  %+v", it)
			runs += it.Runs
		}
		t.Logf("traced head: %d of %d failed; %d group tests, %d intervened runs; wall %v",
			ivs.TracedFailures, ivs.Traced, len(ivs.Tests), runs, res.Cost.Wall.Round(time.Second))
	}
	if res.Tree == nil {
		if !slices.ContainsFunc([]note.Code{note.NoIntervention, note.NoTracedFailure, note.NoDiscriminator, note.InterventionFailed, note.InterventionSkip}, res.Notes.Has) {
			t.Errorf("no tree and no note why: %+v", res.Notes)
		}
		if want := sc.Keys["chain"]; want != "" {
			t.Errorf("no chain, want one through %s; notes %+v", want, res.Notes)
		}
		return
	}
	if res.Notes.Has(note.NoIntervention) {
		t.Errorf("a tree and the note that none was derived: %+v", res.Notes)
	}
	// The failure the report quotes is the traced run's whose values the
	// tree's root shows: each run of a flaky test fails with its own.
	if tg, doc := res.Tree.Target, res.Document(); tg.Text != "" {
		if p, ok := gotest.CheckPrinted(tg.Text, tg.Values, doc.Failure.Message); ok && !p.Consistent() {
			t.Errorf("the report quotes %q beside the tree's %s %v: %v", doc.Failure.Message, tg.Text, tg.Values, p.Mismatches)
		}
	}
	links := map[string]string{} // place -> the strongest link of a step there
	res.Tree.Walk(func(n *result.Node) {
		t.Logf("step %s %s (%s): target %s:%d %q", n.Fact, n.Link, n.Effect, n.Target.File, n.Target.Line, n.Target.Text)
		for _, s := range n.Statements {
			t.Logf("    %s:%d %q %v", s.File, s.Line, s.Text, s.Values)
			if at := fmt.Sprintf("%s:%d", s.File, s.Line); n.Link != "" && links[at] != "confirmed" {
				links[at] = n.Link
			}
		}
	})
	// "file:line" needs a confirmed step there; "~file:line" any step.
	for _, want := range strings.Fields(sc.Keys["chain"]) {
		at, any := strings.CutPrefix(want, "~")
		if got := links[at]; got == "" || !any && got != "confirmed" {
			t.Errorf("step at %s: %q, want %s", at, got, map[bool]string{true: "a step", false: "a confirmed step"}[any])
		}
	}
}

// checkRace checks the race detector's evidence against the scenario's
// "race" key: "file:line" for a race whose reports, when the detector
// caught it in its few runs (it need not), have an access at that head
// line and no other race; "none" for a failure no data race causes (the
// detector has no false positives, so it must stay silent). A machine
// without the detector says so instead.
func checkRace(t *testing.T, sc *scenario.Scenario, rr *analyzer.RaceRuns) {
	t.Helper()
	want := sc.Keys["race"]
	if want == "" {
		return
	}
	if rr == nil {
		t.Fatal("no race detector evidence")
	}
	if rr.Unavailable != "" {
		t.Logf("race detector unavailable: %s", rr.Unavailable)
		return
	}
	t.Logf("race detector: %d runs, reports %+v", rr.Runs, rr.Reports)
	if want == "none" {
		if len(rr.Reports) != 0 {
			t.Errorf("race reports %+v, want none", rr.Reports)
		}
		return
	}
	for _, rep := range rr.Reports {
		if !slices.ContainsFunc(rep.Accesses, func(a analyzer.RaceAccess) bool { return fmt.Sprintf("%s:%d", a.File, a.Line) == want }) {
			t.Errorf("race report %+v has no access at %s", rep, want)
		}
	}
}

func resolve(t *testing.T, hunks []diffhunks.Hunk, refs []string) []diffhunks.ID {
	t.Helper()
	ids, err := scenario.Resolve(hunks, refs)
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

func loc(s result.Statement) string { return s.File + ":" + strconv.Itoa(s.Line) }

// loadScenario loads the scenario archive at path.
func loadScenario(t *testing.T, path string) *scenario.Scenario {
	t.Helper()
	sc, err := scenario.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// treeLocs is the place of every target and step of tree.
func treeLocs(tree *result.Node) map[string]bool {
	seen := map[string]bool{}
	tree.Walk(func(n *result.Node) {
		for _, s := range append([]result.Statement{n.Target}, n.Statements...) {
			seen[loc(s)] = true
		}
	})
	return seen
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// TestSemanticShare gives the semantic analysis no time at all: the
// revert search still proves the paper's root, the result says the
// semantic share ran out, and it shows no tree it did not derive.
func TestSemanticShare(t *testing.T) {
	t.Parallel()
	sc := loadScenario(t, "../testdata/after-example.txtar")
	res := explainWith(t, sc, analyzer.StrategyAfter, func(req *analyzer.Request) { req.SemanticBudget = time.Nanosecond })
	if want := resolve(t, res.Hunks, sc.Root); res.Status != result.Explained || !slices.Equal(res.Root, want) {
		t.Fatalf("status %s root %v, want explained %v; notes %+v", res.Status, res.Root, want, res.Notes)
	}
	if !res.Notes.Has(note.SemanticBudget) || res.Tree != nil {
		t.Errorf("notes %+v, tree %v: want the semantic budget noted and no tree", res.Notes, res.Tree != nil)
	}
}

// TestFlakyMaxTrials: the traced runs of the explanation by intervention
// are test runs, so --max-trials bounds them with the others.
func TestFlakyMaxTrials(t *testing.T) {
	t.Parallel()
	sc := loadScenario(t, "../testdata/flaky-lost-update.txtar")
	const max = 230
	res := explainWith(t, sc, analyzer.StrategyAfter, func(r *analyzer.Request) { r.MaxTrials = max })
	if res.Status != result.FlakyRegression || res.Flakiness == nil {
		t.Fatalf("status %s, want %s; notes %+v", res.Status, result.FlakyRegression, res.Notes)
	}
	runs := res.Cost.Trials
	if iv := res.Flakiness.Interventions; iv != nil {
		runs += iv.Traced
		for _, test := range iv.Tests {
			runs += test.Runs - test.Reused
		}
	} else if !res.Notes.Has(note.InterventionSkip) {
		t.Errorf("no interventions and no note why: %+v", res.Notes)
	}
	if runs > max {
		t.Errorf("%d test runs (%d trials), --max-trials %d", runs, res.Cost.Trials, max)
	}
	t.Logf("%d trials, %d runs in all", res.Cost.Trials, runs)
}

// TestTraceNarrowed: with a trace buffer too small for the loop in the
// package the change does not touch (the scenario's trace-bytes), the
// first trace is cut short before the failure; the run traced again with
// only the test's package and the changed one instrumented holds the
// failure, and the tree reaches the change. Without the second trace there
// would be no failure to explain. The explanation is TestScenarios's own.
func TestTraceNarrowed(t *testing.T) {
	t.Parallel()
	sc := loadScenario(t, "../testdata/trace-narrowed.txtar")
	if sc.TraceBytes == 0 || sc.TraceBytes > 1<<20 {
		t.Fatalf("trace-bytes %d: the scenario must bound its traces below the loop's events", sc.TraceBytes)
	}
	res := explainShared(t, sc, analyzer.StrategyAfter)
	if want := resolve(t, res.Hunks, sc.Root); res.Status != result.Explained || !slices.Equal(res.Root, want) {
		t.Fatalf("status %s root %v, want explained %v; notes %+v", res.Status, res.Root, want, res.Notes)
	}
	var narrowed *result.Note
	for i := range res.Notes {
		if res.Notes[i].Code == note.TraceNarrowed {
			narrowed = &res.Notes[i]
		}
	}
	if narrowed == nil || narrowed.Detail != "calc" || res.Notes.Has(note.TraceTruncated) {
		t.Fatalf("notes %+v: want the trace narrowed to calc and not truncated", res.Notes)
	}
	if !treeLocs(res.Tree)["calc/calc.go:5"] {
		t.Errorf("the tree does not reach calc/calc.go:5; notes %+v", res.Notes)
	}
}

// TestFlakyTracesNarrowed: a flaky regression whose test first loops in
// a helper of its own file, longer than the scenario's trace bound. Every
// fully instrumented traced run fills its trace before the failure, so
// head is traced again with only the root hunk's function (Add) and the
// test function instrumented, and those runs are observed whole. The
// chain itself is TestScenarios's to check, with its retries: a flaky
// run's predicates may by chance not discriminate.
func TestFlakyTracesNarrowed(t *testing.T) {
	t.Parallel()
	sc := loadScenario(t, "../testdata/flaky-trace-narrowed.txtar")
	res := explainShared(t, sc, analyzer.StrategyAfter)
	if res.Status != result.FlakyRegression {
		t.Fatalf("status %s, want flaky-regression; notes %+v", res.Status, res.Notes)
	}
	i := slices.IndexFunc(res.Notes, func(n result.Note) bool { return n.Code == note.TracesNarrowed })
	if i < 0 || res.Notes[i].Detail != "(*Counter).Add" || res.Notes[i].N < 4 {
		t.Fatalf("notes %+v: want every first traced run full and head traced again with only (*Counter).Add", res.Notes)
	}
	iv := res.Flakiness.Interventions
	if iv == nil || iv.Traced == 0 {
		t.Fatalf("interventions %+v: the narrowed traced runs were not observed; notes %+v", iv, res.Notes)
	}
}

// TestTraceWindow: the long loop is in the package the change touches, so
// narrowing keeps it and the trace is still cut before the failure. Traced
// again from shortly before the failure (the scenario's own loop is longer
// than the window's steps back), the failing run holds the failure, the
// passing run is traced from the same step of the test, and the two are
// compared: the tree reaches the change with the passing run's values.
func TestTraceWindow(t *testing.T) {
	t.Parallel()
	sc := loadScenario(t, "../testdata/trace-window.txtar")
	res := explainShared(t, sc, analyzer.StrategyAfter)
	if want := resolve(t, res.Hunks, sc.Root); res.Status != result.Explained || !slices.Equal(res.Root, want) {
		t.Fatalf("status %s root %v, want explained %v; notes %+v", res.Status, res.Root, want, res.Notes)
	}
	if !res.Notes.Has(note.TraceWindow) || res.Notes.Has(note.TraceTruncated) || res.Notes.Has(note.ContrastSkipped) {
		t.Fatalf("notes %+v: want the run traced from a window, not truncated, and compared", res.Notes)
	}
	compared := false
	res.Tree.Walk(func(n *result.Node) {
		for _, s := range append([]result.Statement{n.Target}, n.Statements...) {
			compared = compared || loc(s) == "calc/calc.go:14" && s.Passing != nil
		}
	})
	if !compared {
		t.Errorf("the tree does not reach calc/calc.go:14 with the passing run beside it; notes %+v", res.Notes)
	}
}

// TestBaselinePanicInChangedLine: a baseline's tree is the path of
// differences alone. Where the failing run panics in a line the change
// added and the passing run never runs that line, the path is that one
// step; it is the explanation all the same, as the failing statement is
// for AFTER's causes.
func TestBaselinePanicInChangedLine(t *testing.T) {
	t.Parallel()
	sc := loadScenario(t, "../testdata/sem-panic-in-added-line.txtar")
	res := explain(t, sc, analyzer.StrategyDDMin)
	if res.Status != result.Explained || res.Tree == nil {
		t.Fatalf("status %s, tree %v; notes %+v", res.Status, res.Tree, res.Notes)
	}
	seen := treeLocs(res.Tree)
	for _, want := range strings.Fields(sc.Keys["tree"]) {
		if !seen[want] {
			t.Errorf("the tree does not hold %s: %v", want, seen)
		}
	}
}
