package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/culprit-dev/culprit/analyzer"
	"github.com/culprit-dev/culprit/analyzer/result"
	"github.com/culprit-dev/culprit/internal/proc"
	"github.com/culprit-dev/culprit/report"
)

// explainFlags are the options shared by explain and demo.
type explainFlags struct {
	strategy, format, out      string
	timeout, budget            time.Duration
	reruns, workers, maxTrials int
	quiet                      bool
}

func (f *explainFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.strategy, "strategy", string(analyzer.StrategyAfter), "search strategy: after, dynamic, ddmin or one-by-one")
	fs.StringVar(&f.format, "format", "markdown", "report format: markdown or json")
	fs.StringVar(&f.out, "out", "", "write the report to this file instead of standard output")
	fs.DurationVar(&f.timeout, "timeout", 2*time.Minute, "time limit of one trial (build and test)")
	fs.IntVar(&f.reruns, "reruns", 3, "runs of base and head to tell a regression from a flaky test")
	fs.IntVar(&f.workers, "workers", 2, "trials run in parallel")
	fs.DurationVar(&f.budget, "budget", analyzer.DefaultBudget, "wall-time budget of the whole analysis; past it the best answer so far is reported")
	fs.IntVar(&f.maxTrials, "max-trials", 0, "most test runs the analysis may make (0: bounded by --budget only)")
	fs.BoolVar(&f.quiet, "quiet", false, "print no progress on standard error")
	// The pull request's builds and tests get an allow-list of the
	// environment (internal/proc); another variable they need is named here.
	fs.Func("env-passthrough", "comma-separated names of environment variables the tests need beyond the allow-list of what builds and tests use (PATH, HOME, GO*, CGO_*, locale, proxies…); every other variable is withheld from the pull request's code", func(s string) error {
		proc.SetPassthrough(proc.ParsePassthrough(s))
		return nil
	})
}

// check validates the flags before any work starts.
func (f *explainFlags) check() error {
	switch {
	case f.format != "markdown" && f.format != "md" && f.format != "json":
		return fmt.Errorf("--format %q: want markdown or json", f.format)
	case f.workers < 1:
		return fmt.Errorf("--workers %d: want at least 1", f.workers)
	case f.timeout <= 0:
		return fmt.Errorf("--timeout %v: want a positive duration such as 2m", f.timeout)
	case f.budget <= 0:
		return fmt.Errorf("--budget %v: want a positive duration such as 20m", f.budget)
	case f.budget < f.timeout:
		return fmt.Errorf("--budget %v is shorter than one trial's --timeout %v", f.budget, f.timeout)
	case f.reruns < 1:
		return fmt.Errorf("--reruns %d: want at least 1", f.reruns)
	case f.maxTrials < 0:
		return fmt.Errorf("--max-trials %d: want 0 (no bound) or more", f.maxTrials)
	}
	switch analyzer.Strategy(f.strategy) {
	case analyzer.StrategyAfter, analyzer.StrategyDynamic, analyzer.StrategyDDMin, analyzer.StrategyOneByOne:
	default:
		return fmt.Errorf("--strategy %q: want after, dynamic, ddmin or one-by-one", f.strategy)
	}
	return nil
}

func (f *explainFlags) options(stderr io.Writer) analyzer.Options {
	opt := analyzer.Options{
		Strategy:  analyzer.Strategy(f.strategy),
		Timeout:   f.timeout,
		Reruns:    f.reruns,
		Workers:   f.workers,
		Budget:    f.budget,
		MaxTrials: f.maxTrials,
	}
	if !f.quiet {
		opt.Progress = progressPrinter(stderr)
	}
	return opt
}

// progressPrinter prints a line on each phase change and at most every
// five seconds within a phase, so a long analysis never looks hung.
func progressPrinter(w io.Writer) func(analyzer.Progress) {
	var last analyzer.Progress
	var printed time.Time
	return func(p analyzer.Progress) {
		if p.Phase == last.Phase && time.Since(printed) < 5*time.Second {
			last = p
			return
		}
		last, printed = p, time.Now()
		fmt.Fprintf(w, "culprit: %6s  %-8s  %d trials, %d builds\n", p.Elapsed.Round(time.Second), p.Phase, p.Trials, p.Builds)
	}
}

func explain(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("explain", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var ef explainFlags
	ef.register(fs)
	req := analyzer.Request{Mode: analyzer.ModeGo}
	var mode string
	fs.StringVar(&req.Dir, "repo", ".", "the git repository")
	fs.StringVar(&req.Base, "base", "", "base revision (where the test passes)")
	fs.StringVar(&req.Head, "head", "", "head revision (where the test fails)")
	fs.StringVar(&req.Test.Name, "run", "", "the failing test, TestName or TestName/subtest")
	fs.StringVar(&req.Test.Package, "pkg", "", "the test's package (default: the package whose _test.go files declare it)")
	fs.StringVar(&mode, "mode", "go", "go, or command for any language (with --test-command)")
	fs.StringVar(&req.Test.Command, "test-command", "", "command mode: the shell command that runs the test")
	fs.StringVar(&req.BuildCommand, "build-command", "", "command mode: the shell command that builds")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	req.Mode = analyzer.Mode(mode)
	req.Options = ef.options(stderr)
	if req.Base == "" || req.Head == "" || (req.Test.Name == "" && req.Test.Command == "") {
		fmt.Fprintln(stderr, "culprit explain: --base, --head and --run (or --test-command) are required")
		return errUsage
	}
	if err := ef.check(); err != nil {
		fmt.Fprintln(stderr, "culprit explain:", err)
		return errUsage
	}
	if mode != string(analyzer.ModeGo) && mode != string(analyzer.ModeCommand) {
		fmt.Fprintf(stderr, "culprit explain: --mode %q: want go or command\n", mode)
		return errUsage
	}
	res, err := analyzer.Explain(ctx, req)
	if err != nil {
		return err
	}
	return write(res.Document(), ef.format, ef.out, stdout)
}

// write renders a report in the requested format to out, or to stdout when
// out is empty.
func write(r *result.Report, format, out string, stdout io.Writer) error {
	w := stdout
	if out != "" {
		f, err := os.Create(out)
		if err != nil {
			return err
		}
		defer f.Close()
		w = f
	}
	switch format {
	case "json":
		return report.WriteJSON(w, r)
	case "markdown", "md":
		_, err := io.WriteString(w, report.Markdown(r))
		return err
	}
	return fmt.Errorf("unknown format %q (want markdown or json)", format)
}
