package main

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/culprit-dev/culprit/analyzer"
)

// fakeClock drives the progress printer: the test moves time on and fires
// the printer's timer.
type fakeClock struct {
	mu    sync.Mutex
	now   time.Time
	fire  chan time.Time
	asked []time.Duration
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.asked = append(c.asked, d)
	return c.fire
}

// advance moves time on by d and fires the timer the printer waits on.
func (c *fakeClock) advance(t *testing.T, d time.Duration) {
	t.Helper()
	c.mu.Lock()
	c.now = c.now.Add(d)
	now := c.now
	c.mu.Unlock()
	select {
	case c.fire <- now:
	case <-time.After(5 * time.Second):
		t.Fatal("the printer waits on no timer")
	}
}

// lineWriter hands each line written to it to a channel.
type lineWriter chan string

func (w lineWriter) Write(p []byte) (int, error) {
	for _, l := range strings.SplitAfter(string(p), "\n") {
		if l != "" {
			w <- l
		}
	}
	return len(p), nil
}

// TestProgressPrinter checks the printer on a fake clock: a line at each
// phase, one at least every five seconds while nothing happens, counts
// that read right in the singular, the remaining budget, and no goroutine
// left after stop.
func TestProgressPrinter(t *testing.T) {
	clock := &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), fire: make(chan time.Time)}
	lines := make(lineWriter, 16)
	p := startProgress(lines, progressConfig{budget: 20 * time.Minute, maxTrials: 8, now: clock.Now, after: clock.After})
	next := func(t *testing.T, want ...string) {
		t.Helper()
		select {
		case l := <-lines:
			for _, w := range want {
				if !strings.Contains(l, w) {
					t.Errorf("line %q lacks %q", l, w)
				}
			}
			for _, bad := range []string{"1 trials", "1 builds", "ms", "µs"} {
				if strings.Contains(l, bad) {
					t.Errorf("line %q has %q", l, bad)
				}
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("no line, want one with %q", want)
		}
	}
	none := func(t *testing.T) {
		t.Helper()
		select {
		case l := <-lines:
			t.Errorf("unexpected line %q", l)
		case <-time.After(50 * time.Millisecond):
		}
	}

	// The engine's elapsed times, which the printer moves on with its
	// clock between reports.
	p.report(analyzer.Progress{Phase: analyzer.PhaseClassify, Builds: 1, Pending: 3, Elapsed: 300 * time.Millisecond})
	next(t, "     0s  classify", "0 done, 3 planned", "1 build,", "of 8", "budget 20m0s left")
	p.report(analyzer.Progress{Phase: analyzer.PhaseClassify, Trials: 1, Builds: 1, Pending: 2, Elapsed: 1469614040})
	none(t)
	clock.advance(t, 5*time.Second)
	next(t, "     6s  classify", "1 done, 2 planned", "budget 19m54s left")
	clock.advance(t, 5*time.Second) // nothing happened: the line comes anyway
	next(t, "    11s  classify", "1 done, 2 planned", "budget 19m49s left")
	p.report(analyzer.Progress{Phase: analyzer.PhaseSearch, Trials: 3, Builds: 1, Elapsed: 12 * time.Second})
	next(t, "    12s  search", "3 done")
	p.report(analyzer.Progress{Phase: analyzer.PhaseIntervene, Trials: 4, Builds: 2, Traced: 3, Elapsed: 13 * time.Second})
	next(t, "    13s  intervene", "4 done", "2 builds, 3 traced runs,")
	p.report(analyzer.Progress{Phase: analyzer.PhaseDone, Trials: 4, Builds: 2, Traced: 3, Elapsed: 13 * time.Second})
	p.stop() // the last phase is printed even when stop comes at once
	next(t, "done", "4 done", "2 builds")
	none(t)
	for _, d := range clock.asked {
		if d != 5*time.Second {
			t.Errorf("the printer waited %v, want 5s", d)
		}
	}
}

// timedWriter records when each line arrives.
type timedWriter struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	times []time.Time
}

func (w *timedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	for range bytes.Count(p, []byte("\n")) {
		w.times = append(w.times, time.Now())
	}
	return len(p), nil
}

// TestProgressWhileATrialRuns explains a test that hangs until its 6 s
// timeout, three runs of it two at a time: while they run, nothing
// happens in the engine, and a progress line must still come at least
// every five seconds.
func TestProgressWhileATrialRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for trials to time out")
	}
	sc, repo := materialize(t, "../../testdata/hang.txtar")
	var stdout bytes.Buffer
	stderr := &timedWriter{}
	start := time.Now()
	args := []string{"explain", "--repo", repo.Dir, "--base", repo.Base, "--head", repo.Head, "--run", sc.Test,
		"--timeout", "6s", "--reruns", "3", "--max-trials", "3", "--format", "json"}
	if err := run(context.Background(), args, &stdout, stderr); err != nil {
		t.Fatalf("explain: %v\n%s", err, stderr.buf.String())
	}
	stderr.mu.Lock()
	defer stderr.mu.Unlock()
	t.Logf("%v in all:\n%s", time.Since(start).Round(time.Second), stderr.buf.String())
	prev := start
	for i, at := range stderr.times {
		// Five seconds and some slack for a loaded machine.
		if gap := at.Sub(prev); gap > 6500*time.Millisecond {
			t.Errorf("line %d came %v after the one before it", i+1, gap.Round(time.Millisecond))
		}
		prev = at
	}
}
