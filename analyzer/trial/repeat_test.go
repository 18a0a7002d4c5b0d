package trial

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/culprit-dev/culprit/diffhunks"
)

// TestRepeat runs one variant several times, Workers at a time: every run
// is executed (no cache), in order, and the first becomes the variant's
// cached Run.
func TestRepeat(t *testing.T) {
	dir, head := gitRepo(t, calcRepo)
	r := newRunner(t, Config{Dir: dir, Head: head, Variants: calcVariants, Pkg: "./calc", Test: "TestF",
		Timeout: time.Minute, Workers: 2})
	ctx := context.Background()
	runs, err := r.Repeat(ctx, []diffhunks.ID{1}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 3 || r.Stats().Trials != 3 {
		t.Fatalf("%d runs, %d trials, want 3 and 3", len(runs), r.Stats().Trials)
	}
	for i, run := range runs {
		if run.Outcome != Pass || !slices.Equal(run.Reverted, []diffhunks.ID{1}) || run.Cached {
			t.Errorf("run %d: %+v", i, run)
		}
	}
	again, err := r.Run(ctx, []diffhunks.ID{1})
	if err != nil || !again.Cached || again.Outcome != Pass {
		t.Errorf("Run after Repeat = %+v, %v; want the cached first run", again, err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if runs, err := r.Repeat(cancelled, nil, 2); err == nil || len(runs) != 0 {
		t.Errorf("Repeat on a cancelled context = %d runs, %v", len(runs), err)
	}
}
