package action_test

import (
	"context"
	"strings"
	"testing"

	"github.com/culprit-dev/culprit/analyzer"
	"github.com/culprit-dev/culprit/analyzer/result"
	"github.com/culprit-dev/culprit/analyzer/trial"
	"github.com/culprit-dev/culprit/diffhunks"
	"github.com/google/go-cmp/cmp"
)

// suggestible explains the failure with two root hunks, one replacing two
// lines by one and one replacing one line by two, and an auxiliary hunk;
// its proof run passed.
type suggestible struct{}

func (suggestible) Explain(_ context.Context, req analyzer.Request) (*analyzer.Result, error) {
	lr := func(a, b int) diffhunks.LineRange { return diffhunks.LineRange{Start: a, End: b} }
	return &analyzer.Result{
		Status: result.Explained, Test: req.Test, Base: req.Base, Head: req.Head,
		Hunks: []diffhunks.Hunk{
			{ID: 1, File: "calc/calc.go", OldFile: "calc/calc.go", Base: lr(3, 3), Head: lr(3, 3), Kind: diffhunks.Modify,
				Diff: "-var sorted = true\n+var sorted = false\n"},
			{ID: 2, File: "calc/calc.go", OldFile: "calc/calc.go", Base: lr(8, 9), Head: lr(8, 8), Kind: diffhunks.Modify, Func: "F",
				Diff: "-\t\tif x > y {\n-\t\t\t// @octocat: see https://example.com\n+\t\tif x < y {\n"},
			{ID: 3, File: "calc/calc.go", OldFile: "calc/calc.go", Base: lr(16, 16), Head: lr(15, 16), Kind: diffhunks.Modify, Func: "F",
				Diff: "-\t\tsum += z\n+\t\tz++\n+\t\tsum += z\n"},
			{ID: 4, File: "calc/calc.go", OldFile: "calc/calc.go", Base: lr(19, 19), Head: lr(18, 18), Kind: diffhunks.Modify, Func: "F",
				Diff: "-\t\tsum -= z\n+\t\tsum += -z\n"},
		},
		Root:  []diffhunks.ID{2, 3},
		Aux:   []diffhunks.ID{4},
		Proof: &trial.Result{Reverted: []diffhunks.ID{2, 3, 4}, Outcome: trial.Pass},
		Evidence: []trial.Result{
			{Outcome: trial.Fail, Signature: "calc/calc_test.go:7", Message: "F(3, 1, 2) = 4, want 5"},
			{Reverted: []diffhunks.ID{1, 2, 3, 4}, Outcome: trial.Pass},
		},
	}, nil
}

// TestReviewCommentsSuggestTheBaseLines: each root hunk's comment spans its
// head lines and suggests its base lines, verbatim (a mention and a URL in
// the code are not neutralised: GitHub applies the block as it is); the
// auxiliary hunk gets no comment.
func TestReviewCommentsSuggestTheBaseLines(t *testing.T) {
	repo := loadScenario(t, nil)
	srv := newServer(t, repo)
	env := newRunnerEnv(t, srv, repo, "pull_request", prPayload(repo, repo.Base, repo.Head)).
		set("INPUT_TEST_RESULTS", goTestJSON(t, repo.Dir))
	if err := env.run(suggestible{}); err != nil {
		t.Fatalf("run: %v\n%s", err, env.out.String())
	}
	type placed struct {
		Path, Side, StartSide string
		StartLine, Line       int
		Suggestion            string
	}
	var got []placed
	for _, c := range srv.ReviewComments(prNum) {
		p := placed{Path: c.Path, Side: c.Side, StartSide: c.StartSide, StartLine: c.StartLine, Line: c.Line}
		if _, after, ok := strings.Cut(c.Body, "```suggestion\n"); ok {
			p.Suggestion, _, _ = strings.Cut(after, "```\n")
		}
		got = append(got, p)
	}
	want := []placed{
		{Path: "calc/calc.go", Side: "RIGHT", Line: 8, Suggestion: "\t\tif x > y {\n\t\t\t// @octocat: see https://example.com\n"},
		{Path: "calc/calc.go", Side: "RIGHT", StartSide: "RIGHT", StartLine: 15, Line: 16, Suggestion: "\t\tsum += z\n"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("review comments (-want +got):\n%s", d)
	}
	diffCalls(t, srv, map[string]int{"GET /user": 1, listComments: 1, createComment: 1, listReview: 1, createReview: 1})
}
