package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/culprit-dev/culprit"
	"github.com/culprit-dev/culprit/analyzer"
	"github.com/culprit-dev/culprit/internal/scenario"
	"github.com/culprit-dev/culprit/report"
)

const demoScenario = "testdata/after-example.txtar"

// demo explains the bundled regression: the running example of the AFTER
// paper, made into a real git repository in a temporary directory.
func demo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var ef explainFlags
	ef.register(fs)
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	data, err := culprit.Scenarios.ReadFile(demoScenario)
	if err != nil {
		return err
	}
	sc, err := scenario.Parse("after-example", data)
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "culprit-demo-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	repo, err := sc.Materialize(dir)
	if err != nil {
		return fmt.Errorf("building the demo repository: %w", err)
	}
	fmt.Fprintf(stderr, "culprit demo: explaining %s of %s (a regression between two commits of a repository in %s)\n", sc.Test, sc.Pkg, dir)
	res, err := analyzer.Explain(ctx, analyzer.Request{
		Dir:     repo.Dir,
		Base:    repo.Base,
		Head:    repo.Head,
		Test:    analyzer.TestRef{Package: sc.Pkg, Name: sc.Test},
		Mode:    analyzer.ModeGo,
		Options: ef.options(),
	})
	if err != nil {
		return err
	}
	return write(report.New(res), ef.format, ef.out, stdout)
}
