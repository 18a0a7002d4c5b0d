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
	"github.com/culprit-dev/culprit/analyzer/result"
	"github.com/culprit-dev/culprit/internal/ghclient"
	"github.com/culprit-dev/culprit/report"
	"github.com/sethvargo/go-githubactions"
)

// Job is one run of the Action. The zero value of every field but
// Getenv and Stdout is usable.
type Job struct {
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
	return (&Job{Getenv: getenv, Stdout: stdout}).Run(ctx)
}

// run holds what one Run has learned so far.
type run struct {
	*Job
	a   *githubactions.Action
	cfg *Config
	gc  *githubactions.GitHubContext

	status     string
	verdict    *analysis // what was found, for fail-on
	culprits   int
	reportJSON string
	annotated  bool
	// commentID and commentURL name the sticky comment posted or
	// updated, zero when none was.
	commentID  int64
	commentURL string
}

// Run runs the Action. Errors are reported as an error annotation and
// returned; the status output is "error" then. Verdicts (explained, not a
// regression, …) are not errors.
func (r *Job) Run(ctx context.Context) (err error) {
	a := githubactions.New(githubactions.WithGetenv(r.Getenv), githubactions.WithWriter(r.Stdout))
	ru := &run{Job: r, a: a, status: StatusError}
	defer func() {
		if p := recover(); p != nil {
			// go-githubactions panics when a runner file cannot be
			// written; that is an error of the run, not a crash.
			err = fmt.Errorf("writing to the runner: %v", p)
		}
		switch {
		case errors.Is(err, errVerdictFails):
			// A verdict, not an error: the status output keeps it.
		case err != nil:
			ru.status = StatusError
			a.Errorf("culprit: %v", err)
		}
		ru.outputs()
	}()
	// The token is masked before anything can fail, so that no error
	// message, even one about another input, can print it.
	if tok := input(a, "github-token"); tok != "" {
		a.AddMask(tok)
	}
	if ru.cfg, err = readConfig(a, r.Getenv); err != nil {
		return err
	}
	if ru.gc, err = a.Context(); err != nil {
		return fmt.Errorf("reading the workflow context: %w", err)
	}
	if ru.cfg.Mode == Comment {
		err = ru.comment(ctx)
	} else {
		err = ru.analyze(ctx)
	}
	if err != nil || ru.verdict == nil {
		return err
	}
	if why := ru.cfg.FailOn.verdictFails(ru.verdict); why != "" {
		a.Errorf("culprit: failing the step: %s (fail-on: %s; status %s)", why, ru.cfg.FailOn, ru.status)
		return errVerdictFails
	}
	return nil
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
	exec, err := ru.executor(ctx, t)
	if err != nil {
		return err
	}
	an, err := analyze(ctx, ru.cfg, t, ex, exec, ru.a)
	if err != nil {
		return err
	}
	ru.status, ru.verdict = overallStatus(an), an
	ru.culprits = culpritCount(an.Reports)
	paths, err := writeReports(ru.cfg.ReportJSON, an.Reports, runContext{
		Repository: ru.gc.Repository, PR: t.PR, Base: t.Base, Head: t.Head, Status: ru.status, Skipped: an.Skipped, Tests: ru.cfg.Tests})
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
// It reads files and calls the API; it never runs repository code. The
// report comes from a run of the pull request's code, so where to post it,
// and under which key, is decided by the event and the API (analyzedRun).
func (ru *run) comment(ctx context.Context) error {
	reps, rc, err := readReports(ru.cfg.ReportJSON)
	if err != nil {
		return err
	}
	client, err := ru.clients()
	if err != nil {
		return err
	}
	if rc != nil && rc.Repository != "" && ru.gc.Repository != "" && !strings.EqualFold(rc.Repository, ru.gc.Repository) {
		return fmt.Errorf("the report is about %s, not %s; refusing to comment", rc.Repository, ru.gc.Repository)
	}
	target, err := ru.analyzedRun(ctx, client, rc)
	if err != nil {
		return err
	}
	if ru.cfg.CommentID == "" {
		ru.cfg.CommentID = defaultCommentID(target.workflow, target.tests)
	}
	an := &analysis{Reports: reps}
	if rc != nil {
		an.Status, an.Skipped = rc.Status, rc.Skipped
	}
	if an.Status == "" && len(reps) == 0 {
		an.Status = StatusNoFailingTests
	}
	ru.status, ru.verdict = overallStatus(an), an
	ru.culprits = culpritCount(reps)
	if len(reps) > 0 {
		ru.reportJSON = ru.cfg.ReportJSON
	}
	ru.summary(reps, an.Skipped)
	if ru.cfg.Annotations {
		ru.annotate(reps)
	}
	details := target.url
	if details == "" {
		details = ru.detailsURL()
	}
	return ru.post(ctx, client(target.number), target.head, reps, details)
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
	id := ""
	if ru.commentID != 0 {
		id = strconv.FormatInt(ru.commentID, 10)
	}
	out := [][2]string{{"status", ru.status}, {"culprits", strconv.Itoa(ru.culprits)}, {"report-json", ru.reportJSON},
		{"comment-id", id}, {"comment-url", ru.commentURL}}
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

// summary writes the full reports to the job summary, rendered and
// neutralised as the comment is (jobSummary).
func (ru *run) summary(reps []*result.Report, skipped int) {
	body := jobSummary(reps, ru.status, skipped)
	if ru.Getenv("GITHUB_STEP_SUMMARY") == "" {
		infof(ru.a, "%s", body)
		return
	}
	ru.a.AddStepSummary(body)
}

// annotate emits the reports' annotations, once per run.
func (ru *run) annotate(reps []*result.Report) {
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
