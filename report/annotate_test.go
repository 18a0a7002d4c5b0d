package report

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/culprit-dev/culprit/analyzer/result"
)

func TestAnnotations(t *testing.T) {
	tests := []struct {
		name string
		r    *result.Report
		want []Annotation
	}{
		{"explained", explainedWithTree(), []Annotation{
			{Level: "error", File: "calc/calc.go", Line: 8, EndLine: 8,
				Title:   "culprit: this change makes TestF fail (hunk #2)",
				Message: "TestF fails because of 2 of the PR's 4 hunks; reverting them makes it pass."},
			{Level: "error", File: "calc/calc.go", Line: 17, EndLine: 17,
				Title:   "culprit: this change makes TestF fail (hunk #3)",
				Message: "TestF fails because of 2 of the PR's 4 hunks; reverting them makes it pass."},
		}},
		{"explained with aux", explainedDynamicOnly(), []Annotation{
			{Level: "error", File: "words/count.go", Line: 9, EndLine: 9,
				Title:   "culprit: this change makes TestCount/empty_string fail (hunk #2)",
				Message: "TestCount/empty_string fails because of 2 of the PR's 5 hunks; reverting them, with 2 auxiliary hunks so the code compiles, makes it pass."},
			{Level: "error", File: "words/count.go", Line: 13, EndLine: 13, // a pure deletion: the line after it
				Title:   "culprit: this change makes TestCount/empty_string fail (hunk #3)",
				Message: "TestCount/empty_string fails because of 2 of the PR's 5 hunks; reverting them, with 2 auxiliary hunks so the code compiles, makes it pass."},
			{Level: "notice", File: "words/count.go", Line: 3, EndLine: 3,
				Title:   "culprit: reverted with the culprit so the code compiles (hunk #1)",
				Message: "Hunk #1 is not a cause of the failure of TestCount/empty_string; it is reverted together with hunks #2 and #3 so that the code still compiles."},
			{Level: "notice", File: "words/fields.go", Line: 1, EndLine: 5,
				Title:   "culprit: reverted with the culprit so the code compiles (hunk #4)",
				Message: "Hunk #4 is not a cause of the failure of TestCount/empty_string; it is reverted together with hunks #2 and #3 so that the code still compiles."},
		}},
		{"not-regression", notRegression(), []Annotation{{Level: "warning",
			Title:   "culprit: TestF fails on base too",
			Message: "TestF fails on base too, so the failure is not a regression of this PR."}}},
		{"flaky", flaky(), []Annotation{{Level: "warning",
			Title:   "culprit: TestF is flaky",
			Message: "TestF is flaky: on head it passed 2 and failed 3 of 5 runs, so no culprit is named."}}},
		{"flaky-regression", flakyRegression(), []Annotation{{Level: "warning", File: "calc/calc.go", Line: 8, EndLine: 8,
			Title:   "culprit: this change makes TestF flaky (hunk #2)",
			Message: "TestF became flaky in this PR: it failed 18 of 40 runs on head (45 %) and none of 13 on base; with hunk #2 reverted (1 of the PR's 4 hunks) it passed all 19 runs of the proof."}}},
		{"flaky-on-both", flakyOnBoth(), []Annotation{{Level: "warning",
			Title:   "culprit: TestF is flaky",
			Message: "TestF is flaky on base too: head failed 20 of 40 runs and base 1 of 2 runs, so no culprit is named."}}},
		{"head-build-fails", headBuildFails(), []Annotation{{Level: "warning",
			Title:   "culprit: TestF cannot run: head does not build",
			Message: "TestF cannot run because head does not build: calc/calc.go:9:4: undefined: sortd."}}},
		{"unexplained", unexplained(), []Annotation{{Level: "warning",
			Title:   "culprit: make test is not explained",
			Message: "The test command make test fails, but no subset of the PR's 4 hunks could be proven to cause it."}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Annotations(tc.r)); diff != "" {
				t.Errorf("Annotations (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReviewComments(t *testing.T) {
	type place struct {
		Path string
		Line int
		Key  string
	}
	tests := []struct {
		name string
		r    *result.Report
		want []place
	}{
		{"explained", explainedWithTree(), []place{
			{"calc/calc.go", 8, "<!-- culprit:hunk calc/calc.go:8-8 suggests 23466425 TestF -->"},
			{"calc/calc.go", 17, "<!-- culprit:hunk calc/calc.go:17-17 suggests 67b3fea9 TestF -->"},
		}},
		{"deletion takes the line after", explainedDynamicOnly(), []place{
			{"words/count.go", 9, "<!-- culprit:hunk words/count.go:9-9 suggests f7ee9e0d TestCount/empty_string -->"},
			{"words/count.go", 13, "<!-- culprit:hunk words/count.go:13 TestCount/empty_string -->"},
		}},
		{"deletion at the top is clamped to line 1", func() *result.Report {
			r := explainedWithTree()
			r.Hunks[1].HeadLines = [2]int{0, -1}
			return r
		}(), []place{
			{"calc/calc.go", 1, "<!-- culprit:hunk calc/calc.go:1 TestF -->"},
			{"calc/calc.go", 17, "<!-- culprit:hunk calc/calc.go:17-17 suggests 67b3fea9 TestF -->"},
		}},
		{"deleted file has no line", func() *result.Report {
			r := explainedWithTree()
			r.Hunks[1].Kind = "delete"
			return r
		}(), []place{
			{"calc/calc.go", 17, "<!-- culprit:hunk calc/calc.go:17-17 suggests 67b3fea9 TestF -->"},
		}},
		{"auxiliary hunk where the change is at work", withAuxAtWork(true), []place{
			{"calc/calc.go", 8, "<!-- culprit:hunk calc/calc.go:8-8 suggests 23466425 TestF -->"},
			{"calc/calc.go", 17, "<!-- culprit:hunk calc/calc.go:17 TestF -->"},
		}},
		{"auxiliary hunk whose step ran alike", withAuxAtWork(false), []place{
			{"calc/calc.go", 8, "<!-- culprit:hunk calc/calc.go:8-8 suggests 23466425 TestF -->"},
		}},
		{"not-regression", notRegression(), nil},
		{"flaky", flaky(), nil},
		{"unexplained", unexplained(), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			comments := ReviewComments(tc.r)
			var got []place
			for _, c := range comments {
				got = append(got, place{c.Path, c.Line, c.Key})
				if !strings.HasSuffix(c.Body, c.Key) {
					t.Errorf("body does not end with its key %q:\n%s", c.Key, c.Body)
				}
				if !strings.Contains(c.Body, "**culprit:**") {
					t.Errorf("body does not say who speaks:\n%s", c.Body)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("review comments (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("body", func(t *testing.T) {
		got := ReviewComments(explainedWithTree())[1].Body
		want := "**culprit:** this change (hunk #3) is one of 2 changes that together make **TestF** fail (hunks #2 and #3); reverting them makes it pass.\n" +
			"\nIn the failing run:\n" +
			"- `calc/calc.go:17` `sum += z + 1` (sum = 4, z = 2) ← hunk #3\n" +
			"\nReverting this hunk:\n\n" +
			"```suggestion\n\t\tsum += z\n```\n" +
			"\n<!-- culprit:hunk calc/calc.go:17-17 suggests 67b3fea9 TestF -->"
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("body (-want +got):\n%s", diff)
		}
	})
	t.Run("auxiliary body", func(t *testing.T) {
		got := ReviewComments(withAuxAtWork(true))[1].Body
		want := "**culprit:** this change (hunk #3) is reverted with the root (hunk #2) so that the code compiles, and **TestF** fails through it too: the run without the change did otherwise here.\n" +
			"\nIn the failing run:\n" +
			"- `calc/calc.go:17` `sum += z + 1` (sum = 4, z = 2) — **the runs diverge here** ← hunk #3\n" +
			"\n<!-- culprit:hunk calc/calc.go:17 TestF -->"
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("body (-want +got):\n%s", diff)
		}
	})
	t.Run("key cannot end its comment", func(t *testing.T) {
		r := explainedWithTree()
		r.Test.Name = "TestX-->y"
		for _, c := range ReviewComments(r) {
			if strings.Count(c.Key, "-->") != 1 {
				t.Errorf("key %q closes early", c.Key)
			}
		}
	})
}

func TestReviewCommentSuggestions(t *testing.T) {
	// explained has one root hunk, #2 of calc.go, and one auxiliary, #3.
	explained := func(h result.Hunk) *result.Report {
		r := explainedWithTree()
		h.ID, h.File, h.OldFile = 2, "calc/calc.go", "calc/calc.go"
		if h.Kind == "" {
			h.Kind = "modify"
		}
		r.Hunks[1] = h
		r.Root, r.Aux = []result.HunkID{2}, []result.HunkID{3}
		r.Proof.Reverted = []result.HunkID{2, 3}
		return r
	}
	type got struct {
		StartLine, Line int
		Suggestion      string // the fenced block, "" for none
	}
	tests := []struct {
		name string
		r    *result.Report
		want []got
	}{
		{"two lines replaced by one", explained(result.Hunk{BaseLines: [2]int{8, 9}, HeadLines: [2]int{8, 8},
			Diff: "-\tif x > y {\n-\t\tx, y = y, x\n+\tif x < y {\n"}),
			[]got{{0, 8, "```suggestion\n\tif x > y {\n\t\tx, y = y, x\n```\n"}}},
		{"one line replaced by three spans them", explained(result.Hunk{BaseLines: [2]int{8, 8}, HeadLines: [2]int{8, 10},
			Diff: "-\treturn a\n+\tif b {\n+\t\treturn b\n+\t}\n"}),
			[]got{{8, 10, "```suggestion\n\treturn a\n```\n"}}},
		{"added lines are suggested away", explained(result.Hunk{BaseLines: [2]int{8, 7}, HeadLines: [2]int{8, 9},
			Diff: "+\tx++\n+\ty++\n"}),
			[]got{{8, 9, "```suggestion\n```\n"}}},
		{"a fence in the code gets a longer fence", explained(result.Hunk{BaseLines: [2]int{8, 9}, HeadLines: [2]int{8, 8},
			Diff: "-```go\n-  ````\n+x\n"}),
			[]got{{0, 8, "`````suggestion\n```go\n  ````\n`````\n"}}},
		{"deleted lines have no head line to replace", explained(result.Hunk{BaseLines: [2]int{8, 9}, HeadLines: [2]int{8, 7},
			Diff: "-a\n-b\n"}),
			[]got{{0, 8, ""}}},
		{"a diff that does not match its ranges", explained(result.Hunk{BaseLines: [2]int{8, 9}, HeadLines: [2]int{8, 8},
			Diff: "-a\n+b\n"}),
			[]got{{0, 8, ""}}},
		{"a renamed file", explained(result.Hunk{BaseLines: [2]int{8, 8}, HeadLines: [2]int{8, 8},
			Diff: "-a\n+b\n", Kind: "rename"}),
			[]got{{0, 8, ""}}},
		{"proof did not pass", func() *result.Report {
			r := explained(result.Hunk{BaseLines: [2]int{8, 8}, HeadLines: [2]int{8, 8}, Diff: "-a\n+b\n"})
			r.Proof.Outcome = "fail"
			return r
		}(), []got{{0, 8, ""}}},
		{"proof reverted other hunks", func() *result.Report {
			r := explained(result.Hunk{BaseLines: [2]int{8, 8}, HeadLines: [2]int{8, 8}, Diff: "-a\n+b\n"})
			r.Proof.Reverted = []result.HunkID{2}
			return r
		}(), []got{{0, 8, ""}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var gots []got
			for _, c := range ReviewComments(tc.r) {
				g := got{StartLine: c.StartLine, Line: c.Line}
				if i := strings.Index(c.Body, "suggestion\n"); i >= 0 {
					start := strings.LastIndex(c.Body[:i], "\n") + 1
					end := strings.LastIndex(c.Body, "\n\n"+c.Key)
					g.Suggestion = c.Body[start : end+1]
				}
				if !strings.HasSuffix(c.Body, c.Key) {
					t.Errorf("body does not end with its key %q:\n%s", c.Key, c.Body)
				}
				gots = append(gots, g)
			}
			if diff := cmp.Diff(tc.want, gots); diff != "" {
				t.Errorf("review comments (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("the key names what is suggested", func(t *testing.T) {
		key := func(h result.Hunk) string {
			t.Helper()
			cs := ReviewComments(explained(h))
			if len(cs) != 1 {
				t.Fatalf("%d comments, want 1", len(cs))
			}
			return cs[0].Key
		}
		got := []string{
			key(result.Hunk{BaseLines: [2]int{8, 8}, HeadLines: [2]int{8, 8}, Diff: "-a\n+b\n"}),
			key(result.Hunk{BaseLines: [2]int{8, 8}, HeadLines: [2]int{8, 8}, Diff: "-c\n+b\n"}),
			key(result.Hunk{BaseLines: [2]int{8, 8}, HeadLines: [2]int{8, 9}, Diff: "-a\n+b\n+b\n"}),
			key(result.Hunk{BaseLines: [2]int{8, 8}, HeadLines: [2]int{8, 7}, Diff: "-a\n"}),
		}
		want := []string{
			"<!-- culprit:hunk calc/calc.go:8-8 suggests 87428fc5 TestF -->",
			"<!-- culprit:hunk calc/calc.go:8-8 suggests a3a5e715 TestF -->",
			"<!-- culprit:hunk calc/calc.go:8-9 suggests 87428fc5 TestF -->",
			"<!-- culprit:hunk calc/calc.go:8 TestF -->",
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("keys (-want +got):\n%s", diff)
		}
	})
}

// TestReviewCommentCarriesTheChain: a review comment on a culprit hunk
// shows that hunk's chain steps, with what the passing run did there.
func TestReviewCommentCarriesTheChain(t *testing.T) {
	rcs := ReviewComments(explainedWithChain())
	want := map[int]string{
		8:  "- `calc/calc.go:8` `x < y` is **false** (x = 3, y = 1); without the change: `x > y` **true** (x = 3, y = 1) — **the runs diverge here** ← hunk #2\n",
		17: "- `calc/calc.go:17` `sum += z + 1` (sum = 4, z = 2); without the change: `sum += z` (sum = 5, z = 2) ← hunk #3\n",
	}
	if len(rcs) != len(want) {
		t.Fatalf("%d review comments, want %d", len(rcs), len(want))
	}
	for _, rc := range rcs {
		w, ok := want[rc.Line]
		if !ok {
			t.Errorf("unexpected review comment on line %d", rc.Line)
			continue
		}
		if !strings.Contains(rc.Body, "With the change, and without it:\n"+w) {
			t.Errorf("comment on line %d:\n%s\nlacks the chain step\n%s", rc.Line, rc.Body, w)
		}
	}
}

// withAuxAtWork is explainedWithTree with hunk #3 auxiliary, reverted so that
// the root #2 compiles; the tree's step in it diverges from the run
// without the change when diverges is set, and ran alike otherwise.
func withAuxAtWork(diverges bool) *result.Report {
	r := explainedWithTree()
	r.Root, r.Aux = []result.HunkID{2}, []result.HunkID{3}
	r.Tree.Statements[0].Diverges = diverges
	return r
}

// TestReviewCommentsOnFewAuxiliaryHunks: of five auxiliary hunks where the
// tree shows the change at work, three get a comment, the one the chain
// passes through first.
func TestReviewCommentsOnFewAuxiliaryHunks(t *testing.T) {
	r := explainedWithTree()
	r.Root = []result.HunkID{2}
	for id := result.HunkID(10); id < 15; id++ {
		line := 30 + int(id)
		r.Hunks = append(r.Hunks, result.Hunk{ID: id, File: "calc/calc.go", OldFile: "calc/calc.go", BaseLines: [2]int{line, line},
			HeadLines: [2]int{line, line}, Kind: "modify", Diff: "-\ta = 1\n+\ta = 2\n"})
		r.Aux = append(r.Aux, id)
		r.Tree.Statements = append(r.Tree.Statements, result.Statement{File: "calc/calc.go", Line: line, Text: "a = 2", Hunk: id, Diverges: true})
	}
	r.Chain = []result.Statement{{File: "calc/calc.go", Line: 44, Text: "a = 2", Hunk: 14, Diverges: true}}
	var lines []int
	for _, c := range ReviewComments(r) {
		lines = append(lines, c.Line)
	}
	if want := []int{8, 44, 40, 41}; !slices.Equal(lines, want) {
		t.Errorf("review comments on lines %v, want %v (the root, the auxiliary hunk of the chain, then two more)", lines, want)
	}
}
