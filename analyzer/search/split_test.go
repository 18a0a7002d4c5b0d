package search

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/culprit-dev/culprit/analyzer/trial"
	"github.com/culprit-dev/culprit/diffhunks"
)

// ledgered records every run of its oracle in the context's ledger, as
// the trial runner records its own; a repeated set is a cache hit there
// and costs no round.
type ledgered struct{ *oracle }

func (l ledgered) Run(ctx context.Context, revert []diffhunks.ID) (trial.Result, error) {
	res, err := l.oracle.Run(ctx, revert)
	if err != nil || res.Cached {
		return res, err
	}
	return trial.Executed(ctx, revert, false, func() (trial.Result, error) { return res, nil })
}

// TestDDMinSplit: ddmin over 32 hunks whose root is hunk 13, in halves
// two at a time (the local default) and in eighths eight at a time (an
// executor with eight runners): the same root, and the eighths take fewer
// rounds; with Split 0 the search is Zeller's, whatever Parallel says.
func TestDDMinSplit(t *testing.T) {
	hunks := make([]diffhunks.Hunk, 32)
	for i := range hunks {
		hunks[i] = diffhunks.Hunk{ID: diffhunks.ID(i + 1), File: fmt.Sprintf("f%02d.go", i), Kind: diffhunks.Modify}
	}
	type got struct {
		root           []diffhunks.ID
		trials, rounds int
	}
	search := func(opt Plan) got {
		t.Helper()
		ctx, led := trial.WithLedger(context.Background())
		o := &oracle{passes: subsetRule(13)}
		f, err := DDMin(ctx, ledgered{o}, hunks, ids(1, 32), opt)
		if err != nil {
			t.Fatal(err)
		}
		return got{f.Root, f.Trials, led.Rounds()}
	}
	halves := search(Plan{Parallel: 2})
	eighths := search(Plan{Parallel: 8, Split: 8})
	zeller := search(Plan{Parallel: 8})
	for name, g := range map[string]got{"halves": halves, "eighths": eighths, "zeller": zeller} {
		if !slices.Equal(g.root, []diffhunks.ID{13}) {
			t.Errorf("%s: root %v, want [13]", name, g.root)
		}
	}
	if eighths.rounds >= halves.rounds {
		t.Errorf("eighths took %d rounds, halves %d: want fewer", eighths.rounds, halves.rounds)
	}
	// Halves two at a time: all, then five halvings of one round each,
	// then the proof from the cache (no round): 6 rounds, 12 trials.
	if halves.rounds != 6 || halves.trials != 12 {
		t.Errorf("halves: %d rounds, %d trials; want 6 and 12", halves.rounds, halves.trials)
	}
	// Eighths: all; 8 parts of 4 (one passes); 4 parts of 1: 3 rounds.
	if eighths.rounds != 3 {
		t.Errorf("eighths: %d rounds, want 3", eighths.rounds)
	}
	if zeller.rounds != halves.rounds {
		t.Errorf("Split 0 with Parallel 8: %d rounds, halves %d: want Zeller's search", zeller.rounds, halves.rounds)
	}
}
