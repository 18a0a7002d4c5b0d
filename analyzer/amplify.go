package analyzer

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"github.com/culprit-dev/culprit/analyzer/note"
	"github.com/culprit-dev/culprit/analyzer/result"
	"github.com/culprit-dev/culprit/analyzer/trial"
)

// amplifier is the optional ability of a repeater to amplify its runs
// (*trial.Runner has it).
type amplifier interface {
	SetAmplification(trial.Amplification)
}

// Choosing an amplification.
const (
	// probeRuns is how many head runs measure one candidate.
	probeRuns = 6
	// processTarget is about how long one amplified process's tests run:
	// iterations are chosen so that the process start is a small share.
	processTarget = 2 * time.Second
	maxIterations = 50
)

// Amplification is how head's runs were made to fail more often before
// judging (FLAKY.md: a failure that shows rarely is made to show): every
// candidate measured, cheapest first, and the one every later run used.
type Amplification struct {
	Chosen trial.Amplification
	Tried  []AmplificationRuns
}

// AmplificationRuns is head measured under one candidate: its runs (one
// process each), how many failed, and the seconds they took.
type AmplificationRuns struct {
	Amplification trial.Amplification
	Runs          int
	Failures      int
	Seconds       float64
}

// amplify measures head under each candidate amplification after the
// plain runs it has, and keeps the one with the most failures per second
// of run time (the plain runs when none beats them; the strongest
// candidate when none failed at all, so that a rare failure still gets
// its best chance). Base, the revert search and the proof then run under
// the same amplification, so their rates compare with head's. It returns
// head's runs under the chosen amplification: only runs made alike enter
// one rate.
func (c *classification) amplify(ctx context.Context, r repeater, plain []trial.Result) ([]trial.Result, error) {
	amp, ok := r.(amplifier)
	if !ok {
		return plain, nil
	}
	k := iterationsFor(median(plain))
	candidates := []trial.Amplification{{Iterations: k}, {Iterations: k, GoMaxProcs: 4 * runtime.NumCPU()}}
	c.amplified = &Amplification{Tried: []AmplificationRuns{measured(trial.Amplification{}, plain)}}
	best, bestRuns := trial.Amplification{}, plain
	bestRate := perSecond(c.amplified.Tried[0])
	anyFailed := bestRate > 0
	for _, a := range candidates {
		amp.SetAmplification(a)
		runs, err := r.Repeat(ctx, nil, probeRuns)
		c.runs = append(c.runs, runs...)
		if err != nil {
			amp.SetAmplification(best)
			return nil, fmt.Errorf("running the test on head with %s: %w", a, err)
		}
		m := measured(a, runs)
		c.amplified.Tried = append(c.amplified.Tried, m)
		if rate := perSecond(m); rate > bestRate || !anyFailed && m.Failures == 0 {
			best, bestRuns, bestRate = a, runs, rate
		}
		anyFailed = anyFailed || m.Failures > 0
	}
	amp.SetAmplification(best)
	c.amplified.Chosen = best
	return bestRuns, nil
}

// note is the finding that says how the runs were amplified.
func (a *Amplification) note() result.Note {
	return result.Note{Code: note.Amplified, N: a.Chosen.PerProcess(), M: a.Chosen.GoMaxProcs}
}

// iterationsFor is how many iterations one process runs for a test whose
// plain process takes d: about processTarget of tests, at least 2.
func iterationsFor(d time.Duration) int {
	if d <= 0 {
		return 10
	}
	return min(max(int(processTarget/d), 2), maxIterations)
}

func measured(a trial.Amplification, runs []trial.Result) AmplificationRuns {
	m := AmplificationRuns{Amplification: a, Runs: len(runs)}
	m.Failures, _ = count(runs)
	for _, r := range runs {
		m.Seconds += r.Duration.Seconds()
	}
	return m
}

// perSecond is m's failures per second of run time.
func perSecond(m AmplificationRuns) float64 {
	if m.Seconds <= 0 {
		return 0
	}
	return float64(m.Failures) / m.Seconds
}
