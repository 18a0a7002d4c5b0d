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
	"github.com/culprit-dev/culprit/internal/scenario/request"
)

const demoScenario = "testdata/after-example.txtar"

// demo explains the bundled regression: the running example of the AFTER
// paper, made into a real git repository in a temporary directory.
func demo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	var ef explainFlags
	ef.register(fs)
	if err := parseFlags(fs, "demo [flags]\n\nExplains the bundled regression, the running example of the AFTER paper,\nmade into a git repository in a temporary directory.", args, stdout, stderr); err != nil {
		return err
	}
	if err := ef.check(); err != nil {
		fmt.Fprintln(stderr, "culprit demo:", err)
		return errUsage
	}
	sc, repo, cleanup, err := demoRepo()
	if err != nil {
		return err
	}
	defer cleanup()
	fmt.Fprintf(stderr, "culprit demo: explaining %s of %s (a regression between two commits of a repository in %s)\n", sc.Test, sc.Pkg, repo.Dir)
	return ef.analyze(ctx, request.For(sc, repo, analyzer.StrategyAfter), stdout, stderr)
}

// demoRepo makes the bundled example into a git repository in a new
// temporary directory, removed by cleanup.
func demoRepo() (*scenario.Scenario, *scenario.Repo, func(), error) {
	data, err := culprit.Scenarios.ReadFile(demoScenario)
	if err != nil {
		return nil, nil, nil, err
	}
	sc, err := scenario.Parse("after-example", data)
	if err != nil {
		return nil, nil, nil, err
	}
	dir, err := os.MkdirTemp("", "culprit-demo-")
	if err != nil {
		return nil, nil, nil, err
	}
	cleanup := func() { os.RemoveAll(dir) }
	repo, err := sc.Materialize(dir)
	if err != nil {
		cleanup()
		return nil, nil, nil, fmt.Errorf("building the example repository: %w", err)
	}
	return sc, repo, cleanup, nil
}
