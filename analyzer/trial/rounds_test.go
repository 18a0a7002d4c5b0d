package trial

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/culprit-dev/culprit/diffhunks"
	"github.com/google/go-cmp/cmp"
)

// TestLanes checks the arithmetic of rounds without processes: a chain
// deepens its lane, a fork's calls start where the parent is and the
// deepest comes back, a lane shared without a fork counts overlapping
// trials once, and a type-checked or failed trial costs no round.
func TestLanes(t *testing.T) {
	run := func(ctx context.Context, build bool) {
		ln := laneOf(ctx)
		if _, _, err := ln.execute(ln.at(), []diffhunks.ID{1}, build, func() (Result, error) { return Result{Outcome: Pass}, nil }); err != nil {
			t.Fatal(err)
		}
	}
	ctx, led := WithLedger(context.Background())
	run(ctx, false) // round 1
	run(ctx, true)  // round 2: a build depends on the first outcome
	ctxs, join := Fork(ctx, 3)
	run(ctxs[0], false) // round 3
	run(ctxs[1], false) // round 3
	run(ctxs[1], false) // round 4: this call's own chain goes on
	// ctxs[2] runs nothing.
	if got := led.Rounds(); got != 2 {
		t.Errorf("before join: %d rounds, want 2", got)
	}
	join()
	if got := led.Rounds(); got != 4 {
		t.Errorf("after join: %d rounds, want 4", got)
	}
	ln := laneOf(ctx)
	start := ln.at()
	ln.execute(start, nil, false, func() (Result, error) { return Result{Outcome: BuildError, TypeChecked: true}, nil })
	ln.execute(start, nil, false, func() (Result, error) { return Result{}, context.Canceled })
	// Two trials requested at the same depth in one lane overlapped.
	ln.execute(start, []diffhunks.ID{2}, false, func() (Result, error) { return Result{Outcome: Fail}, nil })
	ln.execute(start, []diffhunks.ID{3}, false, func() (Result, error) { return Result{Outcome: Fail}, nil })
	if got := led.Rounds(); got != 5 {
		t.Errorf("at the end: %d rounds, want 5", got)
	}
	var rounds []int
	for _, e := range led.Entries() {
		rounds = append(rounds, e.Round)
	}
	if diff := cmp.Diff([]int{1, 2, 3, 3, 4, 5, 5}, rounds); diff != "" {
		t.Errorf("entries' rounds (-want +got):\n%s", diff)
	}
	if e := led.Entries()[1]; !e.Build || e.Outcome != Pass {
		t.Errorf("second entry = %+v, want a passing build", e)
	}
	var none *Ledger
	if none.Rounds() != 0 || none.Entries() != nil || LedgerOf(context.Background()) != nil {
		t.Error("no ledger: want zero rounds and no entries")
	}
	plain, join := Fork(context.Background(), 2)
	join()
	if LedgerOf(plain[0]) != nil {
		t.Error("a fork without a ledger made one")
	}
}

// TestRoundsOfRunner runs real trials: head, then the fix and the panic
// side by side (one round), a variant the type checker rejects (no round),
// a repeat of three runs of a variant kept checked out (its build, then its
// runs: two rounds), and a cached run (no round). A
// caller that waits for another's execution of the same variant is as
// deep as it.
func TestRoundsOfRunner(t *testing.T) {
	dir, head := gitRepo(t, calcRepo)
	r := newRunner(t, Config{Dir: dir, Head: head, Variants: calcVariants, Pkg: "./calc", Test: "TestF",
		Timeout: time.Minute, Workers: 2})
	ctx, led := WithLedger(context.Background())
	if _, err := r.Run(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := r.RunAll(ctx, [][]diffhunks.ID{{1}, {4}}); err != nil {
		t.Fatal(err)
	}
	if res, err := r.Run(ctx, []diffhunks.ID{2}); err != nil || !res.TypeChecked {
		t.Fatalf("variant 2 = %+v, %v; want rejected by the type checker", res, err)
	}
	if _, err := r.Repeat(ctx, []diffhunks.ID{6}, 3); err != nil {
		t.Fatal(err)
	}
	if res, err := r.Run(ctx, []diffhunks.ID{1}); err != nil || !res.Cached {
		t.Fatalf("variant 1 again = %+v, %v; want cached", res, err)
	}
	if got := led.Rounds(); got != 4 {
		t.Errorf("%d rounds, want 4", got)
	}
	type row struct {
		Revert  string
		Round   int
		Outcome Outcome
	}
	var got []row
	for _, e := range led.Entries() {
		if e.Seconds <= 0 {
			t.Errorf("entry %+v: no duration", e)
		}
		got = append(got, row{key(e.Revert), e.Round, e.Outcome})
	}
	want := []row{{"", 1, Fail}, {"1", 2, Pass}, {"4", 2, Fail}, {"6", 3, Pass}, {"6", 4, Pass}, {"6", 4, Pass}, {"6", 4, Pass}}
	sortRows := func(a, b row) int {
		if a.Round != b.Round {
			return a.Round - b.Round
		}
		if a.Revert < b.Revert {
			return -1
		}
		if a.Revert > b.Revert {
			return 1
		}
		return 0
	}
	slices.SortFunc(got, sortRows)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ledger (-want +got):\n%s", diff)
	}

	// Two lanes ask for the same new variant; whichever waits is as deep
	// as the execution it waited for.
	ctx2, led2 := WithLedger(context.Background())
	ctxs, join := Fork(ctx2, 2)
	var wg sync.WaitGroup
	for _, c := range ctxs {
		wg.Go(func() {
			if _, err := r.Run(c, []diffhunks.ID{8}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	for i, c := range ctxs {
		if d := laneOf(c).at(); d != 1 {
			t.Errorf("lane %d at depth %d, want 1", i, d)
		}
	}
	join()
	if n := len(led2.Entries()); n != 1 || led2.Rounds() != 1 {
		t.Errorf("%d entries, %d rounds; want one execution in one round", n, led2.Rounds())
	}
}
