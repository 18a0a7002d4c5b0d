package search

import (
	"context"
	"fmt"
	"sync"

	"github.com/culprit-dev/culprit/analyzer/stats"
	"github.com/culprit-dev/culprit/analyzer/trial"
	"github.com/culprit-dev/culprit/diffhunks"
)

// Repeater runs one variant several times, bypassing any cache, and
// compiles variants; *trial.Runner implements it.
type Repeater interface {
	Repeat(ctx context.Context, revert []diffhunks.ID, n int) ([]trial.Result, error)
	Builder
}

var _ Repeater = (*trial.Runner)(nil)

// NoisyTester is the Tester of a flaky regression (FLAKY.md §5). Its Run
// answers with an SPRT verdict on the variant's failure rate, head's
// (H1: rate = head's lower bound) against base's (H0: about zero), from
// repeated runs, so that the strategies search a noisy test unchanged:
//
//   - The first Run of a variant repeats it Batch runs at a time until the
//     SPRT decides or MaxRuns is reached. It returns a passing run when the
//     verdict is "passes", else a failing one; an undecided variant counts
//     as not passing (only passes decide, as in AFTER). A variant that does
//     not build, or lacks the test, is answered by its first run.
//   - The second Run of a variant that passed is its proof, asked again on
//     purpose by the strategies: a fresh batch of ProofRuns runs, which
//     must all pass. Later Runs return the last answer.
//
// It is safe for concurrent use.
type NoisyTester struct {
	r    Repeater
	sprt stats.SPRT
	// Batch runs go at once (Workers); MaxRuns bound one variant's
	// judgement; ProofRuns is the size of a proof.
	Batch, MaxRuns, ProofRuns int

	mu     sync.Mutex
	judged map[string]*judgement
	order  []*judgement
}

var _ Tester = (*NoisyTester)(nil)

// judgement is what the runs of one variant showed.
type judgement struct {
	done chan struct{}
	runs Judged
	res  trial.Result
	err  error
}

// Judged is one variant's repeated runs and their verdict.
type Judged struct {
	Reverted       []diffhunks.ID
	Runs, Failures int
	Verdict        stats.Decision
	// Outcome is set when the variant could not run the test (BuildError,
	// NoTests): one run answers it, and Verdict stays Undecided.
	Outcome trial.Outcome
	// ProofRuns and ProofFailures count the proof's fresh runs, when the
	// variant was proven.
	ProofRuns, ProofFailures int
}

// maxVariantRuns bounds one variant's runs unless the SPRT needs more
// passes to decide (a low head rate).
const maxVariantRuns = 40

// NewNoisyTester judges variants against head's lower rate bound headLower
// (> 0), batch runs at a time. A proof is as many passing runs in a row as
// make head's rate unlikely below 0.001.
func NewNoisyTester(r Repeater, headLower float64, batch int) *NoisyTester {
	s := stats.NewSPRT(headLower)
	return &NoisyTester{
		r: r, sprt: s,
		Batch:     max(batch, 1),
		MaxRuns:   max(maxVariantRuns, s.PassesNeeded()),
		ProofRuns: stats.RunsToRuleOut(headLower, 0.001),
		judged:    map[string]*judgement{},
	}
}

// Build compiles the variant through the Repeater: builds are not noisy.
func (t *NoisyTester) Build(ctx context.Context, revert []diffhunks.ID) (trial.Result, error) {
	return t.r.Build(ctx, revert)
}

// Run judges the variant, or proves it on a second request (see the type).
func (t *NoisyTester) Run(ctx context.Context, revert []diffhunks.ID) (trial.Result, error) {
	set := norm(revert)
	k := key(set)
	t.mu.Lock()
	j, ok := t.judged[k]
	if !ok {
		j = &judgement{done: make(chan struct{}), runs: Judged{Reverted: set}}
		t.judged[k] = j
		t.order = append(t.order, j)
		t.mu.Unlock()
		j.res, j.err = t.judge(ctx, j)
		if j.err != nil {
			t.mu.Lock()
			delete(t.judged, k)
			t.mu.Unlock()
		}
		close(j.done)
		return j.res, j.err
	}
	t.mu.Unlock()
	select {
	case <-j.done:
	case <-ctx.Done():
		return trial.Result{}, ctx.Err()
	}
	if j.err != nil {
		return trial.Result{}, j.err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if j.runs.Verdict != stats.Passes || j.runs.ProofRuns > 0 {
		res := j.res
		res.Cached = true
		return res, nil
	}
	return t.prove(ctx, j)
}

// judge runs the variant until the SPRT decides.
func (t *NoisyTester) judge(ctx context.Context, j *judgement) (trial.Result, error) {
	var pass, fail *trial.Result
	for j.runs.Runs < t.MaxRuns {
		runs, err := t.r.Repeat(ctx, j.runs.Reverted, min(t.Batch, t.MaxRuns-j.runs.Runs))
		if err != nil {
			return trial.Result{}, err
		}
		for i := range runs {
			switch o := runs[i].Outcome; {
			case o == trial.BuildError || o == trial.NoTests:
				// Not noisy: the variant cannot run the test.
				j.runs.Runs++
				j.runs.Outcome = o
				return runs[i], nil
			case o == trial.Pass:
				pass = &runs[i]
			default:
				fail = &runs[i]
				j.runs.Failures++
			}
			j.runs.Runs++
		}
		// j.runs is read by others only once j.done is closed.
		j.runs.Verdict = t.sprt.Decide(j.runs.Failures, j.runs.Runs)
		switch j.runs.Verdict {
		case stats.Passes:
			return *pass, nil
		case stats.Fails:
			return *fail, nil
		}
	}
	if fail != nil {
		return *fail, nil
	}
	// Undecided without a failure: too few runs to call it passing.
	res := *pass
	res.Outcome = trial.Fail
	res.Message = fmt.Sprintf("undecided after %d passing runs", j.runs.Runs)
	return res, nil
}

// prove runs a fresh batch of the variant that passed; t.mu is held and
// released while it runs.
func (t *NoisyTester) prove(ctx context.Context, j *judgement) (trial.Result, error) {
	t.mu.Unlock()
	runs, err := t.r.Repeat(ctx, j.runs.Reverted, t.ProofRuns)
	t.mu.Lock()
	if err != nil {
		return trial.Result{}, err
	}
	j.runs.ProofRuns = len(runs)
	res := runs[0]
	for _, r := range runs {
		if !r.Passed() {
			j.runs.ProofFailures++
			if res.Passed() {
				res = r
			}
		}
	}
	j.res = res
	return res, nil
}

// Judged returns the variants judged so far, in the order they were first
// asked for.
func (t *NoisyTester) Judged() []Judged {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]Judged, 0, len(t.order))
	for _, j := range t.order {
		select {
		case <-j.done:
			if j.err == nil {
				out = append(out, j.runs)
			}
		default:
		}
	}
	return out
}
