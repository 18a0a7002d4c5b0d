package proc

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"
)

// GitTimeout bounds one git command (a checkout of a large tree is slow).
const GitTimeout = 10 * time.Minute

// GitError is a git command that ran and exited non-zero (or was killed at
// GitTimeout).
type GitError struct {
	Args     []string
	ExitCode int // -1 when killed at the timeout
	Stderr   string
}

func (e *GitError) Error() string {
	if e.Stderr == "" {
		return fmt.Sprintf("git %s: exit %d", e.Args[0], e.ExitCode)
	}
	return fmt.Sprintf("git %s: exit %d: %s", e.Args[0], e.ExitCode, e.Stderr)
}

// Git runs git in dir under the rules of Run, with Env and no terminal
// prompt, and returns its standard output. A non-zero exit is a *GitError.
func Git(ctx context.Context, dir string, args ...string) ([]byte, error) {
	return GitInput(ctx, dir, nil, args...)
}

// GitInput is Git with stdin as git's standard input.
func GitInput(ctx context.Context, dir string, stdin io.Reader, args ...string) ([]byte, error) {
	return git(ctx, dir, nil, stdin, args)
}

// GitEnv is Git with env added to git's environment: a fixed identity and
// date, say, that make commit ids reproducible.
func GitEnv(ctx context.Context, dir string, env []string, args ...string) ([]byte, error) {
	return git(ctx, dir, env, nil, args)
}

func git(ctx context.Context, dir string, env []string, stdin io.Reader, args []string) ([]byte, error) {
	res, err := Run(ctx, Cmd{
		Name: "git", Args: args, Dir: dir, Timeout: GitTimeout, Stdin: stdin,
		Env: append(append(Env(nil), env...), "GIT_TERMINAL_PROMPT=0"),
	})
	if err != nil {
		return nil, fmt.Errorf("git %s: %w", args[0], err)
	}
	if res.ExitCode != 0 || res.TimedOut {
		return res.Stdout, &GitError{Args: args, ExitCode: res.ExitCode, Stderr: strings.TrimSpace(string(res.Stderr))}
	}
	return res.Stdout, nil
}
