package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/culprit-dev/culprit/analyzer/trace/instrument"
	"github.com/culprit-dev/culprit/analyzer/trial"
)

// traceCmd is `culprit trace --skipped`: it instruments a package as the
// semantic analysis would and lists what the tracer leaves untraced, by
// reason, so that gaps in coverage show on real code before an analysis
// depends on them. With --replay it runs a test as a perturbed run of an
// analysis did (replay).
func traceCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("trace", flag.ContinueOnError)
	dir := fs.String("dir", ".", "the module root (the directory of go.mod)")
	pkg := fs.String("pkg", "./...", "the package(s) to instrument, relative to --dir")
	skipped := fs.Bool("skipped", false, "list the constructs left untraced")
	all := fs.Bool("v", false, "with --skipped: list every place, not only the counts by reason")
	var rp replayFlags
	fs.StringVar(&rp.perturb, "replay", "", "SEED/N: run --run's test with the tracing runtime, paused at about 1 in N traced points as SEED chooses (the seed a report gives)")
	fs.StringVar(&rp.test, "run", "", "with --replay: the test, as the report names it (TestF or TestF/sub)")
	fs.IntVar(&rp.procs, "gomaxprocs", 0, "with --replay: the runs' GOMAXPROCS (0: the default)")
	fs.IntVar(&rp.count, "count", 1, "with --replay: how many runs, each with the same seed")
	fs.DurationVar(&rp.timeout, "timeout", 2*time.Minute, "with --replay: the time limit of one run")
	if err := parseFlags(fs, "trace --skipped [flags]\n       culprit trace --replay SEED/N --run TEST --pkg ./path [flags]\n\nInstruments a package as the semantic analysis would and lists the\nconstructs the tracer leaves untraced, by reason; or replays a perturbed\nrun of a flaky test.", args, stdout, stderr); err != nil {
		return err
	}
	if rp.perturb != "" {
		return replayPerturbed(ctx, *dir, *pkg, rp, stdout, stderr)
	}
	if !*skipped {
		fmt.Fprintln(stderr, "culprit trace: give --skipped, to list what the tracer leaves untraced, or --replay SEED/N, to replay a perturbed run")
		return errUsage
	}
	skips, err := instrument.Untraced(ctx, *dir, *pkg)
	if err != nil {
		return err
	}
	counts := map[string]int{}
	for _, s := range skips {
		counts[s.Reason]++
	}
	reasons := make([]string, 0, len(counts))
	for r := range counts {
		reasons = append(reasons, r)
	}
	sort.Slice(reasons, func(i, j int) bool {
		if counts[reasons[i]] != counts[reasons[j]] {
			return counts[reasons[i]] > counts[reasons[j]]
		}
		return reasons[i] < reasons[j]
	})
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "untraced\treason\n")
	for _, r := range reasons {
		fmt.Fprintf(tw, "%d\t%s\n", counts[r], r)
	}
	fmt.Fprintf(tw, "%d\ttotal\n", len(skips))
	if err := tw.Flush(); err != nil {
		return err
	}
	if *all {
		for _, s := range skips {
			fmt.Fprintf(stdout, "%s:%d:%d: %s\n", s.Pos.File, s.Pos.Line, s.Pos.Col, s.Reason)
		}
	}
	return nil
}

// replayFlags are the flags of `culprit trace --replay`.
type replayFlags struct {
	perturb string // SEED/N
	test    string
	procs   int
	count   int
	timeout time.Duration
}

// errReplayFailed is the error of a replay in which the test failed: the
// exit code says it as go test's would.
var errReplayFailed = errors.New("the test failed in a replayed run")

// replayPerturbed builds the test with the tracing runtime, as an analysis's
// perturbed runs are built, and runs it rp.count times with the seed and
// rate of rp.perturb, one at a time: the same points pause in the same
// order as far as the scheduler repeats itself, so a failure a report saw
// under that seed is likely to show again. It prints each run's verdict,
// and the output of the first failing run.
func replayPerturbed(ctx context.Context, dir, pkg string, rp replayFlags, stdout, stderr io.Writer) error {
	var seed uint64
	var every int
	if n, err := fmt.Sscanf(rp.perturb, "%d/%d", &seed, &every); err != nil || n != 2 || seed == 0 || every < 1 || rp.perturb != fmt.Sprintf("%d/%d", seed, every) {
		fmt.Fprintf(stderr, "culprit trace: --replay wants SEED/N, a seed above 0 and a rate of 1 or more, as a report gives them (as in 8850859957444053854/16), not %q\n", rp.perturb)
		return errUsage
	}
	switch {
	case rp.test == "":
		fmt.Fprintln(stderr, "culprit trace: --replay needs --run, the test to run")
		return errUsage
	case strings.Contains(pkg, "..."):
		fmt.Fprintln(stderr, "culprit trace: --replay needs --pkg naming the test's package (as in ./calc), not a pattern")
		return errUsage
	case rp.count < 1 || rp.procs < 0 || rp.timeout <= 0:
		fmt.Fprintln(stderr, "culprit trace: --count must be 1 or more, --gomaxprocs 0 or more, --timeout above 0")
		return errUsage
	}
	cfg := instrument.Config{Dir: dir, Pkg: pkg, Test: rp.test, Timeout: rp.timeout}
	env := []string{trial.EnvIntervene + "=" + trial.PerturbItem(seed, every)}
	how := fmt.Sprintf("seed %d, 1 in %d points", seed, every)
	if rp.procs > 0 {
		env = append(env, "GOMAXPROCS="+strconv.Itoa(rp.procs))
		how += fmt.Sprintf(", GOMAXPROCS=%d", rp.procs)
	}
	fmt.Fprintf(stderr, "culprit: building %s with the tracing runtime\n", pkg)
	bin, err := instrument.Build(ctx, cfg)
	if err != nil {
		return err
	}
	defer bin.Close()
	failed, first := 0, ""
	for i := range rp.count {
		passed, out, err := bin.Exec(ctx, env...)
		if err != nil {
			return err
		}
		verdict := "pass"
		if !passed {
			verdict = "FAIL"
			if failed == 0 {
				first = out
			}
			failed++
		}
		fmt.Fprintf(stdout, "run %d: %s (%s)\n", i+1, verdict, how)
	}
	fmt.Fprintf(stdout, "the test failed in %d of %s\n", failed, plural(rp.count, "run", "runs"))
	if failed == 0 {
		return nil
	}
	fmt.Fprintf(stdout, "\noutput of the first failing run:\n%s", first)
	return errReplayFailed
}
