package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// Exit codes, as the usage and docs/cli.md list them. An interrupted run
// exits 128 plus the signal's number, as a shell reports a process the
// signal killed.
const (
	exitError   = 1
	exitUsage   = 2
	exitVerdict = 3
)

// errUsage marks a command line that could not be used; the command has
// already said why.
var errUsage = errors.New("usage")

// interrupted is the error of a run stopped by a signal.
type interrupted struct{ sig os.Signal }

func (e *interrupted) Error() string { return "interrupted by " + e.sig.String() }

func (e *interrupted) code() int {
	if s, ok := e.sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 128 + int(syscall.SIGINT)
}

// stopped is the error of a run whose context was cancelled: the signal
// that cancelled it, or SIGINT's when something else did (a test).
func stopped(ctx context.Context) error {
	var in *interrupted
	if errors.As(context.Cause(ctx), &in) {
		return in
	}
	return &interrupted{sig: os.Interrupt}
}

// interruptible returns a context cancelled by the first SIGINT or
// SIGTERM, with the signal as its cause. After the first, the signals
// take their default action again: a second Ctrl-C stops culprit at once,
// without the cleanup the first one allows.
func interruptible(parent context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-ch:
			signal.Stop(ch)
			cancel(&interrupted{sig: sig})
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		close(done)
		cancel(nil)
	}
}

// verdictFails is the error of an analysis that ended with a verdict that
// --fail-on names: the report was written, and the exit code says so.
type verdictFails struct {
	failOn failOn
	why    string
}

func (e *verdictFails) Error() string {
	return fmt.Sprintf("--fail-on %s: %s", e.failOn, e.why)
}

// exitCode prints err, unless the command has already explained it, and
// returns the process's exit code.
func exitCode(err error, stderr io.Writer) int {
	var in *interrupted
	var vf *verdictFails
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errUsage):
		return exitUsage
	case errors.As(err, &vf):
		fmt.Fprintln(stderr, "culprit:", err)
		return exitVerdict
	case errors.As(err, &in):
		fmt.Fprintln(stderr, "culprit:", err)
		return in.code()
	}
	fmt.Fprintln(stderr, "culprit:", err)
	return exitError
}
