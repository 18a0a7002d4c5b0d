package analyzer

import (
	"bytes"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/culprit-dev/culprit/analyzer/aid"
	"github.com/culprit-dev/culprit/analyzer/note"
	"github.com/culprit-dev/culprit/analyzer/result"
	"github.com/culprit-dev/culprit/analyzer/stats"
	"github.com/culprit-dev/culprit/analyzer/trial"
	"github.com/culprit-dev/culprit/diffhunks"
	"github.com/culprit-dev/culprit/report"
)

// explainedCalc is an explained result of four hunks in calc.go and one
// in its test, the hunks out of order, the root unsorted and repeated.
func explainedCalc() *Result {
	h := func(id diffhunks.ID, file string, line int) diffhunks.Hunk {
		return diffhunks.Hunk{ID: id, File: file, OldFile: file, Kind: diffhunks.Modify,
			Base: diffhunks.LineRange{Start: line, End: line}, Head: diffhunks.LineRange{Start: line, End: line}}
	}
	return &Result{
		Status:    result.Explained,
		Test:      TestRef{Package: "./calc", Name: "TestF"},
		Hunks:     []diffhunks.Hunk{h(2, "calc/calc.go", 8), h(1, "calc/calc.go", 3), h(3, "calc/calc.go", 17), h(4, "calc/calc_test.go", 6)},
		Root:      []diffhunks.ID{3, 2, 3},
		Aux:       []diffhunks.ID{4},
		TestHunks: []diffhunks.ID{4},
		Tree: &result.Node{
			Target:     result.Statement{File: "calc/calc_test.go", Line: 6, Text: "got != 5", Values: map[string]string{}},
			Statements: []result.Statement{{File: "calc/calc.go", Line: 17, Text: "sum += z + 1", Values: map[string]string{"sum": "4"}, Hunk: 3}},
		},
		Proof: &trial.Result{Reverted: []diffhunks.ID{4, 3, 2}, Outcome: trial.Pass, Duration: 900 * time.Millisecond},
		Evidence: []trial.Result{
			{Reverted: []diffhunks.ID{1, 2, 3, 4}, Outcome: trial.Pass},
			{Outcome: trial.Pass},
			{Outcome: trial.Fail, Signature: "calc/calc_test.go:7", Message: "F(3, 1, 2) = 4, want 5"},
			{Outcome: trial.Fail, Signature: "calc/calc_test.go:9", Message: "later"},
			{Reverted: []diffhunks.ID{2}, Outcome: trial.Pass}, // a trial, not evidence
		},
		Notes: result.Findings{{Code: note.TestHunks, N: 1}},
		Cost:  Cost{Strategy: StrategyAfter, Trials: 7, Wall: 4200 * time.Millisecond, Semantic: 1100 * time.Millisecond},
	}
}

// TestDocument: the document sorts hunks and ids, marks the test's own
// hunks, keeps only base and head runs as evidence with head's first
// failure, leaves the notes unworded and drops empty value maps.
func TestDocument(t *testing.T) {
	got := explainedCalc().Document()
	hunk := func(id result.HunkID, file string, line int, test bool) result.Hunk {
		return result.Hunk{ID: id, File: file, OldFile: file, Kind: "modify",
			BaseLines: [2]int{line, line}, HeadLines: [2]int{line, line}, Test: test}
	}
	want := &result.Report{
		Version: result.Version,
		Status:  result.Explained,
		Test:    result.Test{Package: "./calc", Name: "TestF"},
		Hunks: []result.Hunk{hunk(1, "calc/calc.go", 3, false), hunk(2, "calc/calc.go", 8, false),
			hunk(3, "calc/calc.go", 17, false), hunk(4, "calc/calc_test.go", 6, true)},
		Root: []result.HunkID{2, 3},
		Aux:  []result.HunkID{4},
		Tree: &result.Node{
			Target:     result.Statement{File: "calc/calc_test.go", Line: 6, Text: "got != 5"},
			Statements: []result.Statement{{File: "calc/calc.go", Line: 17, Text: "sum += z + 1", Values: map[string]string{"sum": "4"}, Hunk: 3}},
		},
		Proof: &result.Proof{Reverted: []result.HunkID{2, 3, 4}, Outcome: "pass", DurationSeconds: 0.9},
		Evidence: []result.Run{
			{Side: result.SideBase, Outcome: "pass"},
			{Side: result.SideHead, Outcome: "pass"},
			{Side: result.SideHead, Outcome: "fail", Signature: "calc/calc_test.go:7", Message: "F(3, 1, 2) = 4, want 5"},
			{Side: result.SideHead, Outcome: "fail", Signature: "calc/calc_test.go:9", Message: "later"},
		},
		Failure:  result.Failure{Signature: "calc/calc_test.go:7", Message: "F(3, 1, 2) = 4, want 5"},
		Notes:    []string{},
		Findings: result.Findings{{Code: note.TestHunks, N: 1}},
		Stats:    result.Stats{Strategy: "after", Trials: 7, WallSeconds: 4.2, SemanticSeconds: 1.1},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Document (-want +got):\n%s", diff)
	}
}

// TestDocumentCopies: changing the result afterwards does not change the
// document.
func TestDocumentCopies(t *testing.T) {
	res := explainedCalc()
	doc := res.Document()
	res.Tree.Statements[0].Values["sum"] = "99"
	res.Root[0] = 1
	res.Notes[0].N = 5
	if got := doc.Tree.Statements[0].Values["sum"]; got != "4" {
		t.Errorf("document tree changed with the result: sum = %q", got)
	}
	if diff := cmp.Diff([]result.HunkID{2, 3}, doc.Root); diff != "" {
		t.Errorf("document root changed with the result (-want +got):\n%s", diff)
	}
	if doc.Findings[0].N != 1 {
		t.Errorf("document findings changed with the result: %+v", doc.Findings)
	}
}

// TestDocumentSubtests: the subtest choice is in the document only when a
// subtest was explained or new ones were found.
func TestDocumentSubtests(t *testing.T) {
	res := explainedCalc()
	if doc := res.Document(); doc.Subtests != nil {
		t.Errorf("no subtest chosen, but the document has %+v", doc.Subtests)
	}
	res.Subtests = SubtestChoice{Leaf: "TestF/a", Same: []string{"TestF/b"}, New: []string{"TestF/c"}}
	want := &result.Subtests{Explained: "TestF/a", Same: []string{"TestF/b"}, New: []string{"TestF/c"}}
	if diff := cmp.Diff(want, res.Document().Subtests); diff != "" {
		t.Errorf("subtests (-want +got):\n%s", diff)
	}
}

// TestDocumentValues: every value the engine writes in an enumerated field
// is one the report reads back. The report spells these values out, as it
// depends on the document alone; this test ties them to the engine's
// constants.
func TestDocumentValues(t *testing.T) {
	type edit func(res *Result)
	cases := map[string]edit{}
	outcomes := []trial.Outcome{trial.Pass, trial.Fail, trial.BuildError, trial.Timeout, trial.Crash, trial.NoTests}
	for _, o := range outcomes {
		cases["outcome "+string(o)] = func(res *Result) {
			res.Proof.Outcome = o
			res.Evidence = append(res.Evidence, trial.Result{Outcome: o})
			res.Notes = append(res.Notes, result.Note{Code: note.AllFail, N: 1, Outcome: string(o)})
		}
	}
	for _, k := range []diffhunks.Kind{diffhunks.Modify, diffhunks.Add, diffhunks.Delete, diffhunks.Rename, diffhunks.Binary, diffhunks.Mode} {
		cases["hunk kind "+string(k)] = func(res *Result) { res.Hunks[0].Kind = k }
	}
	for _, st := range []Strategy{StrategyAfter, StrategyDynamic, StrategyDDMin, StrategyOneByOne} {
		cases["strategy "+string(st)] = func(res *Result) { res.Cost.Strategy = st }
	}
	variantVerdicts := []string{stats.Passes.String(), stats.Fails.String(), stats.Undecided.String()}
	for _, o := range outcomes {
		variantVerdicts = append(variantVerdicts, string(o))
	}
	for _, v := range variantVerdicts {
		cases["variant verdict "+v] = func(res *Result) {
			res.Flakiness = &Flakiness{Variants: []VariantRuns{{Reverted: []diffhunks.ID{2}, Verdict: v}}}
		}
	}
	for _, v := range []aid.Verdict{aid.Stopped, aid.Persists, aid.Invalid, aid.Undecided} {
		cases["intervention verdict "+string(v)] = func(res *Result) {
			res.Flakiness = &Flakiness{Interventions: &Interventions{Tests: []InterventionTest{{Verdict: string(v)}}}}
		}
	}
	for _, l := range []string{aid.Confirmed, aid.Correlated} {
		cases["link "+l] = func(res *Result) {
			res.Tree.Children = append(res.Tree.Children, &result.Node{Link: l, Outcome: "true"})
		}
	}
	for name, edit := range cases {
		t.Run(name, func(t *testing.T) {
			res := explainedCalc()
			edit(res)
			var buf bytes.Buffer
			if err := report.WriteJSON(&buf, res.Document()); err != nil {
				t.Fatal(err)
			}
			if _, err := report.ReadJSON(&buf); err != nil {
				t.Errorf("the report refuses the engine's document: %v", err)
			}
		})
	}
}
