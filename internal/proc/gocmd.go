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
	// MaxMemory bounds the group's resident memory (Cmd.MaxMemory).
	MaxMemory int64
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
		Timeout: inv.Timeout, MaxMemory: inv.MaxMemory, Stdout: inv.Stdout, Stderr: inv.Stderr,
	})
}

// GoFlags returns the GOFLAGS a child with environment env sees, split into
// flags.
func GoFlags(env []string) []string { return strings.Fields(lookup(env, "GOFLAGS")) }

// LinkFlags returns the -ldflags of a binary that is only run, never
// debugged: -s -w leave out the symbol table and the DWARF data, which
// neither a run nor a panic's traceback reads (tracebacks use the pclntab),
// and which cost about a sixth of building a small test binary. A -ldflags
// given on the command line replaces the one in GOFLAGS, so the linker
// flags of goflags are carried into it; extra are appended.
func LinkFlags(goflags []string, extra ...string) string {
	var ld string
	for _, f := range goflags {
		if v, ok := strings.CutPrefix(strings.TrimLeft(f, "-"), "ldflags="); ok {
			ld = v
		}
	}
	return "-ldflags=" + strings.Join(strings.Fields(strings.Join(append([]string{ld, "-s -w"}, extra...), " ")), " ")
}
