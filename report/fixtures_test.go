package report

import (
	"github.com/culprit-dev/culprit/analyzer/note"
	"github.com/culprit-dev/culprit/analyzer/result"
)

// The fixtures are the regression of testdata/after-example.txtar at the
// repository root (the AFTER paper's running example) and variations of
// it, one per status, as the engine's documents (analyzer's
// Result.Document) hold them.

// fixture completes r as the engine does: the version set, and the empty
// lists it never leaves null.
func fixture(r *result.Report) *result.Report {
	r.Version = result.Version
	normalize(r)
	return r
}

func afterHunks() []result.Hunk {
	return []result.Hunk{
		{ID: 1, File: "calc/calc.go", OldFile: "calc/calc.go", BaseLines: [2]int{3, 3}, HeadLines: [2]int{3, 3}, Kind: "modify",
			Diff: "-var sorted = true\n+var sorted = false\n"},
		{ID: 2, File: "calc/calc.go", OldFile: "calc/calc.go", BaseLines: [2]int{8, 8}, HeadLines: [2]int{8, 8}, Kind: "modify", Func: "F",
			Diff: "-\t\tif x > y {\n+\t\tif x < y {\n"},
		{ID: 3, File: "calc/calc.go", OldFile: "calc/calc.go", BaseLines: [2]int{17, 17}, HeadLines: [2]int{17, 17}, Kind: "modify", Func: "F",
			Diff: "-\t\tsum += z\n+\t\tsum += z + 1\n"},
		{ID: 4, File: "calc/calc.go", OldFile: "calc/calc.go", BaseLines: [2]int{19, 19}, HeadLines: [2]int{19, 19}, Kind: "modify", Func: "F",
			Diff: "-\t\tsum -= z\n+\t\tsum += -z\n"},
	}
}

func afterTree() *result.Node {
	branch := result.Statement{File: "calc/calc.go", Line: 8, Text: "x < y", Values: map[string]string{"x": "3", "y": "1"}, Hunk: 2}
	return &result.Node{
		Target:  result.Statement{File: "calc/calc_test.go", Line: 6, Text: "got != 5", Values: map[string]string{"got": "4"}},
		Outcome: "failed",
		Statements: []result.Statement{
			{File: "calc/calc.go", Line: 17, Text: "sum += z + 1", Values: map[string]string{"sum": "4", "z": "2"}, Hunk: 3},
			{File: "calc/calc.go", Line: 11, Text: "sum = y", Values: map[string]string{"sum": "1"}},
		},
		Children: []*result.Node{{
			Target:     branch,
			Via:        &branch,
			Outcome:    "false",
			Statements: []result.Statement{{File: "calc/calc_test.go", Line: 6, Text: "F(3, 1, 2)"}},
		}},
	}
}

// explainedWithChain is the AFTER example compared with its passing run,
// as the analysis reports it: tree steps with their passing instances, the
// divergence, a passing-only step and the chain.
func explainedWithChain() *result.Report {
	r := explainedWithTree()
	pass := func(p result.Passing) *result.Passing { return &p }
	branch := result.Statement{File: "calc/calc.go", Line: 8, Text: "x < y", Values: map[string]string{"x": "3", "y": "1"}, Hunk: 2,
		Outcome: "false", Diverges: true, Passing: pass(result.Passing{Text: "x > y", Outcome: "true", Values: map[string]string{"x": "3", "y": "1"}})}
	assign := result.Statement{File: "calc/calc.go", Line: 11, Text: "sum = y", Values: map[string]string{"sum": "1", "y": "1"},
		Passing: pass(result.Passing{Text: "sum = x (line 9)", Values: map[string]string{"sum": "3", "x": "3"}})}
	add := result.Statement{File: "calc/calc.go", Line: 17, Text: "sum += z + 1", Values: map[string]string{"sum": "4", "z": "2"}, Hunk: 3,
		Passing: pass(result.Passing{Text: "sum += z", Values: map[string]string{"sum": "5", "z": "2"}})}
	check := result.Statement{File: "calc/calc_test.go", Line: 6, Text: "got != 5", Values: map[string]string{"got": "4"},
		Outcome: "true", Passing: pass(result.Passing{Outcome: "false", Values: map[string]string{"got": "5"}})}
	fail := result.Statement{File: "calc/calc_test.go", Line: 7, Text: `t.Errorf("F(3, 1, 2) = %d, want 5", got)`, Values: map[string]string{"got": "4"},
		Passing: pass(result.Passing{Missing: true})}
	r.Chain = []result.Statement{branch, assign, add, check, fail}
	r.Tree.Statements = append(r.Tree.Statements, result.Statement{File: "calc/calc.go", Line: 9, Text: "sum = x",
		Values: map[string]string{"sum": "3", "x": "3"}, OnlyPassing: true})
	r.Tree.Children[0].Target = branch
	r.Tree.Children[0].Via = &branch
	r.Stats.ContrastSeconds = 2
	return r
}

// runs gives n classification runs of one side.
func runs(n int, side, outcome, sig, msg string) []result.Run {
	out := make([]result.Run, n)
	for i := range out {
		out[i] = result.Run{Side: side, Outcome: outcome, Signature: sig, Message: msg}
	}
	return out
}

var (
	failSig   = "calc/calc_test.go:7"
	failMsg   = "calc_test.go:7: F(3, 1, 2) = 4, want 5"
	afterTest = result.Test{Package: "./calc", Name: "TestF"}
	// afterFailure is the first failure of head in the AFTER example.
	afterFailure = result.Failure{Signature: failSig, Message: failMsg}
)

func concat(lists ...[]result.Run) []result.Run {
	var out []result.Run
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

func explainedWithTree() *result.Report {
	return fixture(&result.Report{
		Status: result.Explained,
		Test:   afterTest,
		Base:   "3f1c2a9",
		Head:   "8be04d1",
		Hunks:  afterHunks(),
		Root:   []result.HunkID{2, 3},
		Tree:   afterTree(),
		Proof:  &result.Proof{Reverted: []result.HunkID{2, 3}, Outcome: "pass", DurationSeconds: 0.9},
		Evidence: concat(
			runs(3, result.SideBase, "pass", "", ""),
			runs(3, result.SideHead, "fail", failSig, failMsg)),
		Failure: afterFailure,
		Stats: result.Stats{Strategy: "after", Trials: 7, Rounds: 5, Builds: 7, TypeChecks: 3, CacheHits: 2,
			WallSeconds: 4.2, SemanticSeconds: 1.1, SolverCalls: 3, Clauses: 41, SliceSize: 23},
	})
}

// explainedDynamicOnly needs auxiliary hunks: reverting the new call to
// strings.Fields leaves the import unused, and the added helper file
// calls the reverted function.
func explainedDynamicOnly() *result.Report {
	hunks := []result.Hunk{
		{ID: 1, File: "words/count.go", OldFile: "words/count.go", BaseLines: [2]int{3, 2}, HeadLines: [2]int{3, 3}, Kind: "modify",
			Diff: "+import \"strings\"\n"},
		{ID: 2, File: "words/count.go", OldFile: "words/count.go", BaseLines: [2]int{8, 8}, HeadLines: [2]int{9, 9}, Kind: "modify", Func: "Count",
			Diff: "-\treturn len(split(s))\n+\treturn len(strings.Fields(s))\n"},
		{ID: 3, File: "words/count.go", OldFile: "words/count.go", BaseLines: [2]int{12, 15}, HeadLines: [2]int{13, 12}, Kind: "modify", Func: "split",
			Diff: "-\tif s == \"\" {\n-\t\treturn nil\n-\t}\n-\t// keep `` runs\n"},
		{ID: 4, File: "words/fields.go", OldFile: "words/fields.go", BaseLines: [2]int{1, 0}, HeadLines: [2]int{1, 5}, Kind: "add",
			Diff: "+package words\n+\n+func fields(s string) []string {\n+\treturn split(s)\n+}\n"},
		{ID: 5, File: "words/old.go", OldFile: "words/old.go", BaseLines: [2]int{1, 3}, HeadLines: [2]int{1, 0}, Kind: "delete",
			Diff: "-package words\n-\n-const legacy = true\n"},
	}
	sig, msg := "words/count_test.go:14", "count_test.go:14: Count(\"\") = 1, want 0 <nil>"
	return fixture(&result.Report{
		Status: result.Explained,
		Test:   result.Test{Package: "./words", Name: "TestCount/empty_string"},
		Base:   "main",
		Head:   "feature/fields",
		Hunks:  hunks,
		Root:   []result.HunkID{2, 3},
		Aux:    []result.HunkID{1, 4},
		AuxNeeds: []result.AuxNeed{
			{Hunk: 1, File: "words/count.go", Line: 3, Error: `"strings" imported and not used`},
			{Hunk: 4, File: "words/fields.go", Line: 4, Error: "undefined: split `x`"},
		},
		Proof: &result.Proof{Reverted: []result.HunkID{1, 2, 3, 4}, Outcome: "pass", DurationSeconds: 1.5},
		Evidence: concat(
			runs(3, result.SideBase, "pass", "", ""),
			runs(3, result.SideHead, "fail", sig, msg)),
		Failure: result.Failure{Signature: sig, Message: msg},
		Findings: result.Findings{
			{Code: note.SemanticFailed, Detail: "the failing run calls into cgo (C.strlen), which cannot be traced"},
			{Code: note.Unresolved, N: 2},
		},
		Stats: result.Stats{Strategy: "dynamic", Trials: 12, Builds: 15, WallSeconds: 95},
	})
}

func notRegression() *result.Report {
	return fixture(&result.Report{
		Status: result.NotRegression,
		Test:   afterTest,
		Base:   "3f1c2a9",
		Head:   "8be04d1",
		Hunks:  afterHunks(),
		Evidence: concat(
			runs(3, result.SideBase, "fail", "calc/calc_test.go:7", "calc_test.go:7: F(3, 1, 2) = 3, want 5"),
			runs(3, result.SideHead, "fail", failSig, failMsg)),
		Failure:  afterFailure,
		Findings: result.Findings{{Code: note.FailsOnBase, N: 3, M: 3}},
		Stats:    result.Stats{Strategy: "after", Trials: 6, Builds: 2, WallSeconds: 5},
	})
}

func flaky() *result.Report {
	return fixture(&result.Report{
		Status: result.Flaky,
		Test:   afterTest,
		Base:   "3f1c2a9",
		Head:   "8be04d1",
		Hunks:  afterHunks(),
		Evidence: concat(
			runs(5, result.SideBase, "pass", "", ""),
			runs(2, result.SideHead, "pass", "", ""),
			runs(2, result.SideHead, "fail", failSig, failMsg),
			runs(1, result.SideHead, "timeout", "", "test timed out after 2m0s")),
		Failure: afterFailure,
		Stats:   result.Stats{Strategy: "after", Trials: 10, Builds: 2, WallSeconds: 250},
	})
}

// flakyRegression: hunk 2 made the test fail 18 of 40 runs; base passed
// 13 of 13, and reverting hunk 2 passed its proof batch.
func flakyRegression() *result.Report {
	return fixture(&result.Report{
		Status: result.FlakyRegression,
		Test:   afterTest,
		Base:   "3f1c2a9",
		Head:   "8be04d1",
		Hunks:  afterHunks(),
		Root:   []result.HunkID{2},
		Proof:  &result.Proof{Reverted: []result.HunkID{2}, Outcome: "pass", DurationSeconds: 0.04},
		Evidence: concat(
			runs(22, result.SideHead, "pass", "", ""),
			runs(18, result.SideHead, "fail", failSig, failMsg),
			runs(13, result.SideBase, "pass", "", "")),
		Failure: afterFailure,
		Flakiness: &result.Flakiness{
			Workers: 2,
			// The 95 % Wilson interval of 18 in 40, and the 99 % upper
			// bound of a rate never seen in 13 runs (analyzer/stats).
			Head: result.HeadRate{Runs: 40, Failures: 18, Rate: 0.45, CI: [2]float64{0.3070530781090492, 0.6017090820106794}},
			Base: result.BaseRate{Runs: 13, Upper: 0.2982961713296173},
			Variants: []result.VariantRuns{
				{Reverted: []result.HunkID{1, 2, 3, 4}, Runs: 14, Verdict: "passes"},
				{Reverted: []result.HunkID{1, 2}, Runs: 14, Verdict: "passes"},
				{Reverted: []result.HunkID{1}, Runs: 2, Failures: 1, Verdict: "fails"},
				{Reverted: []result.HunkID{2}, Runs: 14, Verdict: "passes", ProofRuns: 19},
			},
			Race: &result.Race{Runs: 5, Reports: []result.RaceReport{{Accesses: []result.RaceAccess{
				{Op: "write", Func: "example.com/calc.F", File: "calc/calc.go", Line: 8, Hunk: 2},
				{Op: "previous read", Func: "example.com/calc.F", File: "calc/calc.go", Line: 17, Hunk: 3},
			}}}},
			Interventions: &result.Interventions{Traced: 20, TracedFailures: 9, Tests: []result.InterventionTest{
				{Items: []string{"run example.com/calc.F one call at a time"}, Runs: 26, Valid: 26, Verdict: "stopped"},
				{Items: []string{"run example.com/calc.F one call at a time"}, Runs: 26, Valid: 26, Reused: 26, Verdict: "stopped"},
				{Items: []string{"wait 40µs on entering example.com/calc.F"}, Runs: 4, Valid: 4, Failures: 1, Verdict: "persists", Placebo: true},
			}},
		},
		Tree: &result.Node{
			Target:  result.Statement{File: "calc/calc_test.go", Line: 6, Text: "got != 5", Values: map[string]string{"got": "4"}},
			Outcome: "failed",
			Children: []*result.Node{{
				Target: result.Statement{File: "calc/calc.go", Line: 17, Text: "sum += z + 1", Hunk: 3},
				Link:   "confirmed", Effect: "0.45 → 0/26", Fact: "interleave",
				Statements: []result.Statement{
					{File: "calc/calc.go", Line: 8, Text: "sum = x", Values: map[string]string{"sum": "3"}, Hunk: 2},
					{File: "calc/calc.go", Line: 17, Text: "sum += z + 1", Values: map[string]string{"sum": "4"}, Hunk: 3},
					{File: "calc/calc.go", Line: 17, Text: "sum += z + 1", Values: map[string]string{"sum": "4"}, Hunk: 3},
				},
			}},
		},
		Stats: result.Stats{Strategy: "after", Trials: 116, Builds: 5, WallSeconds: 27},
	})
}

// flakyOnBoth: base failed too, so no regression is claimed.
func flakyOnBoth() *result.Report {
	return fixture(&result.Report{
		Status: result.Flaky,
		Test:   afterTest,
		Base:   "3f1c2a9",
		Head:   "8be04d1",
		Hunks:  afterHunks(),
		Evidence: concat(
			runs(20, result.SideHead, "pass", "", ""),
			runs(20, result.SideHead, "fail", failSig, failMsg),
			runs(1, result.SideBase, "pass", "", ""),
			runs(1, result.SideBase, "fail", failSig, failMsg)),
		Failure: afterFailure,
		Flakiness: &result.Flakiness{
			Workers: 2,
			Head:    result.HeadRate{Runs: 40, Failures: 20, Rate: 0.5, CI: [2]float64{0.3519952693346538, 0.6480047306653463}},
			Base:    result.BaseRate{Runs: 2, Failures: 1},
		},
		Findings: result.Findings{{Code: note.FlakyOnBoth, N: 1, M: 2}},
		Stats:    result.Stats{Strategy: "after", Trials: 42, Builds: 2, WallSeconds: 4},
	})
}

func headBuildFails() *result.Report {
	msg := "# example.com/calc/calc\ncalc/calc.go:9:4: undefined: sortd\ncalc/calc.go:12:2: declared and not used: tmp\n"
	return fixture(&result.Report{
		Status:   result.HeadBuildFails,
		Test:     afterTest,
		Base:     "3f1c2a9",
		Head:     "8be04d1",
		Hunks:    afterHunks(),
		Evidence: concat(runs(1, result.SideBase, "pass", "", ""), runs(1, result.SideHead, "build-error", "", msg)),
		Failure:  result.Failure{Message: msg},
		Stats:    result.Stats{Strategy: "after", Trials: 2, Builds: 2, WallSeconds: 3},
	})
}

// baseBuildFails: base does not build, so no regression can be proven.
// The note holds the first line of the build output, as the engine
// records it: the go command's "# package" header, not the error.
func baseBuildFails() *result.Report {
	msg := "# example.com/calc [example.com/calc.test]\ncalc/calc_test.go:6:9: undefined: F\n"
	return fixture(&result.Report{
		Status: result.NotRegression,
		Test:   afterTest,
		Base:   "3f1c2a9",
		Head:   "8be04d1",
		Hunks:  afterHunks(),
		Evidence: concat(
			runs(3, result.SideHead, "fail", failSig, failMsg),
			runs(1, result.SideBase, "build-error", "", msg)),
		Failure:  afterFailure,
		Findings: result.Findings{{Code: note.BaseBuildFails, Detail: "# example.com/calc [example.com/calc.test]"}},
		Stats:    result.Stats{Strategy: "after", Trials: 4, Builds: 2, WallSeconds: 1.46961404},
	})
}

// unexplained runs in command mode; its best answer did not pass.
func unexplained() *result.Report {
	return fixture(&result.Report{
		Status: result.Unexplained,
		Test:   result.Test{Command: "make test"},
		Base:   "v1.2.0",
		Head:   "HEAD",
		Hunks:  afterHunks(),
		Root:   []result.HunkID{2},
		Proof:  &result.Proof{Reverted: []result.HunkID{2}, Outcome: "fail", DurationSeconds: 2},
		Evidence: concat(
			runs(3, result.SideBase, "pass", "", ""),
			runs(3, result.SideHead, "fail", "", "make: *** [test] Error 1")),
		Failure:  result.Failure{Message: "make: *** [test] Error 1"},
		Findings: result.Findings{{Code: note.BudgetNothing, Limit: "20m0s, 64 trials"}},
		Stats:    result.Stats{Strategy: "ddmin", Trials: 64, Builds: 64, WallSeconds: 700},
	})
}

// fixtures are the hand-built documents the golden files are made from.
var fixtures = []struct {
	name string
	doc  func() *result.Report
}{
	{"explained-tree", explainedWithTree},
	{"explained-chain", explainedWithChain},
	{"explained-dynamic", explainedDynamicOnly},
	{"not-regression", notRegression},
	{"flaky", flaky},
	{"flaky-regression", flakyRegression},
	{"flaky-on-both", flakyOnBoth},
	{"head-build-fails", headBuildFails},
	{"base-build-fails", baseBuildFails},
	{"unexplained", unexplained},
}
