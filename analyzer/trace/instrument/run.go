package instrument

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/culprit-dev/culprit/analyzer/trace"
)

// Config configures one traced run.
type Config struct {
	Dir      string        // module root of a checkout of the code (contains go.mod)
	Pkg      string        // package pattern relative to Dir, e.g. "./calc"
	Test     string        // test name, "TestF" or "TestA/sub"
	Timeout  time.Duration // passed to go test -timeout; default 2 minutes
	MaxBytes int64         // trace size bound; default 256 MiB
	// KeepTail makes a run that fills the bound keep its latest events,
	// overwriting the earliest (trace.Trace.Wrapped), instead of stopping
	// the recording: the events nearest a late failure are the ones kept.
	KeepTail bool
	// From, when not 0, starts the recording at the From-th event of
	// the test function's frame (trace.Trace.Marks places failures by
	// such counts); what ran before enters as input.
	From uint64
	Env  []string // extra environment for go test ("K=V")
	// Passthrough names the variables beyond the allow-list that the
	// build and the test get (proc.Env).
	Passthrough []string
	// Packages, when not empty, limits instrumentation to these package
	// directories (relative to Dir, "." for the root); calls into other
	// packages of the module are observed, not traced.
	Packages []string
	// Probe, when set, instruments only the functions of non-test files
	// that the test enters in a probe run beforehand (probe.go), when the
	// source to instrument is large enough for that to pay or holds a
	// function too long to instrument unless it runs (large.go).
	Probe bool
	// Functions, when not nil, names the functions of non-test files to
	// instrument (qualified, as trace.Site.Func); the others are left as
	// they are. With Probe too, the functions the probe run enters are
	// instrumented as well: a trace made to compare with a probed one
	// takes the probed trace's functions, so that the code both runs enter
	// is laid out alike, and adds those only its own run enters.
	Functions map[string]bool
	// NarrowTests makes Functions name the functions of the test files
	// too: of those, only the ones Functions names and the ones go test
	// calls by name (the test itself) are instrumented, and the test's
	// helpers are left as they are.
	NarrowTests bool
	// TraceDir receives the trace and site table; default a new temp dir
	// (left in place; the caller may remove it).
	TraceDir string

	// runPattern, when set, is the -test.run pattern used instead of the
	// one derived from Test (internal: tracing several tests at once).
	runPattern string
}

const defaultMaxBytes = 256 << 20

// Run instruments cfg.Pkg and its in-module dependencies, runs cfg.Test once
// under tracing and decodes the trace. A failing test is not an error: see
// trace.Trace.Result. Errors are for failures to load, instrument or start. It is
// Build, one run into cfg.TraceDir, and Close.
func Run(ctx context.Context, cfg Config) (*trace.Trace, error) {
	b, err := Build(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer b.Close()
	if cfg.TraceDir == "" {
		if cfg.TraceDir, err = os.MkdirTemp("", "culprit-trace-"); err != nil {
			return nil, fmt.Errorf("tracing %s: %w", cfg.Test, err)
		}
	}
	return b.runIn(ctx, cfg.TraceDir, RunOptions{})
}
