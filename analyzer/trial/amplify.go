package trial

import (
	"fmt"
	"strconv"
	"time"
)

// Amplification makes an intermittent failure show more often in each run
// of a test binary, the same way for every variant, so that failure rates
// measured under it still compare (base against head, a variant against
// head). The zero value is a plain run.
type Amplification struct {
	// Iterations runs the test that many times in one process
	// (-test.count, with -test.failfast so the first failure ends it):
	// one process start buys that many tries. 0 or 1 is one.
	Iterations int
	// GoMaxProcs, when positive, is the test's GOMAXPROCS: more threads
	// than the runner's cores let the scheduler preempt a goroutine
	// inside a short window that a loaded runner otherwise rarely splits.
	GoMaxProcs int
	// Perturb, when positive, runs the test built with the tracing
	// runtime, which pauses at about one in Perturb of the traced points
	// (function entries, assignments, branches, calls), with a seed drawn
	// for each run and kept in its Result (perturb.go). Only a runner
	// given an Instrumenter can.
	Perturb int
}

// String describes a for a log line.
func (a Amplification) String() string {
	s := "plain runs"
	if a.Iterations > 1 {
		s = strconv.Itoa(a.Iterations) + " iterations per process"
	}
	if a.GoMaxProcs > 0 {
		s += fmt.Sprintf(", GOMAXPROCS=%d", a.GoMaxProcs)
	}
	if a.Perturb > 0 {
		s += fmt.Sprintf(", schedule perturbed at 1 in %d traced points", a.Perturb)
	}
	return s
}

// PerProcess is how many times one process runs the test: Iterations, at
// least one.
func (a Amplification) PerProcess() int { return max(a.Iterations, 1) }

// flags are the test binary's flags of a, without the -test. prefix that
// the binary wants (prefix "-test.") and go test does not (prefix "-").
func (a Amplification) flags(prefix string) []string {
	if a.Iterations <= 1 {
		return []string{prefix + "count=1"}
	}
	return []string{prefix + "count=" + strconv.Itoa(a.Iterations), prefix + "failfast"}
}

// env is what a adds to a run's environment.
func (a Amplification) env() []string {
	if a.GoMaxProcs <= 0 {
		return nil
	}
	return []string{"GOMAXPROCS=" + strconv.Itoa(a.GoMaxProcs)}
}

// SetAmplification makes every later run of a test (trials and repeats,
// prebuilt binaries and go test runs) amplified by a. The time limit of a
// run grows with its iterations. Results cached before the call keep the
// amplification they ran with: callers that compare rates use Repeat,
// which never reads the cache.
func (r *Runner) SetAmplification(a Amplification) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.amp = a
}

func (r *Runner) amplification() Amplification {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.amp
}

// scaled is a run's time limit d for the iterations of a, and for the
// tracing runtime's cost when a perturbs.
func (a Amplification) scaled(d time.Duration) time.Duration {
	d *= time.Duration(a.PerProcess())
	if a.Perturb > 0 {
		d *= perturbSlowdown
	}
	return d
}
