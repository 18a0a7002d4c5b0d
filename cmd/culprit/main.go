// Command culprit explains a failing regression test locally, with the same
// engine as the GitHub Action:
//
//	culprit explain [--repo DIR] --base REV --head REV --run TestName[/subtest]
//	culprit demo
//	culprit bench
//	culprit trace --skipped
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

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(exitCode(err, os.Stderr))
}

// errUsage marks a command line that could not be understood.
var errUsage = errors.New("usage")

const usage = `usage:
  culprit explain [--repo DIR] --base REV --head REV --run TestName[/subtest] [--pkg ./path]
                  [--strategy after|dynamic|ddmin|one-by-one] [--format markdown|json] [--out FILE]
  culprit demo    [--format markdown|json] [--strategy S]
  culprit bench   [--strategies after,dynamic,ddmin,one-by-one] [--scenarios DIR | --corpus DIR] [--only NAME]
  culprit trace   --skipped [--dir MODULE] [--pkg ./path] [-v]
`

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return errUsage
	}
	switch args[0] {
	case "explain":
		return explain(ctx, args[1:], stdout, stderr)
	case "demo":
		return demo(ctx, args[1:], stdout, stderr)
	case "bench":
		return bench(ctx, args[1:], stdout, stderr)
	case "trace":
		return traceCmd(ctx, args[1:], stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprintf(stderr, "culprit: unknown command %q\n%s", args[0], usage)
	return errUsage
}

func exitCode(err error, stderr io.Writer) int {
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errUsage):
		return 2
	}
	fmt.Fprintln(stderr, "culprit:", err)
	return 1
}
