package trial

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/culprit-dev/culprit/diffhunks"
	"github.com/google/go-cmp/cmp"
)

// wire is an executor on the far side of a serialisation: every round
// travels as JSON to another runner's worktrees and the results come back
// as JSON, as they would from a machine that has only a checkout of head.
type wire struct {
	far    *Runner
	mu     sync.Mutex
	rounds [][]Request
}

func (w *wire) Execute(ctx context.Context, round []Request) ([]Result, error) {
	data, err := json.Marshal(round)
	if err != nil {
		return nil, err
	}
	var got []Request
	if err := json.Unmarshal(data, &got); err != nil {
		return nil, err
	}
	w.mu.Lock()
	w.rounds = append(w.rounds, got)
	w.mu.Unlock()
	out, err := w.far.Execute(ctx, got)
	if err != nil {
		return nil, err
	}
	if data, err = json.Marshal(out); err != nil {
		return nil, err
	}
	var back []Result
	return back, json.Unmarshal(data, &back)
}

// TestExecutorBoundary runs the same variants locally and through an
// executor that sees only serialised requests: the outcomes agree, the
// type checker still answers in process (its variant never crosses), and
// the requests carry the variant's files, deletions and test.
func TestExecutorBoundary(t *testing.T) {
	cfg := calcConfig(t)
	local := newRunner(t, cfg)
	w := &wire{far: newRunner(t, cfg)}
	cfg.Executor = w
	remote := newRunner(t, cfg)
	ctx := context.Background()
	type got struct {
		Outcome   Outcome
		Signature string
	}
	for _, ids := range [][]diffhunks.ID{nil, {1}, {2}, {4}, {5}, {6}} {
		t.Run(fmt.Sprint(ids), func(t *testing.T) {
			l, err := local.Run(ctx, ids)
			if err != nil {
				t.Fatal(err)
			}
			r, err := remote.Run(ctx, ids)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(got{l.Outcome, l.Signature}, got{r.Outcome, r.Signature}); diff != "" {
				t.Errorf("local vs executor (-local +executor):\n%s", diff)
			}
		})
	}
	if _, err := remote.Build(ctx, []diffhunks.ID{8}); err != nil {
		t.Fatal(err)
	}
	type sent struct {
		Revert  string
		Files   []string
		Deleted []string
		Build   bool
	}
	var sents []sent
	for _, round := range w.rounds {
		if len(round) != 1 {
			t.Fatalf("round of %d requests, want one", len(round))
		}
		q := round[0]
		if q.Package != "./calc" || q.Test != "TestF" || q.Timeout != time.Minute || q.Dir != "" {
			t.Errorf("request %v names %q %q %v %q", q.Revert, q.Package, q.Test, q.Timeout, q.Dir)
		}
		var files []string
		for p := range q.Files {
			files = append(files, p)
		}
		sents = append(sents, sent{key(q.Revert), files, q.Deleted, q.Build})
	}
	want := []sent{
		{Revert: ""},
		{Revert: "1", Files: []string{"calc/calc.go"}},
		{Revert: "4", Files: []string{"calc/calc.go"}},
		{Revert: "5", Deleted: []string{"calc/calc_test.go"}},
		{Revert: "6", Files: []string{"calc/testdata/want.txt"}},
	}
	// Variant 8's build is answered by the type checker unless it cannot
	// place the new package; either way it is a build request.
	if len(sents) == len(want)+1 {
		want = append(want, sent{Revert: "8", Files: sents[len(want)].Files, Build: true})
	}
	if diff := cmp.Diff(want, sents); diff != "" {
		t.Errorf("requests sent (-want +got):\n%s", diff)
	}
	// A round of two runs side by side and answers in its order.
	out, err := local.Execute(ctx, []Request{w.rounds[2][0], w.rounds[1][0]})
	if err != nil || len(out) != 2 || out[0].Outcome != Fail || out[1].Outcome != Pass {
		t.Errorf("round of variants 4 and 1 = %+v, %v; want fail, pass", out, err)
	}
	if _, err := local.Execute(ctx, []Request{{Package: "./other", Test: "TestF"}}); err == nil {
		t.Error("a request for another test ran")
	}
}
