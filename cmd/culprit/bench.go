package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/culprit-dev/culprit"
	"github.com/culprit-dev/culprit/analyzer"
	"github.com/culprit-dev/culprit/analyzer/result"
	"github.com/culprit-dev/culprit/analyzer/trial"
	"github.com/culprit-dev/culprit/diffhunks"
	"github.com/culprit-dev/culprit/internal/proc"
	"github.com/culprit-dev/culprit/internal/scenario"
	"github.com/culprit-dev/culprit/internal/scenario/request"
)

// bench runs every scenario with each strategy and prints one table, then
// measures the cost of a Go-mode trial against a plain go test run.
func bench(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	strategies := fs.String("strategies", "after,dynamic,ddmin,one-by-one", "comma-separated strategies to compare")
	dir := fs.String("scenarios", "", "read scenarios from this directory instead of the bundled ones")
	only := fs.String("only", "", "run only scenarios (or corpus cases) whose name contains this")
	corpus := fs.String("corpus", "", "explain the real regressions of a rebuilt corpus in this directory (eval/realworld) instead of the scenarios")
	budget := fs.Duration("budget", 10*time.Minute, "with --corpus: the budget of each analysis")
	reports := fs.String("reports", "", "with --corpus: write each case's Markdown report, and the log of its trials for --simulate, into this directory")
	parallel := fs.Int("parallel", 0, "with --corpus: variants one search round tries at once (default: the 2 workers); the trial logs record it")
	memprofile := fs.String("memprofile", "", "with --corpus: write a heap profile to this file at each new peak of the live heap")
	sim := simFlags(fs)
	if err := parseFlags(fs, "bench [flags]\n\nRuns every bundled scenario (or the cases of a rebuilt corpus) with each\nstrategy and prints what each cost and whether it found the expected root.\nWith --simulate, replays the trial logs of earlier corpus runs on simulated executors.", args, stdout, stderr); err != nil {
		return err
	}
	if *sim.dir != "" {
		return sim.run(stdout, stderr)
	}
	if *corpus != "" {
		if *dir != "" {
			fmt.Fprintln(stderr, "culprit bench: --corpus and --scenarios exclude each other")
			return errUsage
		}
		if st, err := os.Stat(*corpus); err != nil || !st.IsDir() {
			fmt.Fprintf(stderr, "culprit bench: --corpus %s is not a directory\n", *corpus)
			return errUsage
		}
		strats := strings.Split(*strategies, ",")
		if !isFlagSet(fs, "strategies") {
			strats = []string{string(analyzer.StrategyAfter), string(analyzer.StrategyDDMin)}
		}
		p := startProgress(stderr, progressConfig{budget: *budget})
		defer p.stop()
		return benchCorpus(ctx, *corpus, *only, *reports, *memprofile, strats, analyzer.Options{Budget: *budget, Parallel: *parallel, Progress: p.report}, stdout, stderr)
	}
	scs, err := loadScenarios(*dir, *only)
	if err != nil {
		return err
	}
	strats := strings.Split(*strategies, ",")
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	head := []string{"scenario", "hunks", "expected"}
	for _, s := range strats {
		head = append(head, s+" trials", s+" wall", s+" ok")
	}
	head = append(head, "semantic s", "solver calls", "clauses/slice")
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	for _, sc := range scs {
		row, err := benchScenario(ctx, sc, strats, stderr)
		if err != nil {
			fmt.Fprintf(stderr, "bench %s: %v\n", sc.Name, err)
			continue
		}
		fmt.Fprintln(tw, strings.Join(row, "\t"))
		fmt.Fprintf(stderr, "bench: %s done\n", sc.Name)
	}
	tw.Flush()
	return trialOverhead(ctx, stdout)
}

func loadScenarios(dir, only string) ([]*scenario.Scenario, error) {
	var fsys fs.FS = culprit.Scenarios
	root := "testdata"
	if dir != "" {
		fsys, root = os.DirFS(dir), "."
	}
	names, err := fs.Glob(fsys, root+"/*.txtar")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var out []*scenario.Scenario
	for _, n := range names {
		name := strings.TrimSuffix(filepath.Base(n), ".txtar")
		if only != "" && !strings.Contains(name, only) {
			continue
		}
		data, err := fs.ReadFile(fsys, n)
		if err != nil {
			return nil, err
		}
		sc, err := scenario.Parse(name, data)
		if err != nil {
			return nil, err
		}
		out = append(out, sc)
	}
	return out, nil
}

func benchScenario(ctx context.Context, sc *scenario.Scenario, strats []string, stderr io.Writer) ([]string, error) {
	dir, err := os.MkdirTemp("", "culprit-bench-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	repo, err := sc.Materialize(dir)
	if err != nil {
		return nil, err
	}
	set, err := diffhunks.FromGit(ctx, repo.Dir, repo.Base, repo.Head)
	if err != nil {
		return nil, err
	}
	want := sc.Status
	if want == "" {
		want = string(result.Explained)
	}
	var wantRoot []diffhunks.ID
	if len(sc.Root) > 0 {
		if wantRoot, err = scenario.Resolve(set.Hunks(), sc.Root); err != nil {
			return nil, err
		}
	}
	expected := want
	if len(wantRoot) > 0 {
		expected = fmt.Sprint(wantRoot)
	}
	row := []string{sc.Name, fmt.Sprint(len(set.Hunks())), expected}
	var sem *analyzer.Cost
	for _, s := range strats {
		res, err := analyzer.Explain(ctx, request.For(sc, repo, analyzer.Strategy(s)))
		if err != nil {
			fmt.Fprintf(stderr, "bench %s %s: %v\n", sc.Name, s, err)
			row = append(row, "-", "-", "error")
			continue
		}
		ok := string(res.Status) == want && (len(wantRoot) == 0 || slices.Equal(res.Root, wantRoot))
		mark := "yes"
		if !ok {
			mark = fmt.Sprintf("no (%s %v)", res.Status, res.Root)
		}
		row = append(row, fmt.Sprint(res.Cost.Trials), res.Cost.Wall.Round(10*time.Millisecond).String(), mark)
		if s == string(analyzer.StrategyAfter) {
			st := res.Cost
			sem = &st
		}
	}
	if sem != nil {
		row = append(row, fmt.Sprintf("%.2f", sem.Semantic.Seconds()), fmt.Sprint(sem.SolverCalls), fmt.Sprintf("%d/%d", sem.Clauses, sem.SliceSize))
	} else {
		row = append(row, "-", "-", "-")
	}
	return row, nil
}

// trialOverhead compares a Go-mode trial with a plain `go test -run` of the
// same variant (head), both with a warm build cache, and prints the ratio of
// the medians.
func trialOverhead(ctx context.Context, stdout io.Writer) error {
	sc, repo, cleanup, err := demoRepo()
	if err != nil {
		return err
	}
	defer cleanup()
	set, err := diffhunks.FromGit(ctx, repo.Dir, repo.Base, repo.Head)
	if err != nil {
		return err
	}
	r, err := trial.New(ctx, trial.Config{Dir: repo.Dir, Head: repo.Head, Variants: set, Mode: trial.ModeGo, Pkg: sc.Pkg, Test: sc.Test, Timeout: time.Minute, Workers: 1})
	if err != nil {
		return err
	}
	defer r.Close()
	const n = 7
	var plain, traced []time.Duration
	for i := 0; i <= n; i++ {
		start := time.Now()
		// The test fails on head; only the time matters. The plain run gets
		// the go command's environment as the trial does, so that the two
		// differ only in what is measured.
		_, _ = proc.GoInvocation{Verb: "test", BuildFlags: []string{"-count=1", "-run", "^" + sc.Test + "$"}, Args: []string{sc.Pkg}, Dir: r.HeadDir()}.Run(ctx)
		d := time.Since(start)
		start = time.Now()
		if _, err := r.Repeat(ctx, nil, 1); err != nil {
			return err
		}
		if i > 0 { // the first round warms the build cache
			plain, traced = append(plain, d), append(traced, time.Since(start))
		}
	}
	slices.Sort(plain)
	slices.Sort(traced)
	mp, mt := plain[n/2], traced[n/2]
	fmt.Fprintf(stdout, "\ntrial overhead (%s, warm cache, median of %d): plain go test %v, trial %v, ratio %.2fx\n",
		sc.Name, n, mp.Round(time.Millisecond), mt.Round(time.Millisecond), float64(mt)/float64(mp))
	return nil
}

// isFlagSet reports whether the command line set the named flag.
func isFlagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
