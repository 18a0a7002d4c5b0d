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
	// probeFailures is how many failures of one candidate end its
	// measurement: enough to rank it by rate, not by luck.
	probeFailures = 3
	// maxProbeRuns bounds the processes measuring one candidate when
	// none fails often enough.
	maxProbeRuns = 24
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
	// NoneFailed says that no measured run failed, so the choice is the
	// candidate that tried the test most often per second.
	NoneFailed bool
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
// of run time (the plain runs when none beats them). The candidates are
// measured in rounds, workers processes each per round, until one has
// failed probeFailures times, each has run maxProbeRuns processes, or a
// third of the classification's time is spent: a failure seen once in thirty
// runs needs more than a handful of runs to show. When no run failed at
// all, the candidate with the most tries of the test per second is kept,
// so that a rare failure gets its best chance. Base, the revert search
// and the proof then run under the same amplification, so their rates
// compare with head's. It returns head's runs under the chosen
// amplification: only runs made alike enter one rate.
func (c *classification) amplify(ctx context.Context, r repeater, plain []trial.Result, workers int) ([]trial.Result, error) {
	amp, ok := r.(amplifier)
	if !ok {
		return plain, nil
	}
	k := iterationsFor(median(plain))
	cands := []trial.Amplification{{Iterations: k}, {Iterations: k, GoMaxProcs: 4 * runtime.NumCPU()}}
	runs := make([][]trial.Result, len(cands))
	probe := c.left() / 3
	batch := max(workers, 1)
	for done := false; !done; {
		for i, a := range cands {
			amp.SetAmplification(a)
			more, err := c.repeat(ctx, r, nil, min(batch, maxProbeRuns-len(runs[i])), batch)
			runs[i] = append(runs[i], more...)
			if err != nil {
				amp.SetAmplification(trial.Amplification{})
				return nil, fmt.Errorf("running the test on head with %s: %w", a, err)
			}
		}
		done = !c.until.IsZero() && c.length-c.left() >= probe || len(runs[0]) >= maxProbeRuns
		for _, rs := range runs {
			if f, _ := count(rs); f >= probeFailures {
				done = true
			}
		}
	}
	c.amplified = &Amplification{Tried: []AmplificationRuns{measured(trial.Amplification{}, plain)}}
	for i, a := range cands {
		c.amplified.Tried = append(c.amplified.Tried, measured(a, runs[i]))
	}
	best := c.amplified.choose()
	chosen, chosenRuns := trial.Amplification{}, plain
	if best > 0 {
		chosen, chosenRuns = cands[best-1], runs[best-1]
	}
	amp.SetAmplification(chosen)
	c.amplified.Chosen = chosen
	return chosenRuns, nil
}

// choose is the index in a.Tried of the way to run the test: the most
// failures per second, the first (cheapest) on a tie; when nothing failed,
// the most tries per second among the candidates, and NoneFailed is set.
func (a *Amplification) choose() int {
	best, bestRate := 0, perSecond(a.Tried[0])
	for i, t := range a.Tried[1:] {
		if rate := perSecond(t); rate > bestRate {
			best, bestRate = i+1, rate
		}
	}
	if bestRate > 0 {
		return best
	}
	a.NoneFailed = true
	best, bestTries := 0, triesPerSecond(a.Tried[0])
	for i, t := range a.Tried[1:] {
		if tries := triesPerSecond(t); tries > bestTries {
			best, bestTries = i+1, tries
		}
	}
	return best
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

// triesPerSecond is how many times m's runs could run the test per second
// of run time (each process runs it up to its iterations).
func triesPerSecond(m AmplificationRuns) float64 {
	if m.Seconds <= 0 {
		return 0
	}
	return float64(m.Runs*m.Amplification.PerProcess()) / m.Seconds
}

// perSecond is m's failures per second of run time.
func perSecond(m AmplificationRuns) float64 {
	if m.Seconds <= 0 {
		return 0
	}
	return float64(m.Failures) / m.Seconds
}
