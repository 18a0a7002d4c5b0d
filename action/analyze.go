package action

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/culprit-dev/culprit/analyzer"
	"github.com/culprit-dev/culprit/analyzer/note"
	"github.com/culprit-dev/culprit/analyzer/result"
	"github.com/culprit-dev/culprit/analyzer/trial"
	"github.com/culprit-dev/culprit/report"
	"github.com/sethvargo/go-githubactions"
)

// Explainer explains one failing test; analyzer.Explain is the real one.
// Tests of publishing substitute a canned one.
type Explainer interface {
	Explain(ctx context.Context, req analyzer.Request) (*analyzer.Result, error)
}

// ExplainFunc adapts a function to Explainer.
type ExplainFunc func(ctx context.Context, req analyzer.Request) (*analyzer.Result, error)

// Explain calls f.
func (f ExplainFunc) Explain(ctx context.Context, req analyzer.Request) (*analyzer.Result, error) {
	return f(ctx, req)
}

var _ Explainer = ExplainFunc(nil)

// Status values the Action adds to the analyzer's for whole runs.
const (
	StatusNoFailingTests = "no-failing-tests"
	StatusError          = "error"
)

// analysis is the outcome of the analyze half of a run.
type analysis struct {
	Reports []*result.Report
	Status  string // the run's status when there are no reports
	Skipped int    // distinct failures beyond max-tests
}

// analyze finds the failing tests on head and explains up to MaxTests
// distinct failures.
// exec, when not nil, runs the trials elsewhere, with search rounds as
// wide as cfg.MaxRunners.
func analyze(ctx context.Context, cfg *Config, t *Target, ex Explainer, exec trial.Executor, a *githubactions.Action) (*analysis, error) {
	opts := analyzer.Options{Strategy: cfg.Strategy, Timeout: cfg.Timeout, BuildCommand: cfg.BuildCommand,
		Budget: cfg.Budget, MaxTrials: cfg.MaxTrials, EnvPassthrough: cfg.EnvPassthrough}
	if exec != nil {
		opts.Executor, opts.Parallel = exec, cfg.MaxRunners
	}
	if cfg.TestCommand != "" {
		req := analyzer.Request{Dir: cfg.Dir, Base: t.Base, Head: t.Head, Mode: trial.ModeCommand,
			Test: analyzer.TestRef{Command: cfg.TestCommand}, Options: opts}
		rep, err := explainOne(ctx, ex, req, a)
		if err != nil {
			return nil, err
		}
		return &analysis{Reports: []*result.Report{rep}}, nil
	}

	fs, err := findFailures(ctx, cfg, t, a)
	if err != nil {
		return nil, err
	}
	if len(fs.Groups) == 0 {
		if fs.BuildFailed {
			a.Errorf("head %s does not build, so no test can be explained:\n%s", short(t.Head), tail(fs.BuildOutput, 4000))
			res := &analyzer.Result{Status: result.HeadBuildFails, Base: t.Base, Head: t.Head,
				Notes: result.Findings{{Code: note.HeadBuildFails, Detail: tail(fs.BuildOutput, 4000)}}}
			return &analysis{Reports: []*result.Report{res.Document()}}, nil
		}
		a.Noticef("no failing test on head %s: nothing to explain", short(t.Head))
		return &analysis{Status: StatusNoFailingTests}, nil
	}
	if fs.BuildFailed {
		a.Warningf("some packages of head %s do not build; explaining the tests that ran:\n%s", short(t.Head), tail(fs.BuildOutput, 2000))
	}
	an := &analysis{}
	groups := fs.Groups
	if len(groups) > cfg.MaxTests {
		an.Skipped = len(groups) - cfg.MaxTests
		var names []string
		for _, g := range groups[cfg.MaxTests:] {
			names = append(names, g.Name)
		}
		a.Noticef("%d more distinct failures not analyzed (max-tests is %d): %s", an.Skipped, cfg.MaxTests, strings.Join(names, ", "))
		groups = groups[:cfg.MaxTests]
	}
	var errs []error
	for _, g := range groups {
		if len(g.Same) > 0 {
			infof(a, "%s fails at %s like %s; explaining %s for all of them", g.Name, g.Signature, strings.Join(g.Same, ", "), g.Name)
		}
		req := analyzer.Request{Dir: cfg.Dir, Base: t.Base, Head: t.Head, Mode: trial.ModeGo,
			Test: analyzer.TestRef{Package: g.Package, Name: g.Name}, Options: opts}
		rep, err := explainOne(ctx, ex, req, a)
		if err != nil {
			a.Errorf("%s: %v", g.Name, err)
			errs = append(errs, err)
			continue
		}
		an.Reports = append(an.Reports, rep)
	}
	if len(an.Reports) == 0 {
		return nil, fmt.Errorf("no failing test could be analyzed: %w", errors.Join(errs...))
	}
	return an, nil
}

func explainOne(ctx context.Context, ex Explainer, req analyzer.Request, a *githubactions.Action) (*result.Report, error) {
	name := req.Test.Name
	if name == "" {
		name = req.Test.Command
	}
	a.Group("culprit: explaining " + name)
	defer a.EndGroup()
	res, err := ex.Explain(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("explaining %s: %w", name, err)
	}
	r := res.Document()
	for _, n := range report.Notes(r) {
		infof(a, "note: %s", n)
	}
	infof(a, "%s: %s (%d trials, %s)", name, res.Status, res.Cost.Trials, res.Cost.Wall.Round(1e6))
	return r, nil
}

// findFailures reads the test-results file or runs the tests on head.
func findFailures(ctx context.Context, cfg *Config, t *Target, a *githubactions.Action) (*Failures, error) {
	if cfg.TestResults != "" {
		run, err := readTestResults(cfg.TestResults)
		if err != nil {
			return nil, err
		}
		return collectFailures(run, cfg.Tests, cfg.Dir)
	}
	a.Group("culprit: running the tests on head " + short(t.Head))
	defer a.EndGroup()
	dir, done, err := headCheckout(ctx, cfg.Dir, t.Head)
	if err != nil {
		return nil, err
	}
	defer done()
	run, err := runTests(ctx, dir, cfg.Packages, runPattern(cfg.Tests))
	if err != nil {
		return nil, err
	}
	fs, err := collectFailures(run, cfg.Tests, dir)
	if err != nil {
		return nil, err
	}
	for _, g := range fs.Groups {
		infof(a, "failing: %s %s at %s", g.Package, g.Name, g.Signature)
	}
	return fs, nil
}

// tail keeps the last n bytes of s, at a line boundary.
func tail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	s = s[len(s)-n:]
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return "…\n" + s
}

// overallStatus is the run's status: the most telling of the reports'.
func overallStatus(an *analysis) string {
	if len(an.Reports) == 0 {
		return an.Status
	}
	for _, s := range []result.Status{result.Explained, result.FlakyRegression, result.Unexplained, result.Flaky, result.NotRegression, result.HeadBuildFails} {
		for _, r := range an.Reports {
			if r.Status == s {
				return string(s)
			}
		}
	}
	return string(an.Reports[0].Status)
}

// culpritCount counts the root hunks of the explained reports.
func culpritCount(reps []*result.Report) int {
	n := 0
	for _, r := range reps {
		// A flaky regression's root is named only once its proof passed.
		if r.Status == result.Explained || r.Status == result.FlakyRegression {
			n += len(r.Root)
		}
	}
	return n
}
