package trial

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/culprit-dev/culprit/diffhunks"
)

// Rounds: trials that do not depend on each other's outcome (the variants
// of one partition step, a flaky variant's repeats) may run side by side;
// a trial whose request depends on an earlier outcome must wait for it.
// With enough runners an analysis takes as many trial durations as its
// longest chain of dependent trials: its rounds on the critical path.
//
// The chain is followed with lanes carried by the context. A lane counts
// the rounds behind it; a trial executed in a lane at depth d ran in round
// d+1 and leaves the lane at d+1. Fork gives each of n side-by-side calls
// its own lane starting at the parent's depth; join carries the deepest
// back. A cached answer costs no round, but a caller that waited for a
// concurrent execution of the same variant is as deep as that execution.
// Trials that share a lane without a fork are counted as they happen: one
// started before the other finished counts as side by side.

// Entry is one executed trial as the ledger records it: enough to replay
// an analysis's rounds with other runners (culprit bench --simulate).
type Entry struct {
	// Revert is the sorted set of reverted hunks.
	Revert []diffhunks.ID `json:"revert"`
	// Build is set for a compile-only check; Repeat for one of the runs
	// of Runner.Repeat, which always run in the runner's own worktrees.
	Build  bool `json:"build,omitempty"`
	Repeat bool `json:"repeat,omitempty"`
	// Round is the 1-based round on the critical path the trial ran in.
	Round   int     `json:"round"`
	Outcome Outcome `json:"outcome"`
	// Seconds is the trial's wall time, building included.
	Seconds float64 `json:"seconds"`
}

// Ledger records the trials executed under one root lane (WithLedger):
// each one's round and duration, and the rounds of the whole. It is safe
// for concurrent use.
type Ledger struct {
	root    *lane
	mu      sync.Mutex
	entries []Entry
}

// Rounds is the depth of the root lane: the rounds on the critical path of
// every trial recorded so far, once the forks are joined.
func (l *Ledger) Rounds() int {
	if l == nil {
		return 0
	}
	return l.root.at()
}

// Entries returns the executed trials in the order they finished.
func (l *Ledger) Entries() []Entry {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.entries)
}

func (l *Ledger) add(e Entry) {
	l.mu.Lock()
	l.entries = append(l.entries, e)
	l.mu.Unlock()
}

// lane is one chain of dependent trials.
type lane struct {
	ledger *Ledger
	mu     sync.Mutex
	depth  int
}

type laneKey struct{}

// WithLedger returns a context with a new root lane and its ledger. Trials
// run under the context (by any Runner) are recorded in the ledger.
func WithLedger(ctx context.Context) (context.Context, *Ledger) {
	l := &Ledger{}
	l.root = &lane{ledger: l}
	return context.WithValue(ctx, laneKey{}, l.root), l
}

// LedgerOf returns the ledger ctx's lanes record into, or nil.
func LedgerOf(ctx context.Context) *Ledger {
	if ln := laneOf(ctx); ln != nil {
		return ln.ledger
	}
	return nil
}

func laneOf(ctx context.Context) *lane {
	ln, _ := ctx.Value(laneKey{}).(*lane)
	return ln
}

// Fork returns n contexts for calls that run side by side, each with its
// own lane starting at ctx's depth, and join, which the caller calls once
// all of them returned, to carry the deepest lane back to ctx's. Without
// a ledger in ctx the contexts are ctx itself.
func Fork(ctx context.Context, n int) (ctxs []context.Context, join func()) {
	ctxs = make([]context.Context, n)
	parent := laneOf(ctx)
	if parent == nil {
		for i := range ctxs {
			ctxs[i] = ctx
		}
		return ctxs, func() {}
	}
	start := parent.at()
	lanes := make([]*lane, n)
	for i := range ctxs {
		lanes[i] = &lane{ledger: parent.ledger, depth: start}
		ctxs[i] = context.WithValue(ctx, laneKey{}, lanes[i])
	}
	return ctxs, func() {
		for _, ln := range lanes {
			parent.reach(ln.at())
		}
	}
}

func (ln *lane) at() int {
	if ln == nil {
		return 0
	}
	ln.mu.Lock()
	defer ln.mu.Unlock()
	return ln.depth
}

// reach deepens the lane to d if it is shallower.
func (ln *lane) reach(d int) {
	if ln == nil {
		return
	}
	ln.mu.Lock()
	ln.depth = max(ln.depth, d)
	ln.mu.Unlock()
}

// execute runs one trial in the lane that started at depth start (read
// when it was requested) and records it, unless it cost no runner (the
// type checker answered) or failed to run. It returns the round the trial
// leaves the lane at.
func (ln *lane) execute(start int, ids []diffhunks.ID, build bool, f func() (Result, error)) (Result, int, error) {
	t0 := time.Now()
	res, err := f()
	if ln == nil || err != nil || res.TypeChecked {
		return res, start, err
	}
	return res, ln.record(start, ids, build, res.Outcome, time.Since(t0)), nil
}

// record notes a trial that started at depth start in the lane, and
// returns the round it ran in.
func (ln *lane) record(start int, ids []diffhunks.ID, build bool, o Outcome, took time.Duration) int {
	return ln.add(start, Entry{Revert: append([]diffhunks.ID{}, ids...), Build: build, Outcome: o, Seconds: took.Seconds()})
}

// add records e as run in the round after depth start.
func (ln *lane) add(start int, e Entry) int {
	if ln == nil {
		return start
	}
	e.Round = start + 1
	ln.ledger.add(e)
	ln.reach(e.Round)
	return e.Round
}

// Executed runs f as one trial of the variant that reverts ids in ctx's
// lane, and records it in the ledger unless it failed or the type checker
// answered, as the Runner does with its own trials: for testers that run
// trials some other way.
func Executed(ctx context.Context, ids []diffhunks.ID, build bool, f func() (Result, error)) (Result, error) {
	ln := laneOf(ctx)
	res, _, err := ln.execute(ln.at(), ids, build, f)
	return res, err
}
