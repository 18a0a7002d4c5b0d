// Package proc starts the child processes of culprit (git, go build, go
// test, traced test binaries) under one set of rules: each runs in its own
// process group, which is killed at its timeout, on cancellation and again
// once the command has exited; a grandchild holding the output open cannot
// keep the caller waiting; and the environment is the parent's without its
// secrets (see Env).
package proc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Cmd is one process to run.
type Cmd struct {
	Name string
	Args []string
	Dir  string
	// Env is the complete environment; nil means Env(). PWD=Dir is added.
	Env []string
	// Timeout, when positive, kills the process group after that long.
	Timeout time.Duration
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
	Duration       time.Duration
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
		env = Env()
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
	err := cmd.Run()
	if cmd.Process != nil {
		_ = killGroup(cmd) // leftovers only; the group is usually gone
	}
	r := Result{Stdout: stdout.Bytes(), Stderr: stderr.Bytes(), Duration: time.Since(start)}
	if ctx.Err() != nil {
		return r, ctx.Err()
	}
	r.TimedOut = c.Timeout > 0 && errors.Is(tctx.Err(), context.DeadlineExceeded)
	var exit *exec.ExitError
	switch {
	case err == nil, errors.Is(err, exec.ErrWaitDelay):
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

var (
	passMu      sync.Mutex
	passthrough = map[string]bool{}
)

// SetPassthrough names variables that Env keeps even though they look like
// secrets (the Action's env-passthrough input). It replaces the earlier list.
func SetPassthrough(names []string) {
	m := map[string]bool{}
	for _, n := range names {
		if n = strings.TrimSpace(n); n != "" {
			m[n] = true
		}
	}
	passMu.Lock()
	passthrough = m
	passMu.Unlock()
}

// ParsePassthrough splits a list of variable names separated by commas,
// spaces or newlines.
func ParsePassthrough(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\r' || r == '\t' })
}

// Env returns the parent's environment without its secrets, with
// GOTOOLCHAIN=local (a test run must not download a toolchain chosen by the
// code under test). It is the environment of every process culprit starts
// on a pull request's code.
func Env() []string {
	passMu.Lock()
	defer passMu.Unlock()
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if name == "GOTOOLCHAIN" || (Secret(name) && !passthrough[name]) {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "GOTOOLCHAIN=local")
}

// exact are secrets, or handles that lead to them or let a child speak to
// later workflow steps, that no name pattern below catches.
var exact = map[string]bool{
	"ACTIONS_ID_TOKEN_REQUEST_URL": true,
	"ACTIONS_CACHE_URL":            true,
	"ACTIONS_RUNTIME_URL":          true,
	"ACTIONS_RESULTS_URL":          true,
	"GITHUB_ENV":                   true, // files a step writes to set
	"GITHUB_OUTPUT":                true, // the environment, outputs and
	"GITHUB_PATH":                  true, // PATH of later steps
	"GITHUB_STATE":                 true,
	"GITHUB_STEP_SUMMARY":          true,
	"SSH_AUTH_SOCK":                true,
}

// Secret reports whether an environment variable of this name is withheld
// from child processes: GitHub and Actions tokens, the Action's inputs
// (INPUT_*, among them the token), culprit's own settings (CULPRIT_*, the
// bot's keys and webhook secret), and anything named like a credential.
func Secret(name string) bool {
	n := strings.ToUpper(name)
	if exact[n] {
		return true
	}
	for _, p := range []string{"INPUT_", "CULPRIT_", "ACTIONS_RUNTIME_", "ACTIONS_ID_TOKEN_"} {
		if strings.HasPrefix(n, p) {
			return true
		}
	}
	for _, s := range []string{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "_KEY", "CREDENTIALS"} {
		if strings.HasSuffix(n, s) {
			return true
		}
	}
	return false
}
