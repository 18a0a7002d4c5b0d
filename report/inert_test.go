package report

import (
	"slices"
	"strings"
	"testing"

	"github.com/culprit-dev/culprit/analyzer/note"
	"github.com/culprit-dev/culprit/analyzer/result"
	"github.com/culprit-dev/culprit/report/reporttest"
)

const (
	testDetails = "https://github.com/o/r/actions/runs/42"
	testRerun   = "comment `/culprit` or run the workflow"
)

// checkInert renders r every way culprit posts it and fails the test at
// the first output that could act on GitHub.
func checkInert(t *testing.T, r *result.Report) {
	t.Helper()
	md := Markdown(r)
	if err := reporttest.CheckMarkdown(md); err != nil {
		t.Fatalf("Markdown: %v\n%s", err, md)
	}
	c := Comment([]*result.Report{r}, CommentOptions{DetailsURL: testDetails, Rerun: testRerun})
	if err := reporttest.CheckMarkdown(c, Marker, "[Full report]("+testDetails+")", "[full report]("+testDetails+")"); err != nil {
		t.Fatalf("Comment: %v\n%s", err, c)
	}
	for _, rc := range ReviewComments(r) {
		if err := reporttest.CheckMarkdown(rc.Body, rc.Key); err != nil {
			t.Fatalf("review comment: %v\n%s", err, rc.Body)
		}
		if !strings.HasPrefix(rc.Key, "<!-- culprit:hunk ") || strings.Count(rc.Key, "<!--") != 1 ||
			strings.Index(rc.Key, "-->") != len(rc.Key)-3 || strings.Contains(rc.Key, "\n") {
			t.Fatalf("review comment key is not one HTML comment: %q", rc.Key)
		}
	}
	for _, a := range Annotations(r) {
		for _, s := range []string{a.Title, a.Message} {
			if err := reporttest.CheckText(s); err != nil {
				t.Fatalf("annotation: %v\n%s", err, s)
			}
		}
	}
}

// TestAttacksRenderInert: each text a forged artifact carried, in the
// field it was found in, renders as text everywhere culprit posts it.
func TestAttacksRenderInert(t *testing.T) {
	tests := []struct {
		name string
		doc  func() *result.Report
		edit func(r *result.Report)
	}{
		{"variant verdict closes a fold", flakyRegression, func(r *result.Report) {
			r.Flakiness.Variants[0].Verdict = "</details>"
		}},
		{"intervention verdict loads an image", flakyRegression, func(r *result.Report) {
			r.Flakiness.Interventions.Tests[0].Verdict = `<img src="//evil.example/p.png">`
		}},
		{"link to a host", explainedWithTree, func(r *result.Report) {
			r.Findings = result.Findings{{Code: note.CauseFailed, Detail: "[click here](//evil.example/login)"}}
			r.Tree.Statements[0].Values["sum"] = "[click here](//evil.example/login)"
		}},
		{"anchor", explainedWithTree, func(r *result.Report) { r.Stats.Strategy = `<a href="//evil.example/a">` }},
		{"entity mention", explainedWithTree, func(r *result.Report) { r.Test.Name = "&#64;alice" }},
		{"entity URL", explainedWithTree, func(r *result.Report) { r.Hunks[1].Func = "https&#58;//evil.example" }},
		{"marker in the name", explainedWithTree, func(r *result.Report) { r.Test.Name = "<!-- culprit:report:culprit.other -->" }},
		{"marker in a diff", explainedWithTree, func(r *result.Report) { r.Hunks[1].Diff = "-<!-- culprit:report:culprit.other -->\n+x\n" }},
		{"marker in the failure", headBuildFails, func(r *result.Report) { r.Failure.Message = "<!-- culprit:report -->\n" }},
		{"escaped backticks in a note", unexplained, func(r *result.Report) {
			r.Findings = nil
			r.Notes = []string{"see \\` @octo/owners \\` and \\` https://evil.example/login \\`"}
		}},
		{"mention and link in the headline", explainedWithTree, func(r *result.Report) {
			r.Test.Name = "TestDouble/@octocat_see_https://evil.example"
		}},
		{"mention in a code span", explainedWithTree, func(r *result.Report) { r.Tree.Target.Text = "`` `@octocat` ``" }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.doc()
			tc.edit(r)
			checkInert(t, r)
		})
	}
}

// TestSuggestionNeverHoldsAMarker: GitHub applies a suggestion verbatim,
// so base lines holding a "<!--" are not suggested at all.
func TestSuggestionNeverHoldsAMarker(t *testing.T) {
	r := explainedWithTree()
	r.Hunks[1].Diff = "-<!-- culprit:report -->\n+\t\tif x < y {\n"
	for _, rc := range ReviewComments(r) {
		if strings.Count(rc.Body, "<!--") != 1 || rc.Line == 8 && strings.Contains(rc.Body, "suggestion") {
			t.Errorf("review comment on line %d suggests a marker:\n%s", rc.Line, rc.Body)
		}
	}
}

// FuzzRenderInert: whatever text fills the strings of a report artifact,
// every field at once, nothing culprit renders from it can act on GitHub.
// The seeds are the attacks seen; go test runs them as a unit test.
func FuzzRenderInert(f *testing.F) {
	for _, a := range reporttest.Attacks {
		f.Add(a, false)
		f.Add(a, true)
	}
	codes := declaredCodes(f)
	f.Fuzz(func(t *testing.T, s string, flag bool) {
		s = cutRunes(s, 300) // every field holds it: keep the comment under its limit
		for _, r := range hostile(s, flag, codes) {
			checkInert(t, r)
		}
	})
}

// hostile gives reports whose every string is s: one as reporttest.Fill
// leaves it, its status and every enumeration hostile too (a renderer must
// not count on ReadJSON), and one per status with the enumerations set so
// that the renderer takes each of its branches, the free text still s.
func hostile(s string, flag bool, codes []note.Code) []*result.Report {
	raw := new(result.Report)
	reporttest.Fill(raw, s, flag)
	out := []*result.Report{raw}
	for _, st := range []result.Status{result.Explained, result.FlakyRegression, result.Flaky,
		result.NotRegression, result.HeadBuildFails, result.Unexplained} {
		r := new(result.Report)
		reporttest.Fill(r, s, flag)
		r.Status = st
		shapeHunks(r, s)
		shapeTree(r)
		r.Stats.Strategy = "after"
		r.Evidence[0].Side = result.SideHead
		r.Evidence = append(r.Evidence, result.Run{Side: result.SideBase, Outcome: "pass", Signature: s, Message: s})
		v := &r.Flakiness.Variants[0]
		v.Reverted, v.ProofFailures = slices.Clone(r.Proof.Reverted), 0
		if flag {
			r.Flakiness.Race.Unavailable = ""
		}
		for _, c := range codes {
			n := r.Findings[0]
			n.Code = c
			r.Findings = append(r.Findings, n)
		}
		out = append(out, r)
	}
	return out
}

// shapeHunks gives r a hunk of every kind, the first three root, the rest
// auxiliary, a proof that passed, and a first hunk whose diff GitHub could
// be asked to apply as a suggestion.
func shapeHunks(r *result.Report, s string) {
	line := strings.NewReplacer("\r", " ", "\n", " ").Replace(s)
	h := r.Hunks[0]
	r.Hunks = nil
	for i, k := range []string{"modify", "add", "delete", "rename", "binary", "mode"} {
		h.ID, h.Kind = result.HunkID(i+1), k
		r.Hunks = append(r.Hunks, h)
	}
	r.Hunks[0].OldFile = r.Hunks[0].File
	r.Hunks[0].Test = false
	r.Hunks[0].Diff = "-" + line + "\n+" + line + "\n"
	r.Root, r.Aux = []result.HunkID{1, 2, 3}, []result.HunkID{4, 5, 6}
	r.Proof.Outcome, r.Proof.Reverted = "pass", []result.HunkID{1, 2, 3, 4, 5, 6}
}

// shapeTree hangs under the root one child of every intervention fact,
// alternately confirmed and correlated, each with the three statements the
// longest fact words (a timing step with its one), and one plain branch.
func shapeTree(r *result.Report) {
	root := r.Tree
	child := *root.Children[0]
	child.Statements = slices.Repeat(child.Statements[:1], 3)
	root.Link, root.Children = "", nil
	for i, fact := range []string{"interleave", "order", "remote-def", "overlap", "never", "value", "panic", "branch", "timing"} {
		c := child
		c.Fact, c.Link = fact, []string{"confirmed", "correlated"}[i%2]
		if fact == "timing" {
			c.Statements = c.Statements[:1] // a timing step names one statement
		}
		root.Children = append(root.Children, &c)
	}
	branch := child
	branch.Link, branch.Fact, branch.Outcome = "", "", "true"
	root.Children = append(root.Children, &branch)
	r.Chain = append(r.Chain, result.Statement{File: "calc.go", Line: 1, Text: "x", Passing: &result.Passing{Missing: true}})
}
