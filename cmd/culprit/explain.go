package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/culprit-dev/culprit/analyzer"
	"github.com/culprit-dev/culprit/report"
)

// explainFlags are the options shared by explain and demo.
type explainFlags struct {
	strategy, format, out string
	timeout               time.Duration
	reruns, workers       int
}

func (f *explainFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.strategy, "strategy", string(analyzer.StrategyAfter), "search strategy: after, dynamic, ddmin or one-by-one")
	fs.StringVar(&f.format, "format", "markdown", "report format: markdown or json")
	fs.StringVar(&f.out, "out", "", "write the report to this file instead of standard output")
	fs.DurationVar(&f.timeout, "timeout", 2*time.Minute, "time limit of one trial (build and test)")
	fs.IntVar(&f.reruns, "reruns", 3, "runs of base and head to tell a regression from a flaky test")
	fs.IntVar(&f.workers, "workers", 2, "trials run in parallel")
}

func (f *explainFlags) options() analyzer.Options {
	return analyzer.Options{
		Strategy: analyzer.Strategy(f.strategy),
		Timeout:  f.timeout,
		Reruns:   f.reruns,
		Workers:  f.workers,
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
	req.Options = ef.options()
	if req.Base == "" || req.Head == "" || (req.Test.Name == "" && req.Test.Command == "") {
		fmt.Fprintln(stderr, "culprit explain: --base, --head and --run (or --test-command) are required")
		return errUsage
	}
	res, err := analyzer.Explain(ctx, req)
	if err != nil {
		return err
	}
	return write(report.New(res), ef.format, ef.out, stdout)
}

// write renders a report in the requested format to out, or to stdout when
// out is empty.
func write(r *report.Report, format, out string, stdout io.Writer) error {
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
		return r.WriteJSON(w)
	case "markdown", "md":
		_, err := io.WriteString(w, report.Markdown(r))
		return err
	}
	return fmt.Errorf("unknown format %q (want markdown or json)", format)
}
