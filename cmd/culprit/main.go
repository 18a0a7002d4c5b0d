// Command culprit explains a failing regression test locally, with the same
// engine as the GitHub Action:
//
//	culprit explain [--repo DIR] --base REV --head REV --run TestName[/subtest]
//	culprit demo
//	culprit bench
//	culprit trace --skipped
//	culprit trace --replay SEED/N
//	culprit shard --round FILE --out FILE
//	culprit version
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
)

func main() {
	ctx, stop := interruptible(context.Background())
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(exitCode(err, os.Stderr))
}

const usage = `usage:
  culprit explain [--repo DIR] --base REV --head REV --run TestName[/subtest] [--pkg ./path]
                  [--strategy after|dynamic|ddmin|one-by-one] [--format markdown|json] [--out FILE]
                  [--timeout 2m] [--budget 20m] [--max-trials N] [--reruns 3] [--workers 2]
                  [--fail-on test-failures|regressions|errors] [--quiet] [--env-passthrough NAMES]
                  [--mode command --test-command CMD [--build-command CMD]]
  culprit demo    [--format markdown|json] [--out FILE] [--strategy S] [--quiet] ...
  culprit bench   [--strategies after,dynamic,ddmin,one-by-one] [--scenarios DIR | --corpus DIR] [--only NAME]
  culprit bench   --simulate DIR [--runners 1,2,8,32] [--latency 45s] [--test-time 2m]
  culprit trace   --skipped [--dir MODULE] [--pkg ./path] [-v]
  culprit trace   --replay SEED/N --run TEST --pkg ./path [--gomaxprocs N] [--count 1]
  culprit shard   --round FILE --out FILE [--shard I --shards N] [--repo DIR]
  culprit version (or culprit --version)

'culprit COMMAND --help' lists a command's flags.
` + exitCodes

// exitCodes is the part of every usage text that lists the exit codes.
const exitCodes = `
exit codes:
  0    the analysis ended with a verdict, whatever it is
  1    an error: no verdict (the message says why)
  2    the command line could not be used (a bad flag, value or argument)
  3    the verdict is one that --fail-on names
  130  interrupted (SIGINT, Ctrl-C; 143 for SIGTERM); no report is written
`

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return errUsage
	}
	var err error
	switch args[0] {
	case "explain":
		err = explain(ctx, args[1:], stdout, stderr)
	case "demo":
		err = demo(ctx, args[1:], stdout, stderr)
	case "bench":
		err = bench(ctx, args[1:], stdout, stderr)
	case "trace":
		err = traceCmd(ctx, args[1:], stdout, stderr)
	case "shard":
		err = shardCmd(ctx, args[1:], stdout, stderr)
	case "version", "--version", "-version":
		err = versionCmd(args[1:], stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
	default:
		fmt.Fprintf(stderr, "culprit: unknown command %q\n%s", args[0], usage)
		return errUsage
	}
	switch {
	case errors.Is(err, errHelp):
		return nil
	case err != nil && ctx.Err() != nil:
		// Work that was stopped ends in whatever error the cancellation
		// caused where it struck ("context canceled", a failed build);
		// the interruption is what the user needs to hear, and its exit
		// code.
		return stopped(ctx)
	}
	return err
}
