package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/culprit-dev/culprit/analyzer"
	"github.com/culprit-dev/culprit/analyzer/trial"
	"github.com/culprit-dev/culprit/internal/proc"
)

// explainFlags are the options shared by explain and demo.
type explainFlags struct {
	strategy, format, out      string
	timeout, budget            time.Duration
	reruns, workers, maxTrials int
	quiet                      bool
	failOn                     failOn
	passthrough                []string
}

func (f *explainFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.strategy, "strategy", string(analyzer.StrategyAfter), "search strategy: after, dynamic, ddmin or one-by-one")
	fs.StringVar(&f.format, "format", "markdown", "report format: markdown or json")
	fs.StringVar(&f.out, "out", "", "write the report to this file instead of standard output (checked before the analysis starts)")
	fs.DurationVar(&f.timeout, "timeout", 2*time.Minute, "time limit of one trial (build and test)")
	fs.IntVar(&f.reruns, "reruns", 3, "runs of base and head to tell a regression from a flaky test")
	fs.IntVar(&f.workers, "workers", 2, "trials run in parallel")
	fs.DurationVar(&f.budget, "budget", analyzer.DefaultBudget, "wall-time budget of the whole analysis; past it the best answer so far is reported")
	fs.IntVar(&f.maxTrials, "max-trials", 0, "most test runs the analysis may make (0: bounded by --budget only)")
	fs.BoolVar(&f.quiet, "quiet", false, "print no progress on standard error")
	f.failOn = failOnErrors
	fs.Var(&f.failOn, "fail-on", "exit with code 3, after the report is written, when the verdict is of this `kind`: test-failures (the test failed on head), regressions (it passes on base and fails on head, or head does not build) or errors (no verdict does: only errors fail, with code 1)")
	// The pull request's builds and tests get an allow-list of the
	// environment (internal/proc); another variable they need is named here.
	fs.Func("env-passthrough", "comma-separated `names` of environment variables the tests need beyond the allow-list of what builds and tests use (PATH, HOME, GO*, CGO_*, locale, proxies…); every other variable is withheld from the pull request's code", func(s string) error {
		f.passthrough = proc.ParsePassthrough(s)
		return nil
	})
}

// check validates the flags, the output file included, before any work
// starts.
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
	return checkOut(f.out)
}

// options are the analysis's options, with the progress printer unless
// --quiet; stop ends the printer and must be called when the analysis
// returns.
func (f *explainFlags) options(stderr io.Writer) (opt analyzer.Options, stop func()) {
	opt = analyzer.Options{
		Strategy:  analyzer.Strategy(f.strategy),
		Timeout:   f.timeout,
		Reruns:    f.reruns,
		Workers:   f.workers,
		Budget:    f.budget,
		MaxTrials: f.maxTrials,

		EnvPassthrough: f.passthrough,
	}
	if f.quiet {
		return opt, func() {}
	}
	p := startProgress(stderr, progressConfig{budget: f.budget, maxTrials: f.maxTrials})
	opt.Progress = p.report
	return opt, p.stop
}

// analyze runs the analysis and writes its report; an interrupted analysis
// writes none, and a verdict --fail-on names is an error after the report.
func (f *explainFlags) analyze(ctx context.Context, req analyzer.Request, stdout, stderr io.Writer) error {
	opt, stop := f.options(stderr)
	req.Options = opt
	res, err := analyzer.Explain(ctx, req)
	stop()
	if ctx.Err() != nil {
		// A report of an analysis cut short by the user would say only
		// that its context was cancelled.
		return stopped(ctx)
	}
	if err != nil {
		return err
	}
	doc := res.Document()
	if err := write(doc, f.format, f.out, stdout); err != nil {
		return err
	}
	return f.failOn.check(doc)
}

const explainSynopsis = `explain [--repo DIR] --base REV --head REV --run TestName[/subtest] [flags]

Explains why the test fails at --head and passes at --base: the hunks of
the change whose revert makes it pass, and the chain from them to the
failure. --repo may be any directory inside the repository.`

func explain(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("explain", flag.ContinueOnError)
	var ef explainFlags
	ef.register(fs)
	req := analyzer.Request{Mode: trial.ModeGo}
	var mode string
	fs.StringVar(&req.Dir, "repo", ".", "a directory of the git repository (its top level is found)")
	fs.StringVar(&req.Base, "base", "", "base revision (where the test passes)")
	fs.StringVar(&req.Head, "head", "", "head revision (where the test fails)")
	fs.StringVar(&req.Test.Name, "run", "", "the failing test, TestName or TestName/subtest")
	fs.StringVar(&req.Test.Package, "pkg", "", "the test's package, relative to the repository's top level (default: the package whose _test.go files declare it)")
	fs.StringVar(&mode, "mode", "go", "go, or command for any language (with --test-command)")
	fs.StringVar(&req.Test.Command, "test-command", "", "command mode: the shell command that runs the test")
	fs.StringVar(&req.BuildCommand, "build-command", "", "command mode: the shell command that builds")
	if err := parseFlags(fs, explainSynopsis, args, stdout, stderr); err != nil {
		return err
	}
	req.Mode = trial.Mode(mode)
	if req.Base == "" || req.Head == "" || (req.Test.Name == "" && req.Test.Command == "") {
		fmt.Fprintln(stderr, "culprit explain: --base, --head and --run (or --test-command) are required")
		return errUsage
	}
	if req.Mode != trial.ModeGo && req.Mode != trial.ModeCommand {
		fmt.Fprintf(stderr, "culprit explain: --mode %q: want go or command\n", mode)
		return errUsage
	}
	if err := ef.check(); err != nil {
		fmt.Fprintln(stderr, "culprit explain:", err)
		return errUsage
	}
	root, err := repoRoot(ctx, req.Dir)
	if err != nil {
		fmt.Fprintln(stderr, "culprit explain:", err)
		return errUsage
	}
	req.Dir = root
	return ef.analyze(ctx, req, stdout, stderr)
}
