// Package proc starts the child processes of culprit (git, go build, go
// test, traced test binaries) under one set of rules: each runs in its own
// process group, which is killed at its timeout, on cancellation and again
// once the command has exited; a grandchild holding the output open cannot
// keep the caller waiting; and the environment holds only the parent's
// variables that builds, tests and git need (see Env).
package proc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sync/atomic"
	"syscall"
	"time"
)

// Cmd is one process to run.
type Cmd struct {
	Name string
	Args []string
	Dir  string
	// Env is the complete environment; nil means Env(Passthrough).
	// PWD=Dir is added.
	Env []string
	// Passthrough names the variables beyond the allow-list that the
	// command gets when Env is nil (see Env).
	Passthrough []string
	// Timeout, when positive, kills the process group after that long.
	Timeout time.Duration
	// MaxMemory, when positive, kills the process group once the
	// resident memory of its processes other than the toolchain's (go,
	// compile, link, C compilers: a build may need more than its test)
	// passes that many bytes (on Linux; see TestMemory).
	MaxMemory int64
	// Stdout and Stderr, when set, receive the output instead of Result.
	Stdout, Stderr io.Writer
	// Stdin, when set, is the process's standard input.
	Stdin io.Reader
}

// Result is what one process did.
type Result struct {
	Stdout, Stderr []byte // empty when Cmd gave its own writers
	ExitCode       int    // -1 when killed at the timeout
	TimedOut       bool
	// OverMemory is set when the group was killed for passing MaxMemory,
	// the bound it was held to (0 for none).
	OverMemory bool
	MaxMemory  int64
	Duration   time.Duration
	// CPU is the processor time (user and system) the command and the
	// children it waited for used; PeakRSS is the largest resident set
	// among them, in bytes. Both are 0 when the command did not start.
	CPU     time.Duration
	PeakRSS int64
}

// OverMemoryMessage says why a run with OverMemory set was stopped.
func (r Result) OverMemoryMessage() string {
	return fmt.Sprintf("the test's processes used more than %d MiB of memory and were stopped", r.MaxMemory>>20)
}

// waitDelay bounds how long Run waits for output after the command exited.
const waitDelay = 2 * time.Second

// Run runs c. Only a failure to start, or ctx's cancellation, is an error;
// the command's own failure (non-zero exit, timeout) is in the result.
func Run(ctx context.Context, c Cmd) (Result, error) {
	tctx, cancel := ctx, context.CancelFunc(func() {})
	if c.Timeout > 0 {
		tctx, cancel = context.WithTimeout(ctx, c.Timeout)
	}
	defer cancel()
	cmd := exec.CommandContext(tctx, c.Name, c.Args...)
	cmd.Dir = c.Dir
	env := c.Env
	if env == nil {
		env = Env(c.Passthrough)
	}
	if c.Dir != "" {
		// os.Getwd in the child trusts $PWD when it names the directory.
		env = append(env[:len(env):len(env)], "PWD="+c.Dir)
	}
	cmd.Env = env
	cmd.Stdin = c.Stdin
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return killGroup(cmd) }
	cmd.WaitDelay = waitDelay
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if c.Stdout != nil {
		cmd.Stdout = c.Stdout
	}
	if c.Stderr != nil {
		cmd.Stderr = c.Stderr
	}
	start := time.Now()
	err := cmd.Start()
	var over atomic.Bool
	if err == nil {
		if c.MaxMemory > 0 {
			done := make(chan struct{})
			watchMemory(cmd.Process.Pid, c.MaxMemory, func() { _ = killGroup(cmd) }, &over, done)
			defer close(done)
		}
		err = cmd.Wait()
	}
	if cmd.Process != nil {
		_ = killGroup(cmd) // leftovers only; the group is usually gone
	}
	r := Result{Stdout: stdout.Bytes(), Stderr: stderr.Bytes(), Duration: time.Since(start), OverMemory: over.Load(), MaxMemory: c.MaxMemory}
	if ps := cmd.ProcessState; ps != nil {
		r.CPU = ps.UserTime() + ps.SystemTime()
		if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
			r.PeakRSS = int64(ru.Maxrss) << 10 // Linux counts it in KiB
		}
	}
	if ctx.Err() != nil {
		return r, ctx.Err()
	}
	r.TimedOut = c.Timeout > 0 && errors.Is(tctx.Err(), context.DeadlineExceeded)
	var exit *exec.ExitError
	switch {
	case err == nil, errors.Is(err, exec.ErrWaitDelay):
	case r.OverMemory:
		r.ExitCode = -1
	case errors.As(err, &exit):
		r.ExitCode = exit.ExitCode()
	case r.TimedOut:
		r.ExitCode = -1
	default:
		return r, fmt.Errorf("running %s: %w", c.Name, err)
	}
	return r, nil
}

func killGroup(cmd *exec.Cmd) error {
	err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}
