package report

import (
	"time"

	"github.com/culprit-dev/culprit/analyzer"
	"github.com/culprit-dev/culprit/analyzer/cause"
	"github.com/culprit-dev/culprit/analyzer/note"
	"github.com/culprit-dev/culprit/analyzer/stats"
	"github.com/culprit-dev/culprit/analyzer/trial"
	"github.com/culprit-dev/culprit/diffhunks"
)

// The fixtures are the regression of testdata/after-example.txtar at the
// repository root (the AFTER paper's running example) and variations of
// it, one per status.

func afterHunks() []diffhunks.Hunk {
	return []diffhunks.Hunk{
		{ID: 1, File: "calc/calc.go", OldFile: "calc/calc.go", Base: lr(3, 3), Head: lr(3, 3), Kind: diffhunks.Modify,
			Diff: "-var sorted = true\n+var sorted = false\n"},
		{ID: 2, File: "calc/calc.go", OldFile: "calc/calc.go", Base: lr(8, 8), Head: lr(8, 8), Kind: diffhunks.Modify, Func: "F",
			Diff: "-\t\tif x > y {\n+\t\tif x < y {\n"},
		{ID: 3, File: "calc/calc.go", OldFile: "calc/calc.go", Base: lr(17, 17), Head: lr(17, 17), Kind: diffhunks.Modify, Func: "F",
			Diff: "-\t\tsum += z\n+\t\tsum += z + 1\n"},
		{ID: 4, File: "calc/calc.go", OldFile: "calc/calc.go", Base: lr(19, 19), Head: lr(19, 19), Kind: diffhunks.Modify, Func: "F",
			Diff: "-\t\tsum -= z\n+\t\tsum += -z\n"},
	}
}

func lr(start, end int) diffhunks.LineRange { return diffhunks.LineRange{Start: start, End: end} }

func afterTree() *cause.Node {
	branch := cause.Statement{File: "calc/calc.go", Line: 8, Text: "x < y", Values: map[string]string{"x": "3", "y": "1"}, Hunk: 2}
	return &cause.Node{
		Target:  cause.Statement{File: "calc/calc_test.go", Line: 6, Text: "got != 5", Values: map[string]string{"got": "4"}},
		Outcome: "failed",
		Statements: []cause.Statement{
			{File: "calc/calc.go", Line: 17, Text: "sum += z + 1", Values: map[string]string{"sum": "4", "z": "2"}, Hunk: 3},
			{File: "calc/calc.go", Line: 11, Text: "sum = y", Values: map[string]string{"sum": "1"}},
		},
		Children: []*cause.Node{{
			Target:     branch,
			Via:        &branch,
			Outcome:    "false",
			Statements: []cause.Statement{{File: "calc/calc_test.go", Line: 6, Text: "F(3, 1, 2)"}},
		}},
	}
}

// explainedWithChain is the AFTER example compared with its passing run,
// as the analysis reports it: tree steps with their passing instances, the
// divergence, a passing-only step and the chain.
func explainedWithChain() *analyzer.Result {
	res := explainedWithTree()
	pass := func(p cause.Passing) *cause.Passing { return &p }
	branch := cause.Statement{File: "calc/calc.go", Line: 8, Text: "x < y", Values: map[string]string{"x": "3", "y": "1"}, Hunk: 2,
		Outcome: "false", Diverges: true, Passing: pass(cause.Passing{Text: "x > y", Outcome: "true", Values: map[string]string{"x": "3", "y": "1"}})}
	assign := cause.Statement{File: "calc/calc.go", Line: 11, Text: "sum = y", Values: map[string]string{"sum": "1", "y": "1"},
		Passing: pass(cause.Passing{Text: "sum = x (line 9)", Values: map[string]string{"sum": "3", "x": "3"}})}
	add := cause.Statement{File: "calc/calc.go", Line: 17, Text: "sum += z + 1", Values: map[string]string{"sum": "4", "z": "2"}, Hunk: 3,
		Passing: pass(cause.Passing{Text: "sum += z", Values: map[string]string{"sum": "5", "z": "2"}})}
	check := cause.Statement{File: "calc/calc_test.go", Line: 6, Text: "got != 5", Values: map[string]string{"got": "4"},
		Outcome: "true", Passing: pass(cause.Passing{Outcome: "false", Values: map[string]string{"got": "5"}})}
	fail := cause.Statement{File: "calc/calc_test.go", Line: 7, Text: `t.Errorf("F(3, 1, 2) = %d, want 5", got)`, Values: map[string]string{"got": "4"},
		Passing: pass(cause.Passing{Missing: true})}
	res.Chain = []cause.Statement{branch, assign, add, check, fail}
	res.Tree.Statements = append(res.Tree.Statements, cause.Statement{File: "calc/calc.go", Line: 9, Text: "sum = x",
		Values: map[string]string{"sum": "3", "x": "3"}, OnlyPassing: true})
	res.Tree.Children[0].Target = branch
	res.Tree.Children[0].Via = &branch
	res.Stats.Contrast = 2 * time.Second
	return res
}

// runs gives n classification runs of one side.
func runs(n int, reverted []diffhunks.ID, o trial.Outcome, sig, msg string) []trial.Result {
	out := make([]trial.Result, n)
	for i := range out {
		out[i] = trial.Result{Reverted: reverted, Outcome: o, Signature: sig, Message: msg, Duration: 800 * time.Millisecond}
		if o == trial.Pass {
			out[i].Signature, out[i].Message = "", ""
		}
	}
	return out
}

var (
	allFour   = []diffhunks.ID{1, 2, 3, 4}
	failSig   = "calc/calc_test.go:7"
	failMsg   = "calc_test.go:7: F(3, 1, 2) = 4, want 5"
	afterTest = analyzer.TestRef{Package: "./calc", Name: "TestF"}
)

func concat(lists ...[]trial.Result) []trial.Result {
	var out []trial.Result
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

func explainedWithTree() *analyzer.Result {
	return &analyzer.Result{
		Status: analyzer.Explained,
		Test:   afterTest,
		Base:   "3f1c2a9",
		Head:   "8be04d1",
		Hunks:  afterHunks(),
		Root:   []diffhunks.ID{2, 3},
		Aux:    []diffhunks.ID{},
		Tree:   afterTree(),
		Proof:  &trial.Result{Reverted: []diffhunks.ID{2, 3}, Outcome: trial.Pass, Duration: 900 * time.Millisecond},
		Evidence: concat(
			runs(3, allFour, trial.Pass, "", ""),
			runs(3, nil, trial.Fail, failSig, failMsg)),
		Stats: analyzer.Stats{Strategy: analyzer.StrategyAfter, Trials: 7, Builds: 7, TypeChecks: 3, CacheHits: 2,
			Wall: 4200 * time.Millisecond, Semantic: 1100 * time.Millisecond, SolverCalls: 3, Clauses: 41, SliceSize: 23},
	}
}

// explainedDynamicOnly needs auxiliary hunks: reverting the new call to
// strings.Fields leaves the import unused, and the added helper file
// calls the reverted function.
func explainedDynamicOnly() *analyzer.Result {
	hunks := []diffhunks.Hunk{
		{ID: 1, File: "words/count.go", OldFile: "words/count.go", Base: lr(3, 2), Head: lr(3, 3), Kind: diffhunks.Modify,
			Diff: "+import \"strings\"\n"},
		{ID: 2, File: "words/count.go", OldFile: "words/count.go", Base: lr(8, 8), Head: lr(9, 9), Kind: diffhunks.Modify, Func: "Count",
			Diff: "-\treturn len(split(s))\n+\treturn len(strings.Fields(s))\n"},
		{ID: 3, File: "words/count.go", OldFile: "words/count.go", Base: lr(12, 15), Head: lr(13, 12), Kind: diffhunks.Modify, Func: "split",
			Diff: "-\tif s == \"\" {\n-\t\treturn nil\n-\t}\n-\t// keep `` runs\n"},
		{ID: 4, File: "words/fields.go", OldFile: "words/fields.go", Base: lr(1, 0), Head: lr(1, 5), Kind: diffhunks.Add,
			Diff: "+package words\n+\n+func fields(s string) []string {\n+\treturn split(s)\n+}\n"},
		{ID: 5, File: "words/old.go", OldFile: "words/old.go", Base: lr(1, 3), Head: lr(1, 0), Kind: diffhunks.Delete,
			Diff: "-package words\n-\n-const legacy = true\n"},
	}
	all := []diffhunks.ID{1, 2, 3, 4, 5}
	return &analyzer.Result{
		Status: analyzer.Explained,
		Test:   analyzer.TestRef{Package: "./words", Name: "TestCount/empty_string"},
		Base:   "main",
		Head:   "feature/fields",
		Hunks:  hunks,
		Root:   []diffhunks.ID{3, 2},
		Aux:    []diffhunks.ID{1, 4},
		Proof:  &trial.Result{Reverted: []diffhunks.ID{1, 2, 3, 4}, Outcome: trial.Pass, Duration: 1500 * time.Millisecond},
		Evidence: concat(
			runs(3, all, trial.Pass, "", ""),
			runs(3, nil, trial.Fail, "words/count_test.go:14", "count_test.go:14: Count(\"\") = 1, want 0 <nil>")),
		Notes: note.List{
			{Code: note.SemanticFailed, Detail: "the failing run calls into cgo (C.strlen), which cannot be traced"},
			{Code: note.Unresolved, N: 2},
		},
		Stats: analyzer.Stats{Strategy: analyzer.StrategyDynamic, Trials: 12, Builds: 15, Wall: 95 * time.Second},
	}
}

func notRegression() *analyzer.Result {
	return &analyzer.Result{
		Status: analyzer.NotRegression,
		Test:   afterTest,
		Base:   "3f1c2a9",
		Head:   "8be04d1",
		Hunks:  afterHunks(),
		Evidence: concat(
			runs(3, allFour, trial.Fail, "calc/calc_test.go:7", "calc_test.go:7: F(3, 1, 2) = 3, want 5"),
			runs(3, nil, trial.Fail, failSig, failMsg)),
		Notes: note.List{{Code: note.FailsOnBase, N: 3, M: 3}},
		Stats: analyzer.Stats{Strategy: analyzer.StrategyAfter, Trials: 6, Builds: 2, Wall: 5 * time.Second},
	}
}

func flaky() *analyzer.Result {
	return &analyzer.Result{
		Status: analyzer.Flaky,
		Test:   afterTest,
		Base:   "3f1c2a9",
		Head:   "8be04d1",
		Hunks:  afterHunks(),
		Evidence: concat(
			runs(5, allFour, trial.Pass, "", ""),
			runs(2, nil, trial.Pass, "", ""),
			runs(2, nil, trial.Fail, failSig, failMsg),
			runs(1, nil, trial.Timeout, "", "test timed out after 2m0s")),
		Stats: analyzer.Stats{Strategy: analyzer.StrategyAfter, Trials: 10, Builds: 2, Wall: 250 * time.Second},
	}
}

// flakyRegression: hunk 2 made the test fail 18 of 40 runs; base passed
// 13 of 13, and reverting hunk 2 passed its proof batch.
func flakyRegression() *analyzer.Result {
	return &analyzer.Result{
		Status: analyzer.FlakyRegression,
		Test:   afterTest,
		Base:   "3f1c2a9",
		Head:   "8be04d1",
		Hunks:  afterHunks(),
		Root:   []diffhunks.ID{2},
		Proof:  &trial.Result{Reverted: []diffhunks.ID{2}, Outcome: trial.Pass, Duration: 40 * time.Millisecond},
		Evidence: concat(
			runs(22, nil, trial.Pass, "", ""),
			runs(18, nil, trial.Fail, failSig, failMsg),
			runs(13, allFour, trial.Pass, "", "")),
		Flakiness: &analyzer.Flakiness{
			Workers: 2,
			Head:    analyzer.HeadRate{Runs: 40, Failures: 18, Rate: 0.45, CI: stats.Wilson(18, 40, stats.Z95)},
			Base:    analyzer.BaseRate{Runs: 13, Upper: stats.ZeroUpper(13, 0.01)},
			Variants: []analyzer.VariantRuns{
				{Reverted: allFour, Runs: 14, Verdict: "passes"},
				{Reverted: []diffhunks.ID{1, 2}, Runs: 14, Verdict: "passes"},
				{Reverted: []diffhunks.ID{1}, Runs: 2, Failures: 1, Verdict: "fails"},
				{Reverted: []diffhunks.ID{2}, Runs: 14, Verdict: "passes", ProofRuns: 19},
			},
			Race: &analyzer.RaceRuns{Runs: 5, Reports: []analyzer.RaceReport{{Accesses: []analyzer.RaceAccess{
				{Op: "write", Func: "example.com/calc.F", File: "calc/calc.go", Line: 8, Hunk: 2},
				{Op: "previous read", Func: "example.com/calc.F", File: "calc/calc.go", Line: 17, Hunk: 3},
			}}}},
			Interventions: &analyzer.Interventions{Traced: 20, TracedFailures: 9, Tests: []analyzer.InterventionTest{
				{Items: []string{"run example.com/calc.F one call at a time"}, Runs: 26, Valid: 26, Verdict: "stopped"},
				{Items: []string{"run example.com/calc.F one call at a time"}, Runs: 26, Valid: 26, Reused: 26, Verdict: "stopped"},
				{Items: []string{"wait 40µs on entering example.com/calc.F"}, Runs: 4, Valid: 4, Failures: 1, Verdict: "persists", Placebo: true},
			}},
		},
		Tree: &cause.Node{
			Target:  cause.Statement{File: "calc/calc_test.go", Line: 6, Text: "got != 5", Values: map[string]string{"got": "4"}},
			Outcome: "failed",
			Children: []*cause.Node{{
				Target: cause.Statement{File: "calc/calc.go", Line: 17, Text: "sum += z + 1", Hunk: 3},
				Link:   "confirmed", Effect: "0.45 → 0/26", Fact: "interleave",
				Statements: []cause.Statement{
					{File: "calc/calc.go", Line: 8, Text: "sum = x", Values: map[string]string{"sum": "3"}, Hunk: 2},
					{File: "calc/calc.go", Line: 17, Text: "sum += z + 1", Values: map[string]string{"sum": "4"}, Hunk: 3},
					{File: "calc/calc.go", Line: 17, Text: "sum += z + 1", Values: map[string]string{"sum": "4"}, Hunk: 3},
				},
			}},
		},
		Stats: analyzer.Stats{Strategy: analyzer.StrategyAfter, Trials: 116, Builds: 5, Wall: 27 * time.Second},
	}
}

// flakyOnBoth: base failed too, so no regression is claimed.
func flakyOnBoth() *analyzer.Result {
	return &analyzer.Result{
		Status: analyzer.Flaky,
		Test:   afterTest,
		Base:   "3f1c2a9",
		Head:   "8be04d1",
		Hunks:  afterHunks(),
		Evidence: concat(
			runs(20, nil, trial.Pass, "", ""),
			runs(20, nil, trial.Fail, failSig, failMsg),
			runs(1, allFour, trial.Pass, "", ""),
			runs(1, allFour, trial.Fail, failSig, failMsg)),
		Flakiness: &analyzer.Flakiness{
			Workers: 2,
			Head:    analyzer.HeadRate{Runs: 40, Failures: 20, Rate: 0.5, CI: stats.Wilson(20, 40, stats.Z95)},
			Base:    analyzer.BaseRate{Runs: 2, Failures: 1},
		},
		Notes: note.List{{Code: note.FlakyOnBoth, N: 1, M: 2}},
		Stats: analyzer.Stats{Strategy: analyzer.StrategyAfter, Trials: 42, Builds: 2, Wall: 4 * time.Second},
	}
}

func headBuildFails() *analyzer.Result {
	msg := "# example.com/calc/calc\ncalc/calc.go:9:4: undefined: sortd\ncalc/calc.go:12:2: declared and not used: tmp\n"
	return &analyzer.Result{
		Status:   analyzer.HeadBuildFails,
		Test:     afterTest,
		Base:     "3f1c2a9",
		Head:     "8be04d1",
		Hunks:    afterHunks(),
		Evidence: concat(runs(1, allFour, trial.Pass, "", ""), runs(1, nil, trial.BuildError, "", msg)),
		Stats:    analyzer.Stats{Strategy: analyzer.StrategyAfter, Trials: 2, Builds: 2, Wall: 3 * time.Second},
	}
}

// unexplained runs in command mode; its best answer did not pass.
func unexplained() *analyzer.Result {
	return &analyzer.Result{
		Status: analyzer.Unexplained,
		Test:   analyzer.TestRef{Command: "make test"},
		Base:   "v1.2.0",
		Head:   "HEAD",
		Hunks:  afterHunks(),
		Root:   []diffhunks.ID{2},
		Proof:  &trial.Result{Reverted: []diffhunks.ID{2}, Outcome: trial.Fail, Signature: "", Duration: 2 * time.Second},
		Evidence: concat(
			runs(3, allFour, trial.Pass, "", ""),
			runs(3, nil, trial.Fail, "", "make: *** [test] Error 1")),
		Notes: note.List{{Code: note.BudgetNothing, Limit: "20m0s, 64 trials"}},
		Stats: analyzer.Stats{Strategy: analyzer.StrategyDDMin, Trials: 64, Builds: 64, Wall: 700 * time.Second},
	}
}

// fixtures are the hand-built results the golden files are made from.
var fixtures = []struct {
	name string
	res  func() *analyzer.Result
}{
	{"explained-tree", explainedWithTree},
	{"explained-chain", explainedWithChain},
	{"explained-dynamic", explainedDynamicOnly},
	{"not-regression", notRegression},
	{"flaky", flaky},
	{"flaky-regression", flakyRegression},
	{"flaky-on-both", flakyOnBoth},
	{"head-build-fails", headBuildFails},
	{"unexplained", unexplained},
}
