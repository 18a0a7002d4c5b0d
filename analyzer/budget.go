package analyzer

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/culprit-dev/culprit/analyzer/trial"
	"github.com/culprit-dev/culprit/diffhunks"
)

// Defaults of the budgets (Options.Budget, Options.SemanticBudget).
const (
	DefaultBudget         = 20 * time.Minute
	DefaultSemanticBudget = 3 * time.Minute
)

// errBudget reports that the analysis used up its trials or its time. It
// never leaves Explain: the answer found so far is reported instead.
var errBudget = errors.New("the analysis budget is used up")

// Phase names a stage of the analysis, for progress reports.
type Phase string

const (
	PhaseHunks     Phase = "hunks"     // splitting the change into hunks
	PhaseClassify  Phase = "classify"  // running base and head
	PhaseSemantic  Phase = "semantic"  // tracing and deriving causes
	PhaseSearch    Phase = "search"    // the revert search
	PhaseMinimise  Phase = "minimise"  // dropping hunks the proof does not need
	PhaseContrast  Phase = "contrast"  // tracing the passing run and comparing it with the failing run
	PhaseIntervene Phase = "intervene" // tracing a flaky test and intervening on its runs
	PhaseDone      Phase = "done"
)

// Progress is one report of how far an analysis has got.
type Progress struct {
	Phase  Phase
	Trials int // test runs executed so far
	Builds int // compile-only checks executed so far
	// Pending are the test runs started or queued and not finished: a
	// batch of repeated runs counts whole from its start.
	Pending int
	// Traced are the runs of a test built with the tracing runtime that
	// the explanation of a flaky regression made so far; they are not
	// trials.
	Traced  int
	Elapsed time.Duration
}

// budget wraps the trial runner: it refuses runs past the trial budget,
// reports progress after every run, and remembers the smallest passing
// variant, which is the answer when the budget ends the search early.
type budget struct {
	*trial.Runner
	start     time.Time
	maxTrials int
	progress  func(Progress)

	mu      sync.Mutex
	phase   Phase
	pending int
	traced  int
	best    *trial.Result
}

func newBudget(r *trial.Runner, start time.Time, maxTrials int, progress func(Progress)) *budget {
	return &budget{Runner: r, start: start, maxTrials: maxTrials, progress: progress, phase: PhaseClassify}
}

// Run runs a variant unless the trial budget is spent.
func (b *budget) Run(ctx context.Context, revert []diffhunks.ID) (trial.Result, error) {
	if err := b.check(ctx); err != nil {
		return trial.Result{}, err
	}
	b.plan(1)
	r, err := b.Runner.Run(ctx, revert)
	b.mu.Lock()
	b.pending--
	if err == nil && r.Passed() {
		if b.best == nil || len(r.Reverted) < len(b.best.Reverted) {
			best := r
			b.best = &best
		}
	}
	b.mu.Unlock()
	b.report()
	return r, err
}

// Build compiles a variant unless the budget is spent.
func (b *budget) Build(ctx context.Context, revert []diffhunks.ID) (trial.Result, error) {
	if err := b.check(ctx); err != nil {
		return trial.Result{}, err
	}
	r, err := b.Runner.Build(ctx, revert)
	b.report()
	return r, err
}

// Repeat runs a variant n times (classification) and reports progress.
func (b *budget) Repeat(ctx context.Context, revert []diffhunks.ID, n int) ([]trial.Result, error) {
	if err := b.check(ctx); err != nil {
		return nil, err
	}
	if b.maxTrials > 0 {
		n = min(n, max(b.maxTrials-b.Runner.Counts().Trials, 1))
	}
	b.plan(n)
	out, err := b.Runner.Repeat(ctx, revert, n)
	b.plan(-n)
	return out, err
}

// plan counts n more runs as pending (fewer when negative) and reports.
func (b *budget) plan(n int) {
	b.mu.Lock()
	b.pending += n
	b.mu.Unlock()
	b.report()
}

func (b *budget) check(ctx context.Context) error {
	if b.maxTrials > 0 && b.Runner.Counts().Trials >= b.maxTrials {
		return errBudget
	}
	if ctx.Err() != nil && errors.Is(context.Cause(ctx), errBudget) {
		return errBudget
	}
	return nil
}

// tracedRun counts one more traced run of the explanation and reports.
func (b *budget) tracedRun() {
	b.mu.Lock()
	b.traced++
	b.mu.Unlock()
	b.report()
}

// enter starts a phase and reports it.
func (b *budget) enter(p Phase) {
	b.mu.Lock()
	b.phase = p
	b.mu.Unlock()
	b.report()
}

func (b *budget) report() {
	if b.progress == nil {
		return
	}
	st := b.Runner.Counts()
	b.mu.Lock()
	p, pending, traced := b.phase, b.pending, b.traced
	b.mu.Unlock()
	b.progress(Progress{Phase: p, Trials: st.Trials, Builds: st.Builds, Pending: pending, Traced: traced, Elapsed: time.Since(b.start)})
}

// smallestPassing returns the passing variant with the fewest reverted
// hunks seen so far, if any.
func (b *budget) smallestPassing() (trial.Result, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.best == nil {
		return trial.Result{}, false
	}
	return *b.best, true
}

// spent reports whether err means the budget ended the work: the trial
// budget, or the wall-time deadline of the analysis (and not the caller's
// own cancellation).
func spent(ctx context.Context, err error) bool {
	return errors.Is(err, errBudget) || ctx.Err() != nil && errors.Is(context.Cause(ctx), errBudget)
}
