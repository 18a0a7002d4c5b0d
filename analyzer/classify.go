package analyzer

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/culprit-dev/culprit/analyzer/note"
	"github.com/culprit-dev/culprit/analyzer/result"
	"github.com/culprit-dev/culprit/analyzer/trial"
	"github.com/culprit-dev/culprit/diffhunks"
)

// failing reports whether an outcome counts as the test failing. A hang is
// a failure: a test that times out never counts as passing.
func failing(o trial.Outcome) bool {
	return o == trial.Fail || o == trial.Timeout || o == trial.Crash
}

// repeater runs the same variant several times, bypassing the trial cache.
type repeater interface {
	Repeat(ctx context.Context, revert []diffhunks.ID, n int) ([]trial.Result, error)
}

// classification is the verdict of running base and head several times.
type classification struct {
	status result.Status // "" when the failure is a deterministic regression
	notes  result.Findings
	runs   []trial.Result
	head   trial.Result // the first failing head run
	// rates are the statistics of a flaky test (nil unless head's
	// outcomes were mixed).
	rates *Flakiness
	// amplified is how head's runs were amplified once some passed, nil
	// when none did.
	amplified *Amplification
	// until ends the time the classification of a head that passed some
	// runs may take (classifyShare of the time left when it began), and
	// length is that time; charged is the run time spent in it, divided
	// by the runs going at once. Zero without a deadline.
	until           time.Time
	length, charged time.Duration
}

// window starts the time the classification may take from here on.
func (c *classification) window(ctx context.Context) {
	if dl, ok := ctx.Deadline(); ok {
		c.length = max(time.Duration(classifyShare*float64(time.Until(dl))), 0)
		c.until = time.Now().Add(c.length)
	}
}

// addAmplified adds the notes of the amplification, if any.
func (c *classification) addAmplified() {
	if c.amplified == nil {
		return
	}
	for _, n := range c.amplified.notes() {
		c.notes.Add(n)
	}
}

// left is what remains of the window: by the clock, and by the run time
// charged to it, whichever is less.
func (c *classification) left() time.Duration {
	return min(time.Until(c.until), c.length-c.charged)
}

// plan is how many runs of duration d, batch at a time, fit in what is
// left of the window, with a tenth kept spare; -1 without a window or a
// duration.
func (c *classification) plan(batch int, d time.Duration) int {
	if c.until.IsZero() || d <= 0 {
		return -1
	}
	return runsIn(c.left(), batch, d)
}

// over reports whether the window has closed: runs slower than planned
// (a loaded runner) stop there.
func (c *classification) over() bool {
	return !c.until.IsZero() && c.left() <= 0
}

// repeat runs revert n times, batch at a time (atOnce), keeps the runs
// and charges their time to the window.
func (c *classification) repeat(ctx context.Context, r repeater, revert []diffhunks.ID, n, batch int) ([]trial.Result, error) {
	runs, err := r.Repeat(ctx, revert, n)
	c.runs = append(c.runs, runs...)
	for _, run := range runs {
		c.charged += run.Duration / time.Duration(max(batch, 1))
	}
	return runs, err
}

// sharer is the optional ability of a repeater to run several of a
// variant's runs in one worker's place (*trial.Runner has it: PerWorker).
type sharer interface {
	PerWorker() int
}

// atOnce is how many runs of one variant r makes at once with workers
// workers under its current amplification: a batch of repeats.
func atOnce(r repeater, workers int) int {
	n := max(workers, 1)
	if s, ok := r.(sharer); ok {
		n *= max(s.PerWorker(), 1)
	}
	return n
}

// cost is the time of a worker that run took: its wall time, shared with
// the runs that ran in the same worker's place.
func cost(run trial.Result) time.Duration {
	return run.Duration / time.Duration(max(run.PerWorker, 1))
}

// classify runs head and base req.Reruns times each and decides whether the
// failure is a deterministic regression worth explaining. When head's
// outcomes are mixed it goes on measuring both (flaky), workers runs at a
// time, to tell a flaky regression from a test that is flaky anyway.
func classify(ctx context.Context, r repeater, all []diffhunks.ID, reruns, workers int) (*classification, error) {
	c := &classification{}
	headRuns, err := r.Repeat(ctx, nil, reruns)
	if err != nil {
		return nil, fmt.Errorf("running the test on head: %w", err)
	}
	c.runs = append(c.runs, headRuns...)
	hf, hp := count(headRuns)
	c.head = firstFailing(headRuns)
	switch {
	case headRuns[0].Outcome == trial.BuildError:
		return c, c.buildFails(ctx, r, all, headRuns[0])
	case headRuns[0].Outcome == trial.NoTests:
		return nil, fmt.Errorf("%w on head", ErrNoSuchTest)
	case hf == 0:
		c.window(ctx)
		// The failure that brought us here did not show: head is
		// amplified and gets more runs before it is called passing, as
		// a rare flake would fail in some of them (FLAKY.md §5).
		if headRuns, err = c.amplify(ctx, r, headRuns, workers); err != nil {
			return nil, err
		}
		if headRuns, err = c.failAtAll(ctx, r, headRuns, workers); err != nil {
			return nil, err
		}
		if hf, hp = count(headRuns); hf == 0 {
			c.status = result.NotRegression
			c.notes.Add(result.Note{Code: note.PassesOnHead, N: hp})
			c.addAmplified()
			return c, nil
		}
		c.head = firstFailing(headRuns)
		c.addAmplified()
		return c, c.flaky(ctx, r, all, headRuns, workers)
	case hp > 0:
		c.window(ctx)
		if headRuns, err = c.amplify(ctx, r, headRuns, workers); err != nil {
			return nil, err
		}
		c.addAmplified()
		return c, c.flaky(ctx, r, all, headRuns, workers)
	}

	baseRuns, err := r.Repeat(ctx, all, reruns)
	if err != nil {
		return nil, fmt.Errorf("running the test on base: %w", err)
	}
	c.runs = append(c.runs, baseRuns...)
	bf, bp := count(baseRuns)
	switch {
	case baseRuns[0].Outcome == trial.NoTests:
		c.status = result.NotRegression
		c.notes.Add(result.Note{Code: note.NewTest})
	case baseRuns[0].Outcome == trial.BuildError:
		c.status = result.NotRegression
		c.notes.Add(result.Note{Code: note.BaseBuildFails, Detail: firstLine(baseRuns[0].Message)})
	case bp == 0 && allTimedOut(headRuns) && allTimedOut(baseRuns):
		c.status = result.NotRegression
		c.notes.Add(result.Note{Code: note.TimedOutOnBoth, N: len(headRuns) + len(baseRuns)})
	case bp == 0:
		c.status = result.NotRegression
		c.notes.Add(result.Note{Code: note.FailsOnBase, N: bf, M: bf})
	case bf > 0:
		c.status = result.Flaky
		c.notes.Add(result.Note{Code: note.FlakyOnBase, N: bf, M: bf + bp})
	}
	return c, nil
}

// buildFails decides a head that does not build: the change broke the
// build only when base builds. A base that does not build either (a
// go.mod without its go.sum, a toolchain too old for both) proves
// nothing about the change.
func (c *classification) buildFails(ctx context.Context, r repeater, all []diffhunks.ID, head trial.Result) error {
	baseRuns, err := r.Repeat(ctx, all, 1)
	if err != nil {
		return fmt.Errorf("building base: %w", err)
	}
	c.runs = append(c.runs, baseRuns...)
	if baseRuns[0].Outcome == trial.BuildError {
		c.status = result.NotRegression
		c.notes.Add(result.Note{Code: note.BaseBuildFails, Detail: firstLine(baseRuns[0].Message)})
		return nil
	}
	c.status = result.HeadBuildFails
	c.notes.Add(result.Note{Code: note.HeadBuildFails, Detail: firstLine(head.Message)})
	return nil
}

// How many runs head gets in all to fail once when its first runs all
// passed: maxPassingRuns without a deadline; with one, as many as the
// classification's share of the time left allows, up to rareRuns, which
// see a failure of one run in a hundred with 95 % probability.
const (
	maxPassingRuns = 30
	rareRuns       = 300
)

// failAtAll runs head, workers at a time, until a run fails or the runs
// above are spent; it returns every head run so far. The run that brought
// the user here failed: a failure that shows once in fifty runs is worth
// the time before head is called passing.
func (c *classification) failAtAll(ctx context.Context, r repeater, head []trial.Result, workers int) ([]trial.Result, error) {
	batch := atOnce(r, workers)
	limit := maxPassingRuns
	// Half of what is left, so that a failure found late leaves time to
	// measure head's rate and base's.
	if plan := c.plan(batch, median(head)); plan >= 0 {
		limit = min(rareRuns, max(plan/2, len(head)))
	}
	head, _, err := c.headUntil(ctx, r, head, limit, batch, func(run trial.Result) bool { return failing(run.Outcome) })
	return head, err
}

// headUntil runs head, batch at a time, until a batch holds a run that
// shows what is sought, limit runs are made, or the window closes; it
// returns every head run so far and whether one showed.
func (c *classification) headUntil(ctx context.Context, r repeater, head []trial.Result, limit, batch int, shows func(trial.Result) bool) ([]trial.Result, bool, error) {
	for len(head) < limit && !c.over() {
		more, err := c.repeat(ctx, r, nil, min(batch, limit-len(head)), batch)
		head = append(head, more...)
		if err != nil {
			return nil, false, fmt.Errorf("running the test on head: %w", err)
		}
		if slices.ContainsFunc(more, shows) {
			return head, true, nil
		}
	}
	return head, false, nil
}

// recheck runs head again, after a variant passed once and then failed
// its proof, with the suspect hunks: head failed its first runs, but may
// fail only often. Head gets the runs a passing head gets to fail
// (failAtAll's), here to pass; once one passes, the failure is measured as
// a flaky one (flaky), and c's status, rates and notes are those. It
// reports whether head passed a run.
func (c *classification) recheck(ctx context.Context, r repeater, all, suspect []diffhunks.ID, workers int) (bool, error) {
	c.window(ctx)
	c.notes = nil
	head := headRuns(c.runs)
	batch := atOnce(r, workers)
	limit := len(head) + maxPassingRuns
	if plan := c.plan(batch, median(head)); plan >= 0 {
		limit = min(limit, len(head)+plan/2)
	}
	head, passed, err := c.headUntil(ctx, r, head, limit, batch, func(run trial.Result) bool { return run.Outcome == trial.Pass })
	if err != nil || !passed {
		return false, err
	}
	_, p := count(head)
	c.notes.Add(result.Note{Code: note.FlakyRemeasured, Hunks: suspect, N: p, M: len(head)})
	return true, c.flaky(ctx, r, all, head, workers)
}

// allTimedOut reports whether every run hung until its time limit.
func allTimedOut(runs []trial.Result) bool {
	for _, r := range runs {
		if r.Outcome != trial.Timeout {
			return false
		}
	}
	return len(runs) > 0
}

func count(runs []trial.Result) (failed, passed int) {
	for _, r := range runs {
		switch {
		case failing(r.Outcome):
			failed++
		case r.Outcome == trial.Pass:
			passed++
		}
	}
	return failed, passed
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
