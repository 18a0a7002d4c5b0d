package proc

import (
	"context"
	"errors"
	"io"
	"strings"
	"time"
)

// GoInvocation is one run of the go command. Every go command culprit
// starts is one, so that the rules of its environment (GoEnv) live in one
// place instead of at each call.
type GoInvocation struct {
	Verb string // "test", "list", "build", "env"
	// BuildFlags are the verb's flags (build flags, and its own such as
	// -json or -run); they come before Args.
	BuildFlags []string
	Args       []string // packages, or go env's names
	// ModFlag, when set, is the -mod the build gets through GOFLAGS
	// unless GOFLAGS already has one (see GoEnv).
	ModFlag string
	// Env is added to the environment after Env(Passthrough).
	Env         []string
	Passthrough []string
	Dir         string
	// Timeout, when positive, kills the process group after that long.
	Timeout time.Duration
	// Stdout and Stderr, when set, receive the output instead of Result.
	Stdout, Stderr io.Writer
}

// String is the command line, for messages: "go test -json ./calc".
func (inv GoInvocation) String() string {
	return strings.Join(append([]string{"go"}, inv.args()...), " ")
}

func (inv GoInvocation) args() []string {
	return append(append([]string{inv.Verb}, inv.BuildFlags...), inv.Args...)
}

// Run runs the go command under the rules of Run.
func (inv GoInvocation) Run(ctx context.Context) (Result, error) {
	if inv.Verb == "" {
		// A go command without a verb prints its usage and exits 2, which
		// would read as a build failure.
		return Result{}, errors.New("running go: no verb")
	}
	return Run(ctx, Cmd{
		Name: "go", Args: inv.args(), Dir: inv.Dir, Env: GoEnv(inv.Passthrough, inv.Env, inv.ModFlag),
		Timeout: inv.Timeout, Stdout: inv.Stdout, Stderr: inv.Stderr,
	})
}
