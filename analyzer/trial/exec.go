package trial

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"syscall"
	"time"
)

// run is what one child process did.
type run struct {
	stdout, stderr []byte
	exitCode       int  // -1 when killed by a signal
	timedOut       bool // killed by us at the trial's timeout
	duration       time.Duration
}

// execute runs name in its own process group and kills the whole group when
// the timeout passes or ctx is cancelled, and again once the command has
// exited, so that no grandchild (a test's helper process, a server) survives
// the trial. Only a failure to start, or ctx's cancellation, is an error;
// the command's own failure is in the result.
func execute(ctx context.Context, timeout time.Duration, dir string, env []string, name string, args ...string) (run, error) {
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(tctx, name, args...)
	cmd.Dir = dir
	// os.Getwd in the child trusts $PWD when it names the directory.
	cmd.Env = append(env[:len(env):len(env)], "PWD="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return killGroup(cmd) }
	// A grandchild that keeps stdout open must not hold the trial hostage
	// after the command itself has exited.
	cmd.WaitDelay = 2 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	if cmd.Process != nil {
		_ = killGroup(cmd) // best effort: leftovers only; the group is usually gone
	}
	r := run{stdout: stdout.Bytes(), stderr: stderr.Bytes(), duration: time.Since(start)}
	if ctx.Err() != nil {
		return r, ctx.Err()
	}
	r.timedOut = errors.Is(tctx.Err(), context.DeadlineExceeded)
	var exit *exec.ExitError
	switch {
	case err == nil, errors.Is(err, exec.ErrWaitDelay):
	case errors.As(err, &exit):
		r.exitCode = exit.ExitCode()
	case r.timedOut:
		r.exitCode = -1
	default:
		return r, fmt.Errorf("running %s: %w", name, err)
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
