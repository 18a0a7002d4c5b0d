package trial

import (
	"cmp"
	"context"
	"time"

	"github.com/culprit-dev/culprit/internal/proc"
)

// run is what one child process did.
type run struct {
	stdout, stderr []byte
	exitCode       int    // -1 when killed by a signal
	timedOut       bool   // killed by us at the trial's timeout
	overMemory     string // why it was killed by us past its memory bound, "" if it was not
	duration       time.Duration
	cpu            time.Duration // processor time, children included
	peakRSS        int64         // bytes, the largest process's
}

// execute runs name under proc's rules (own process group, killed at the
// timeout, on cancellation and after exit). Only a failure to start, or
// ctx's cancellation, is an error; the command's own failure is in the
// result.
func execute(ctx context.Context, timeout time.Duration, dir string, env []string, name string, args ...string) (run, error) {
	res, err := proc.Run(ctx, proc.Cmd{Name: name, Args: args, Dir: dir, Env: env, Timeout: timeout})
	return fromResult(res), err
}

// executeTest is execute for a run of the test, whose memory is bounded
// too (Config.MaxMemory): a reverted variant may allocate without end.
func (r *Runner) executeTest(ctx context.Context, timeout time.Duration, dir string, env []string, name string, args ...string) (run, error) {
	res, err := proc.Run(ctx, proc.Cmd{Name: name, Args: args, Dir: dir, Env: env, Timeout: timeout, MaxMemory: r.MaxMemory()})
	return fromResult(res), err
}

// MaxMemory is the bound of a test run's resident memory, in bytes.
func (r *Runner) MaxMemory() int64 {
	return cmp.Or(r.cfg.MaxMemory, proc.TestMemory())
}

// goCommand runs the go command in dir, at the trial's timeout, with the
// runner's environment and passthrough (proc.GoEnv), and -mod=mod when
// the variant reverts go.mod or go.sum (modFlag).
func (r *Runner) goCommand(ctx context.Context, dir string, modFiles bool, verb string, args ...string) (run, error) {
	return r.goTestCommand(ctx, dir, modFiles, Amplification{}, verb, args...)
}

// goTestCommand is goCommand for a run of the test amplified by amp: its
// environment and a time limit that grows with amp's iterations.
func (r *Runner) goTestCommand(ctx context.Context, dir string, modFiles bool, amp Amplification, verb string, args ...string) (run, error) {
	inv := proc.GoInvocation{
		Verb: verb, Args: args, ModFlag: modFlag(modFiles),
		Env: append(r.cfg.Env[:len(r.cfg.Env):len(r.cfg.Env)], amp.env()...), Passthrough: r.cfg.Passthrough, Dir: dir,
		Timeout: amp.scaled(r.cfg.Timeout),
	}
	if verb == "test" {
		inv.Timeout += hangMargin(inv.Timeout)
		inv.MaxMemory = r.MaxMemory()
	}
	res, err := inv.Run(ctx)
	return fromResult(res), err
}

// hangMargin is how long a test run may go on past its own time limit d
// (go test's -timeout, which a trial sets to d) before the runner kills it:
// long enough for a hung test to panic and print where every goroutine
// waits, which is the evidence of where it hung.
func hangMargin(d time.Duration) time.Duration {
	return d/20 + 2*time.Second
}

func fromResult(res proc.Result) run {
	out := run{stdout: res.Stdout, stderr: res.Stderr, exitCode: res.ExitCode, timedOut: res.TimedOut, duration: res.Duration, cpu: res.CPU, peakRSS: res.PeakRSS}
	if res.OverMemory {
		out.overMemory = res.OverMemoryMessage()
	}
	return out
}
