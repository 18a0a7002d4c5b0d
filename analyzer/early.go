package analyzer

import (
	"context"
	"os"
	"time"

	"github.com/culprit-dev/culprit/analyzer/trace"
)

// earlyTrace is the failing run's trace, started while the classification
// runs base: tracing needs only head, and building the instrumented test
// is most of the semantic analysis's time. With a core to spare, the
// semantic analysis then finds its trace built, or nearly. The trace is
// thrown away when the analysis does not use it: not a regression, a
// subtest explained instead of the named test, the budget spent.
type earlyTrace struct {
	cfg    trace.Config
	cancel context.CancelFunc
	done   chan struct{}
	// Set by the tracing goroutine before done closes.
	tr   *trace.Trace
	err  error
	took time.Duration
	used bool // handed to the semantic analysis, or thrown away
}

// traceConfig is how the failing run of req is traced in modRoot, the
// module's directory in the head worktree, its trace file in dir.
func traceConfig(req Request, mod module, modRoot, dir string) trace.Config {
	return trace.Config{
		Dir:      modRoot,
		Pkg:      mod.pkg,
		Test:     req.Test.Name,
		Timeout:  req.Timeout,
		MaxBytes: req.TraceBytes,
		TraceDir: dir,
	}
}

// startTrace starts tracing the failing run in the background; nil when
// no directory can be made for it (the semantic analysis then traces).
func startTrace(ctx context.Context, req Request, mod module, modRoot string) *earlyTrace {
	dir, err := os.MkdirTemp("", "culprit-trace-")
	if err != nil {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	e := &earlyTrace{cfg: traceConfig(req, mod, modRoot, dir), cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(e.done)
		began := time.Now()
		e.tr, e.err = trace.Run(ctx, e.cfg)
		e.took = time.Since(began)
	}()
	return e
}

// take waits for the trace and hands it over, with how long tracing
// took; ok is false when there is none for cfg (another test, or it
// failed or was thrown away), and the caller traces itself. The
// directory named by cfg.TraceDir is the caller's once ok.
func (e *earlyTrace) take(ctx context.Context, cfg trace.Config) (tr *trace.Trace, took time.Duration, ok bool, err error) {
	if e == nil || e.used || e.cfg.Test != cfg.Test || e.cfg.Dir != cfg.Dir {
		return nil, 0, false, nil
	}
	select {
	case <-e.done:
	case <-ctx.Done():
		return nil, 0, false, context.Cause(ctx)
	}
	if e.err != nil {
		e.discard()
		return nil, 0, false, nil
	}
	e.cancel()
	e.used = true
	return e.tr, e.took, true, nil
}

// discard stops the tracing, if it still runs, and removes its files,
// unless the trace was handed over.
func (e *earlyTrace) discard() {
	if e == nil || e.used {
		return
	}
	e.used = true
	e.cancel()
	<-e.done
	os.RemoveAll(e.cfg.TraceDir)
}
