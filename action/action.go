package action

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/culprit-dev/culprit/action/pr"
	"github.com/culprit-dev/culprit/analyzer"
	"github.com/culprit-dev/culprit/internal/ghclient"
	"github.com/culprit-dev/culprit/internal/proc"
	"github.com/culprit-dev/culprit/report"
	"github.com/sethvargo/go-githubactions"
)

// Runner is one run of the Action. The zero value of every field but
// Getenv and Stdout is usable.
type Runner struct {
	Getenv func(string) string
	Stdout io.Writer
	// Explainer explains a failing test; nil means analyzer.Explain.
	Explainer Explainer
	// HTTPClient talks to the GitHub API; nil means a default client.
	HTTPClient *http.Client
	// Sleep waits before retrying a rate-limited request; nil means a
	// real timer.
	Sleep func(context.Context, time.Duration) error
}

// Run runs the Action with the runner's environment and output.
func Run(ctx context.Context, getenv func(string) string, stdout io.Writer) error {
	return (&Runner{Getenv: getenv, Stdout: stdout}).Run(ctx)
}

// run holds what one Run has learned so far.
type run struct {
	*Runner
	a   *githubactions.Action
	cfg *Config
	gc  *githubactions.GitHubContext

	status     string
	culprits   int
	reportJSON string
	annotated  bool
}

// Run runs the Action. Errors are reported as an error annotation and
// returned; the status output is "error" then. Verdicts (explained, not a
// regression, …) are not errors.
func (r *Runner) Run(ctx context.Context) (err error) {
	a := githubactions.New(githubactions.WithGetenv(r.Getenv), githubactions.WithWriter(r.Stdout))
	ru := &run{Runner: r, a: a, status: StatusError}
	defer func() {
		if p := recover(); p != nil {
			// go-githubactions panics when a runner file cannot be
			// written; that is an error of the run, not a crash.
			err = fmt.Errorf("writing to the runner: %v", p)
		}
		if err != nil {
			ru.status = StatusError
			a.Errorf("culprit: %v", err)
		}
		ru.outputs()
	}()
	if ru.cfg, err = readConfig(a, r.Getenv); err != nil {
		return err
	}
	proc.SetPassthrough(ru.cfg.EnvPassthrough)
	if ru.cfg.Token != "" {
		a.AddMask(ru.cfg.Token)
	}
	if ru.gc, err = a.Context(); err != nil {
		return fmt.Errorf("reading the workflow context: %w", err)
	}
	if ru.cfg.Mode == Comment {
		return ru.comment(ctx)
	}
	return ru.analyze(ctx)
}

// clients returns a constructor of pull-request clients sharing one
// GitHub client.
func (ru *run) clients() (func(number int) *pr.Client, error) {
	gh, err := ghclient.New(ru.HTTPClient, ru.gc.APIURL, ru.cfg.Token, ru.Sleep)
	if err != nil {
		return nil, err
	}
	owner, repo := ru.gc.Repo()
	return func(n int) *pr.Client { return pr.New(gh, owner, repo, n) }, nil
}

func (ru *run) analyze(ctx context.Context) error {
	client, err := ru.clients()
	if err != nil {
		return err
	}
	fetch := func(ctx context.Context, n int) (*pr.PullRequest, error) { return client(n).Get(ctx) }
	t, err := resolveTarget(ctx, ru.cfg, ru.gc, fetch, ru.a)
	if err != nil {
		return err
	}
	infof(ru.a, "culprit: %s event, base %s, head %s, pull request #%d", t.Event, short(t.Base), short(t.Head), t.PR)
	ex := ru.Explainer
	if ex == nil {
		ex = ExplainFunc(analyzer.Explain)
	}
	an, err := analyze(ctx, ru.cfg, t, ex, ru.a)
	if err != nil {
		return err
	}
	ru.status = overallStatus(an)
	ru.culprits = culpritCount(an.Reports)
	paths, err := writeReports(ru.cfg.ReportJSON, an.Reports, runContext{
		Repository: ru.gc.Repository, PR: t.PR, Base: t.Base, Head: t.Head, Status: ru.status, Skipped: an.Skipped})
	if err != nil {
		return err
	}
	if len(paths) > 0 {
		ru.reportJSON = paths[0]
	}
	ru.summary(an.Reports, an.Skipped)
	if ru.cfg.Annotations {
		ru.annotate(an.Reports)
	}
	switch {
	case ru.cfg.Mode == Analyze:
		infof(ru.a, "culprit: mode analyze: the report is in %s for a later comment run", ru.cfg.ReportJSON)
		return nil
	case t.PR == 0:
		infof(ru.a, "culprit: no pull request to comment on; see the job summary")
		return nil
	}
	return ru.post(ctx, client(t.PR), t.Head, an.Reports, ru.detailsURL())
}

// comment is the comment mode: post a report that an analyze run wrote.
// It reads files and calls the API; it never runs repository code.
func (ru *run) comment(ctx context.Context) error {
	reps, rc, err := readReports(ru.cfg.ReportJSON)
	if err != nil {
		return err
	}
	client, err := ru.clients()
	if err != nil {
		return err
	}
	number, head := ru.cfg.PRNumber, ""
	if rc != nil {
		if number == 0 {
			number = rc.PR
		}
		head = rc.Head
		if rc.Repository != "" && ru.gc.Repository != "" && !strings.EqualFold(rc.Repository, ru.gc.Repository) {
			return fmt.Errorf("the report is about %s, not %s; refusing to comment", rc.Repository, ru.gc.Repository)
		}
	}
	details := ru.detailsURL()
	if wr, ok := ru.gc.Event["workflow_run"].(map[string]any); ok {
		if number == 0 {
			if prs, ok := wr["pull_requests"].([]any); ok && len(prs) > 0 {
				if p, ok := prs[0].(map[string]any); ok {
					number = jsonInt(p["number"])
				}
			}
		}
		if u, _ := wr["html_url"].(string); u != "" {
			details = u
		}
		// The report was written by a run of the pull request's code: it
		// may name any PR. Post only where the PR's head is the commit
		// that run analyzed.
		runHead, _ := wr["head_sha"].(string)
		if ev, _ := wr["event"].(string); ev == "workflow_dispatch" {
			// A dispatched run ran on the default branch: its head_sha is
			// not the PR's. The PR is the one its run-name names (set by
			// the default branch's workflow from the dispatch input); the
			// report may not name another.
			n := dispatchedPR(wr)
			if n == 0 {
				return errors.New("the dispatched run's name does not end in #<pr-number>; set run-name as the example workflow does; refusing to comment")
			}
			if (rc != nil && rc.PR != 0 && rc.PR != n) || (ru.cfg.PRNumber != 0 && ru.cfg.PRNumber != n) {
				return fmt.Errorf("the report names another pull request than #%d, the one the run was dispatched for; refusing to comment", n)
			}
			number, runHead = n, head
			if runHead == "" {
				return errors.New("the report of a dispatched run names no head commit; refusing to comment")
			}
		}
		if runHead == "" {
			return errors.New("the workflow_run event has no head_sha; refusing to comment")
		}
		if number != 0 {
			p, err := client(number).Get(ctx)
			if err != nil {
				return err
			}
			if p.HeadSHA != runHead || (head != "" && head != runHead) {
				return fmt.Errorf("pull request #%d is at %s but the analyzed run was at %s; refusing to comment (the PR moved on, or the report names another PR)", number, short(p.HeadSHA), short(runHead))
			}
		}
		head = runHead
	}
	if number == 0 {
		return fmt.Errorf("%w: no pull request number in the report context, the pr-number input or the event", errNoPR)
	}
	an := &analysis{Reports: reps}
	if rc != nil {
		an.Status, an.Skipped = rc.Status, rc.Skipped
	}
	if an.Status == "" && len(reps) == 0 {
		an.Status = StatusNoFailingTests
	}
	ru.status = overallStatus(an)
	ru.culprits = culpritCount(reps)
	if len(reps) > 0 {
		ru.reportJSON = ru.cfg.ReportJSON
	}
	ru.summary(reps, an.Skipped)
	if ru.cfg.Annotations {
		ru.annotate(reps)
	}
	return ru.post(ctx, client(number), head, reps, details)
}

func (ru *run) detailsURL() string {
	if ru.gc.RunID == 0 || ru.gc.Repository == "" {
		return ""
	}
	return fmt.Sprintf("%s/%s/actions/runs/%d", strings.TrimSuffix(ru.gc.ServerURL, "/"), ru.gc.Repository, ru.gc.RunID)
}

// outputs sets the Action's outputs; without a runner output file (a local
// run) it logs them instead.
func (ru *run) outputs() {
	out := [][2]string{{"status", ru.status}, {"culprits", strconv.Itoa(ru.culprits)}, {"report-json", ru.reportJSON}}
	for _, kv := range out {
		if ru.Getenv("GITHUB_OUTPUT") == "" {
			infof(ru.a, "output %s=%s", kv[0], kv[1])
			continue
		}
		if err := setOutput(ru.Getenv("GITHUB_OUTPUT"), kv[0], kv[1]); err != nil {
			ru.a.Errorf("culprit: %v", err)
		}
	}
}

// summary writes the full reports to the job summary.
func (ru *run) summary(reps []*report.Report, skipped int) {
	var b strings.Builder
	switch {
	case len(reps) == 0 && ru.status == StatusNoFailingTests:
		b.WriteString("## culprit\n\nNo failing test: nothing to explain.\n")
	case len(reps) == 0:
		fmt.Fprintf(&b, "## culprit\n\nStatus: %s.\n", ru.status)
	}
	for i, r := range reps {
		if i > 0 {
			b.WriteString("\n---\n\n")
		}
		b.WriteString(report.Markdown(r))
	}
	if skipped > 0 {
		fmt.Fprintf(&b, "\n%d more distinct failures were not analyzed (max-tests).\n", skipped)
	}
	if ru.Getenv("GITHUB_STEP_SUMMARY") == "" {
		infof(ru.a, "%s", b.String())
		return
	}
	ru.a.AddStepSummary(b.String())
}

// annotate emits the reports' annotations, once per run.
func (ru *run) annotate(reps []*report.Report) {
	if ru.annotated {
		return
	}
	ru.annotated = true
	for _, r := range reps {
		for _, an := range report.Annotations(r) {
			fields := map[string]string{"title": an.Title}
			// A report from an artifact may name any path: only a path
			// inside the repository becomes the annotation's file.
			if an.File != "" && insideRepo(an.File) {
				fields["file"] = an.File
				if an.Line > 0 {
					fields["line"] = strconv.Itoa(an.Line)
				}
				if an.EndLine > an.Line {
					fields["endLine"] = strconv.Itoa(an.EndLine)
				}
			}
			l := ru.a.WithFieldsMap(fields)
			switch an.Level {
			case "error", "failure":
				l.Errorf("%s", an.Message)
			case "warning":
				l.Warningf("%s", an.Message)
			default:
				l.Noticef("%s", an.Message)
			}
		}
	}
}

// dispatchedPR is the pull request number at the end of a dispatched run's
// display title ("culprit #42"), 0 when there is none.
func dispatchedPR(wr map[string]any) int {
	title, _ := wr["display_title"].(string)
	i := strings.LastIndexByte(title, '#')
	if i < 0 {
		return 0
	}
	n, err := strconv.Atoi(title[i+1:])
	if err != nil || n <= 0 {
		return 0
	}
	return n
}
