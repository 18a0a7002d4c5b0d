package report

import (
	"strconv"
	"strings"
	"testing"

	"github.com/culprit-dev/culprit/analyzer/note"
	"github.com/culprit-dev/culprit/analyzer/result"
)

// TestReadJSONRefusesUnknownValues: a value outside its field's set is
// refused with the field's path, as only a forged or corrupted artifact
// holds one.
func TestReadJSONRefusesUnknownValues(t *testing.T) {
	const bad = "</details>"
	tests := []struct {
		name string
		edit func(r *result.Report)
		path string // the field named in the error
	}{
		{"hunk kind", func(r *result.Report) { r.Hunks[1].Kind = bad }, "hunks[1].kind"},
		{"proof outcome", func(r *result.Report) { r.Proof.Outcome = bad }, "proof.outcome"},
		{"evidence outcome", func(r *result.Report) { r.Evidence[2].Outcome = bad }, "evidence[2].outcome"},
		{"strategy", func(r *result.Report) { r.Stats.Strategy = bad }, "stats.strategy"},
		{"variant verdict", func(r *result.Report) { r.Flakiness.Variants[1].Verdict = bad }, "flakiness.variants[1].verdict"},
		{"intervention verdict", func(r *result.Report) { r.Flakiness.Interventions.Tests[2].Verdict = bad }, "flakiness.interventions.tests[2].verdict"},
		{"race op", func(r *result.Report) { r.Flakiness.Race.Reports[0].Accesses[1].Op = bad }, "flakiness.race.reports[0].accesses[1].op"},
		{"tree link", func(r *result.Report) { r.Tree.Children[0].Link = bad }, "tree.children[0].link"},
		{"tree fact", func(r *result.Report) { r.Tree.Children[0].Fact = bad }, "tree.children[0].fact"},
		{"tree outcome", func(r *result.Report) { r.Tree.Outcome = bad }, "tree.outcome"},
		{"statement outcome", func(r *result.Report) { r.Tree.Children[0].Statements[2].Outcome = bad }, "tree.children[0].statements[2].outcome"},
		{"via outcome", func(r *result.Report) {
			r.Tree.Children[0].Via = &result.Statement{Passing: &result.Passing{Outcome: bad}}
		}, "tree.children[0].via.passing.outcome"},
		{"chain outcome", func(r *result.Report) { r.Chain = []result.Statement{{Outcome: "case 2"}, {Outcome: bad}} }, "chain[1].outcome"},
		{"null child", func(r *result.Report) { r.Tree.Children = append(r.Tree.Children, nil) }, "tree.children[1]"},
		{"finding code", func(r *result.Report) { r.Findings = result.Findings{{Code: bad}} }, "findings[0].code"},
		{"finding outcome", func(r *result.Report) { r.Findings = result.Findings{{Code: note.AllFail, Outcome: bad}} }, "findings[0].outcome"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := flakyRegression()
			tc.edit(r)
			_, err := ReadJSON(strings.NewReader(writeJSON(t, r)))
			want := tc.path + ": unknown value " + strconv.Quote(bad)
			if tc.name == "null child" {
				want = tc.path + ": null"
			}
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("ReadJSON error = %v, want one containing %q", err, want)
			}
		})
	}
	t.Run("every value culprit writes", func(t *testing.T) {
		r := flakyRegression()
		r.Chain = []result.Statement{{Outcome: "true"}, {Outcome: "no case"}, {Outcome: "case 12", Passing: &result.Passing{Outcome: "false"}}}
		r.Tree.Children[0].Outcome = "case 0"
		if _, err := ReadJSON(strings.NewReader(writeJSON(t, r))); err != nil {
			t.Errorf("ReadJSON: %v", err)
		}
	})
}
