package main

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/culprit-dev/culprit/analyzer"
)

// progressInterval is the longest the printer stays silent: a trial may
// run for minutes with no event from the engine, and a quiet terminal
// looks hung.
const progressInterval = 5 * time.Second

// progressConfig is what the printer says the remaining budget against,
// and its clock (tests drive a fake one).
type progressConfig struct {
	budget    time.Duration
	maxTrials int // 0: no bound
	now       func() time.Time
	after     func(time.Duration) <-chan time.Time
}

// progress prints the engine's progress on standard error: a line when
// the phase changes, and one at least every progressInterval whatever
// happens. The engine calls report, which only records the latest state
// and wakes the printer, so that it returns at once as the engine asks;
// the printer's goroutine does the writing and ends with stop.
type progress struct {
	w   io.Writer
	cfg progressConfig

	mu     sync.Mutex
	latest analyzer.Progress
	at     time.Time // when latest was reported
	seen   bool

	wake chan struct{} // capacity 1: a pending wake-up
	quit chan struct{}
	done chan struct{}
}

// startProgress starts the printer; stop ends it.
func startProgress(w io.Writer, cfg progressConfig) *progress {
	if cfg.now == nil {
		cfg.now = time.Now
	}
	if cfg.after == nil {
		cfg.after = time.After
	}
	p := &progress{w: w, cfg: cfg, wake: make(chan struct{}, 1), quit: make(chan struct{}), done: make(chan struct{})}
	go p.loop()
	return p
}

// report records the engine's latest progress.
func (p *progress) report(pr analyzer.Progress) {
	now := p.cfg.now()
	p.mu.Lock()
	p.latest, p.at, p.seen = pr, now, true
	p.mu.Unlock()
	select {
	case p.wake <- struct{}{}:
	default: // a wake-up is pending: it will read the latest state
	}
}

// stop prints the last phase if it has not been printed and waits for the
// printer's goroutine to end.
func (p *progress) stop() {
	close(p.quit)
	<-p.done
}

func (p *progress) loop() {
	defer close(p.done)
	var printed analyzer.Phase
	tick := p.cfg.after(progressInterval)
	print := func(pr analyzer.Progress) {
		p.print(pr)
		printed = pr.Phase
		tick = p.cfg.after(progressInterval)
	}
	for {
		select {
		case <-p.wake:
			if pr, ok := p.state(); ok && pr.Phase != printed {
				print(pr)
			}
		case <-tick:
			if pr, ok := p.state(); ok {
				print(pr)
			} else {
				tick = p.cfg.after(progressInterval)
			}
		case <-p.quit:
			if pr, ok := p.state(); ok && pr.Phase != printed {
				p.print(pr)
			}
			return
		}
	}
}

// state is the latest progress, its elapsed time brought up to now.
func (p *progress) state() (analyzer.Progress, bool) {
	now := p.cfg.now()
	p.mu.Lock()
	defer p.mu.Unlock()
	pr := p.latest
	pr.Elapsed += now.Sub(p.at)
	return pr, p.seen
}

// print writes one line: elapsed time, phase, trials done and planned
// (the runs under way or queued), builds, and the budget left. The
// elapsed time is the analysis's own, so that one printer serves the
// analyses of a benchmark one after another.
func (p *progress) print(pr analyzer.Progress) {
	elapsed := pr.Elapsed
	var b strings.Builder
	fmt.Fprintf(&b, "culprit: %6s  %-9s  trials %d done, %d planned", elapsed.Round(time.Second), pr.Phase, pr.Trials, pr.Pending)
	if p.cfg.maxTrials > 0 {
		fmt.Fprintf(&b, " (of %d at most)", p.cfg.maxTrials)
	}
	fmt.Fprintf(&b, ", %s", plural(pr.Builds, "build", "builds"))
	if pr.Traced > 0 {
		fmt.Fprintf(&b, ", %s", plural(pr.Traced, "traced run", "traced runs"))
	}
	if p.cfg.budget > 0 {
		fmt.Fprintf(&b, ", budget %s left", max(p.cfg.budget-elapsed, 0).Round(time.Second))
	}
	b.WriteByte('\n')
	io.WriteString(p.w, b.String())
}

// plural is n with the noun in the right number.
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
