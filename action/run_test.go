package action_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/culprit-dev/culprit/analyzer"
	"github.com/culprit-dev/culprit/analyzer/trial"
	"github.com/google/go-cmp/cmp"
)

const (
	listComments  = "GET /repos/octo/calc/issues/7/comments"
	createComment = "POST /repos/octo/calc/issues/7/comments"
	listReview    = "GET /repos/octo/calc/pulls/7/comments"
	createReview  = "POST /repos/octo/calc/pulls/7/reviews"
	getPR         = "GET /repos/octo/calc/pulls/7"
	// stickyMarker marks the sticky comment of a run in the workflow
	// newRunnerEnv names, with no job and no comment-id: the id derived
	// from the workflow alone.
	stickyMarker = "<!-- culprit:report:culprit -->"
)

func TestRunCreatesThenEditsOneComment(t *testing.T) {
	repo := loadScenario(t, nil)
	srv := newServer(t, repo)
	results := goTestJSON(t, repo.Dir)
	ex := &canned{}
	for i := 0; i < 2; i++ {
		env := newRunnerEnv(t, srv, repo, "pull_request", prPayload(repo, repo.Base, repo.Head)).
			set("INPUT_TEST_RESULTS", results)
		if i == 1 {
			// Another finding (one more root hunk): the comment's text
			// changes.
			ex.hunks = 1
		}
		if err := env.run(ex); err != nil {
			t.Fatalf("run %d: %v\n%s", i+1, err, env.out.String())
		}
		out := env.outputs()
		if out["status"] != "explained" || out["culprits"] != strconv.Itoa(2+i) {
			t.Errorf("run %d: outputs %v", i+1, out)
		}
		if _, err := os.Stat(out["report-json"]); err != nil {
			t.Errorf("run %d: report-json: %v", i+1, err)
		}
		// Both runs name the one sticky comment: created, then updated.
		if posted := srv.IssueComments(prNum); len(posted) != 1 || out["comment-id"] != strconv.FormatInt(posted[0].ID, 10) ||
			out["comment-url"] == "" || out["comment-url"] != posted[0].HTMLURL {
			t.Errorf("run %d: comment outputs %q %q, comments %+v", i+1, out["comment-id"], out["comment-url"], posted)
		}
		if !strings.Contains(env.summary(), "TestF") {
			t.Errorf("run %d: the summary does not name TestF:\n%s", i+1, env.summary())
		}
	}
	want := analyzer.Request{Dir: repo.Dir, Base: repo.Base, Head: repo.Head, Mode: trial.ModeGo,
		Test:    analyzer.TestRef{Package: "./calc", Name: "TestF"},
		Options: analyzer.Options{Strategy: analyzer.StrategyAfter, Budget: analyzer.DefaultBudget, EnvPassthrough: []string{}}}
	if d := cmp.Diff([]analyzer.Request{want, want}, ex.reqs); d != "" {
		t.Errorf("requests (-want +got):\n%s", d)
	}
	comments := srv.IssueComments(prNum)
	diffCalls(t, srv, map[string]int{
		"GET /user":   2,
		listComments:  2,
		createComment: 1,
		"PATCH /repos/octo/calc/issues/comments/" + itoa(comments[0].ID): 1,
		listReview: 2,
		// The second run's new culprit line gets a review comment of its
		// own; the two lines the first run commented on keep theirs.
		createReview: 2,
	})
	if len(comments) != 1 || !strings.HasPrefix(comments[0].Body, stickyMarker) {
		t.Fatalf("comments: %+v", comments)
	}
	if !strings.Contains(comments[0].Body, "/culprit") || !strings.Contains(comments[0].Body, "https://github.example/octo/calc/actions/runs/4242") {
		t.Errorf("the comment lacks the rerun hint or the run link:\n%s", comments[0].Body)
	}
	var lines []int
	for _, c := range srv.ReviewComments(prNum) {
		lines = append(lines, c.Line)
	}
	if d := cmp.Diff([]int{8, 17, 1}, lines); d != "" {
		t.Errorf("review comment lines (-want +got):\n%s", d)
	}
}

// A run whose comment would say what the comment already says leaves it
// alone: no edit, and the outputs still name it.
func TestRunKeepsAnUnchangedComment(t *testing.T) {
	repo := loadScenario(t, nil)
	srv := newServer(t, repo)
	results := goTestJSON(t, repo.Dir)
	for i := 0; i < 2; i++ {
		env := newRunnerEnv(t, srv, repo, "pull_request", prPayload(repo, repo.Base, repo.Head)).
			set("INPUT_TEST_RESULTS", results, "INPUT_REVIEW_COMMENTS", "false")
		if err := env.run(&canned{}); err != nil {
			t.Fatalf("run %d: %v\n%s", i+1, err, env.out.String())
		}
		if posted := srv.IssueComments(prNum); len(posted) != 1 || env.outputs()["comment-id"] != strconv.FormatInt(posted[0].ID, 10) {
			t.Errorf("run %d: comment-id %q, comments %d", i+1, env.outputs()["comment-id"], len(posted))
		}
	}
	diffCalls(t, srv, map[string]int{"GET /user": 2, listComments: 2, createComment: 1})
}

// comment: off posts no comment; a bad value is refused before any work.
func TestRunCommentOff(t *testing.T) {
	repo := loadScenario(t, nil)
	srv := newServer(t, repo)
	env := newRunnerEnv(t, srv, repo, "pull_request", prPayload(repo, repo.Base, repo.Head)).
		set("INPUT_TEST_RESULTS", goTestJSON(t, repo.Dir), "INPUT_COMMENT", "off", "INPUT_REVIEW_COMMENTS", "false")
	if err := env.run(&canned{}); err != nil {
		t.Fatalf("run: %v\n%s", err, env.out.String())
	}
	diffCalls(t, srv, map[string]int{})
	if out := env.outputs(); out["status"] != "explained" || out["comment-id"] != "" {
		t.Errorf("outputs: %v", out)
	}
	bad := newRunnerEnv(t, srv, repo, "pull_request", prPayload(repo, repo.Base, repo.Head)).
		set("INPUT_TEST_RESULTS", goTestJSON(t, repo.Dir), "INPUT_COMMENT", "sometimes")
	if err := bad.run(&canned{}); err == nil || !strings.Contains(err.Error(), `input comment: "sometimes"`) {
		t.Errorf("comment: sometimes: %v", err)
	}
}

func TestRunReadOnlyTokenFallsBackToAnnotations(t *testing.T) {
	repo := loadScenario(t, nil)
	srv := newServer(t, repo)
	srv.ReadOnly = true
	env := newRunnerEnv(t, srv, repo, "pull_request", prPayload(repo, repo.Base, repo.Head)).
		set("INPUT_TEST_RESULTS", goTestJSON(t, repo.Dir), "INPUT_ANNOTATIONS", "false")
	if err := env.run(&canned{}); err != nil {
		t.Fatalf("run: %v\n%s", err, env.out.String())
	}
	diffCalls(t, srv, map[string]int{"GET /user": 1, listComments: 1, createComment: 1})
	log := env.out.String()
	for _, want := range []string{
		"::warning::culprit: the token cannot write to the pull request",
		"file=calc/calc.go,line=8,title=",
		"file=calc/calc.go,line=17,title=",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("the log lacks %q:\n%s", want, log)
		}
	}
	if env.outputs()["status"] != "explained" {
		t.Errorf("outputs: %v", env.outputs())
	}
}

func TestRunLongReportFitsInOneComment(t *testing.T) {
	repo := loadScenario(t, nil)
	srv := newServer(t, repo)
	long := strings.Repeat("-\tx := \"ünïcödé padding to make the report long\"\n", 400)
	env := newRunnerEnv(t, srv, repo, "pull_request", prPayload(repo, repo.Base, repo.Head)).
		set("INPUT_TEST_RESULTS", goTestJSON(t, repo.Dir), "INPUT_REVIEW_COMMENTS", "false")
	if err := env.run(&canned{diff: long, hunks: 40}); err != nil {
		t.Fatalf("run: %v\n%s", err, env.out.String())
	}
	diffCalls(t, srv, map[string]int{"GET /user": 1, listComments: 1, createComment: 1})
	body := srv.IssueComments(prNum)[0].Body
	if n := utf8.RuneCountInString(body); n >= 65536 || !strings.HasPrefix(body, stickyMarker) {
		t.Errorf("comment of %d characters, marker %v", n, strings.HasPrefix(body, stickyMarker))
	}
}

func TestRunRateLimitedOnce(t *testing.T) {
	repo := loadScenario(t, nil)
	srv := newServer(t, repo)
	srv.RateLimit = map[string]string{createComment: "secondary", createReview: "primary"}
	env := newRunnerEnv(t, srv, repo, "pull_request", prPayload(repo, repo.Base, repo.Head)).
		set("INPUT_TEST_RESULTS", goTestJSON(t, repo.Dir))
	if err := env.run(&canned{}); err != nil {
		t.Fatalf("run: %v\n%s", err, env.out.String())
	}
	diffCalls(t, srv, map[string]int{"GET /user": 1, listComments: 1, createComment: 2, listReview: 1, createReview: 2})
	if n := len(srv.IssueComments(prNum)); n != 1 {
		t.Errorf("%d comments, want 1", n)
	}
}

func TestRunCommentPaginated(t *testing.T) {
	repo := loadScenario(t, nil)
	srv := newServer(t, repo)
	srv.PageSize = 3
	for i := 0; i < 4; i++ {
		srv.AddIssueComment(prNum, "alice", "comment")
	}
	old := srv.AddIssueComment(prNum, "github-actions[bot]", stickyMarker+"\nold run")
	env := newRunnerEnv(t, srv, repo, "pull_request", prPayload(repo, repo.Base, repo.Head)).
		set("INPUT_TEST_RESULTS", goTestJSON(t, repo.Dir), "INPUT_REVIEW_COMMENTS", "false")
	if err := env.run(&canned{}); err != nil {
		t.Fatalf("run: %v\n%s", err, env.out.String())
	}
	diffCalls(t, srv, map[string]int{"GET /user": 1, listComments: 2, "PATCH /repos/octo/calc/issues/comments/" + itoa(old.ID): 1})
}

// TestForkSafePattern runs the two halves: analyze on pull_request with a
// read-only token (no write call at all), then comment on workflow_run with
// the report directory as the downloaded artifact.
func TestForkSafePattern(t *testing.T) {
	repo := loadScenario(t, nil)
	srv := newServer(t, repo)
	artifact := analyzeArtifact(t, srv, repo)
	diffCalls(t, srv, map[string]int{})
	posted := map[string]int{getPR: 1, "GET /user": 1, listComments: 1, createComment: 1, listReview: 1, createReview: 1}

	other := map[string]any{"number": float64(prNum + 2)}
	self := map[string]any{"number": float64(prNum)}
	for _, tc := range []struct {
		name     string
		event    string
		title    string // the run's display title
		runHead  string
		prs      []any  // the event's pull_requests
		headRepo string // the event's head_repository; "" is octo/calc
		wantErr  bool
		calls    map[string]int
	}{
		{name: "other commit", event: "pull_request", runHead: repo.Base, wantErr: true, calls: map[string]int{}},
		{name: "head", event: "pull_request", runHead: repo.Head, calls: posted},
		{name: "head, PR in the event", event: "pull_request", runHead: repo.Head, prs: []any{self}, calls: posted},
		// The event decides: a report naming another PR than the event's
		// is refused before any call.
		{name: "event lists another PR", event: "pull_request", runHead: repo.Head, prs: []any{other}, wantErr: true, calls: map[string]int{}},
		// A fork's run lists no PR; the PR the report names must come
		// from the repository the run's branch is in.
		{name: "PR of another head repository", event: "pull_request", runHead: repo.Head, headRepo: "mallory/calc", wantErr: true, calls: map[string]int{getPR: 1}},
		// A dispatched run's head_sha is the default branch's; its PR is
		// the one its run-name names, and the report must agree.
		{name: "dispatch", event: "workflow_dispatch", title: "culprit #" + strconv.Itoa(prNum), runHead: repo.Base, calls: posted},
		{name: "dispatch pinned to the head", event: "workflow_dispatch", title: "culprit #" + strconv.Itoa(prNum) + " @ " + repo.Head, runHead: repo.Base, calls: posted},
		{name: "dispatch pinned to another commit", event: "workflow_dispatch", title: "culprit #" + strconv.Itoa(prNum) + " @ " + repo.Base, runHead: repo.Base, wantErr: true, calls: map[string]int{}},
		{name: "dispatch for another PR", event: "workflow_dispatch", title: "culprit #" + strconv.Itoa(prNum+1), runHead: repo.Base, wantErr: true, calls: map[string]int{}},
		{name: "dispatch without a PR in its name", event: "workflow_dispatch", title: "culprit", runHead: repo.Base, wantErr: true, calls: map[string]int{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newServer(t, repo)
			if tc.prs == nil {
				tc.prs = []any{}
			}
			if tc.headRepo == "" {
				tc.headRepo = "octo/calc"
			}
			env := commentEnv(t, srv, map[string]any{
				"name": "culprit", "event": tc.event, "conclusion": "failure", "head_sha": tc.runHead,
				"display_title":   tc.title,
				"html_url":        "https://github.example/octo/calc/actions/runs/99",
				"pull_requests":   tc.prs,
				"head_repository": map[string]any{"full_name": tc.headRepo},
			}, artifact)
			err := env.run(nil)
			if (err != nil) != tc.wantErr {
				t.Fatalf("comment: %v, want error %v\n%s", err, tc.wantErr, env.out.String())
			}
			diffCalls(t, srv, tc.calls)
			if !tc.wantErr {
				body := srv.IssueComments(prNum)[0].Body
				if !strings.Contains(body, "actions/runs/99") {
					t.Errorf("the comment does not link the analyze run:\n%s", body)
				}
				if env.outputs()["status"] != "explained" {
					t.Errorf("outputs %v", env.outputs())
				}
			}
		})
	}
}

// TestCommentKeyFromCoverage: the comment job keys its comment by what the
// analysis covered (the analyzing workflow and the tests it was asked
// for), not by its own job. A dispatched "/culprit TestOK" whose test
// passes leaves the explanation of the pull request's failing tests alone;
// a later run over the same tests (every failing test) that finds none
// marks that explanation stale.
func TestCommentKeyFromCoverage(t *testing.T) {
	repo := loadScenario(t, nil)
	srv := newServer(t, repo)
	artifact := analyzeArtifact(t, srv, repo)
	srv = newServer(t, repo)
	passing := t.TempDir()
	ctx := fmt.Sprintf(`{"repository": "octo/calc", "pr": %d, "head": %q, "status": "no-failing-tests"}`, prNum, repo.Head)
	if err := os.WriteFile(filepath.Join(passing, "culprit-pr.json"), []byte(ctx), 0o644); err != nil {
		t.Fatal(err)
	}
	comment := func(title, event, artifact string) {
		t.Helper()
		env := commentEnv(t, srv, map[string]any{
			"name": "culprit", "event": event, "conclusion": "success", "head_sha": repo.Head,
			"display_title": title, "pull_requests": []any{},
			"head_repository": map[string]any{"full_name": "octo/calc"},
		}, artifact).set("INPUT_REVIEW_COMMENTS", "false")
		if err := env.run(nil); err != nil {
			t.Fatalf("comment for %q: %v\n%s", title, err, env.out.String())
		}
	}
	pin := " @ " + repo.Head
	comment("culprit", "pull_request", artifact)
	first := srv.IssueComments(prNum)
	if len(first) != 1 || !strings.HasPrefix(first[0].Body, "<!-- culprit:report:culprit -->\n") {
		t.Fatalf("comments after the pull_request run: %+v", first)
	}
	comment("culprit #"+strconv.Itoa(prNum)+pin+" [TestOK]", "workflow_dispatch", passing)
	if got := srv.IssueComments(prNum); len(got) != 1 || got[0].Body != first[0].Body {
		t.Errorf("a run over TestOK alone changed the comment about every failing test:\n%+v", got)
	}
	comment("culprit #"+strconv.Itoa(prNum)+pin, "workflow_dispatch", passing)
	got := srv.IssueComments(prNum)
	if len(got) != 1 || !strings.Contains(got[0].Body, "earlier findings no longer apply") {
		t.Errorf("a passing run over every failing test did not mark the comment stale:\n%+v", got)
	}
}

func itoa(n int64) string { return fmtInt(n) }

// TestForgedArtifact: the report directory comes from a run of the pull
// request's code. A status carrying newlines and workflow commands is
// refused before any API call, is never written to the outputs, and
// reaches the log only inside one escaped ::error:: line.
func TestForgedArtifact(t *testing.T) {
	repo := loadScenario(t, nil)
	srv := newServer(t, repo)
	artifact := analyzeArtifact(t, srv, repo)
	ctxFile := filepath.Join(artifact, "culprit-pr.json")
	data, err := os.ReadFile(ctxFile)
	if err != nil {
		t.Fatal(err)
	}
	forged := strings.Replace(string(data), `"status": "explained"`,
		`"status": "explained\n::add-mask::x\r::stop-commands::tok\nculprits<<_GitHubActionsFileCommandDelimeter_\n9"`, 1)
	if forged == string(data) {
		t.Fatalf("culprit-pr.json has no explained status:\n%s", data)
	}
	if err := os.WriteFile(ctxFile, []byte(forged), 0o644); err != nil {
		t.Fatal(err)
	}

	srv = newServer(t, repo)
	env := commentEnv(t, srv, map[string]any{
		"event": "pull_request", "conclusion": "failure", "head_sha": repo.Head,
		"pull_requests": []any{},
	}, artifact)
	if err := env.run(nil); err == nil {
		t.Fatalf("a forged status was accepted\n%s", env.out.String())
	}
	diffCalls(t, srv, map[string]int{})
	if got := env.outputs(); got["status"] != "error" || got["culprits"] != "0" || got["comment-id"] != "" || len(got) != 5 {
		t.Errorf("outputs %q", got)
	}
	errors := 0
	for _, l := range strings.FieldsFunc(env.out.String(), func(r rune) bool { return r == '\n' || r == '\r' }) {
		l = strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(l, "::error::"):
			errors++
		case strings.HasPrefix(l, "::add-mask::x"), strings.HasPrefix(l, "::stop-commands::"):
			t.Errorf("forged workflow command in the log: %q", l)
		}
	}
	if errors != 1 {
		t.Errorf("%d ::error:: lines, want 1:\n%s", errors, env.out.String())
	}
}

// TestCommentIDsKeepRunsApart: two culprit runs on one pull request with
// different comment-ids (a matrix) each keep their own sticky comment and
// review comments; a rerun of one edits its own comment only.
func TestCommentIDsKeepRunsApart(t *testing.T) {
	repo := loadScenario(t, nil)
	srv := newServer(t, repo)
	artifact := analyzeArtifact(t, srv, repo)

	srv = newServer(t, repo)
	comment := func(id string) {
		t.Helper()
		env := commentEnv(t, srv, map[string]any{
			"event": "pull_request", "conclusion": "failure", "head_sha": repo.Head,
			"pull_requests": []any{},
		}, artifact).set("INPUT_COMMENT_ID", id)
		if err := env.run(nil); err != nil {
			t.Fatalf("comment %s: %v\n%s", id, err, env.out.String())
		}
	}
	comment("linux")
	comment("windows")
	comment("linux")
	if n := len(srv.IssueComments(prNum)); n != 2 {
		t.Errorf("%d sticky comments, want one per comment-id", n)
	}
	for _, id := range []string{"linux", "windows"} {
		found := 0
		for _, c := range srv.IssueComments(prNum) {
			if strings.Contains(c.Body, "<!-- culprit:report:"+id+" -->") {
				found++
			}
		}
		if found != 1 {
			t.Errorf("comment-id %s: %d sticky comments, want 1", id, found)
		}
		reviews := 0
		for _, c := range srv.ReviewComments(prNum) {
			if strings.Contains(c.Body, "<!-- culprit["+id+"]:") {
				reviews++
			}
		}
		if reviews == 0 {
			t.Errorf("comment-id %s: no review comments of its own", id)
		}
	}
}

// TestDefaultCommentIDKeepsJobsApart: without comment-id, runs of two jobs
// on one pull request each keep their own sticky comment and review
// comments, and a rerun of one job touches its own comment only (it finds
// the same, so the comment stays as it is).
func TestDefaultCommentIDKeepsJobsApart(t *testing.T) {
	repo := loadScenario(t, nil)
	srv := newServer(t, repo)
	results := goTestJSON(t, repo.Dir)
	run := func(job string) {
		t.Helper()
		env := newRunnerEnv(t, srv, repo, "pull_request", prPayload(repo, repo.Base, repo.Head)).
			set("INPUT_TEST_RESULTS", results, "GITHUB_JOB", job)
		if err := env.run(&canned{}); err != nil {
			t.Fatalf("run of job %s: %v\n%s", job, err, env.out.String())
		}
	}
	run("linux")
	run("windows")
	first := srv.IssueComments(prNum)
	run("linux")
	diffCalls(t, srv, map[string]int{
		"GET /user":   3,
		listComments:  3,
		createComment: 2,
		listReview:    3,
		createReview:  2,
	})
	type sticky struct {
		ID     int64
		Marker string
	}
	var got []sticky
	for _, c := range srv.IssueComments(prNum) {
		marker, _, _ := strings.Cut(c.Body, "\n")
		got = append(got, sticky{c.ID, marker})
	}
	want := []sticky{
		{first[0].ID, "<!-- culprit:report:culprit.linux -->"},
		{first[1].ID, "<!-- culprit:report:culprit.windows -->"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("sticky comments (-want +got):\n%s", d)
	}
	reviews := map[string]int{}
	for _, c := range srv.ReviewComments(prNum) {
		for _, job := range []string{"linux", "windows"} {
			if strings.Contains(c.Body, "<!-- culprit[culprit."+job+"]:") {
				reviews[job]++
			}
		}
	}
	if d := cmp.Diff(map[string]int{"linux": 2, "windows": 2}, reviews); d != "" {
		t.Errorf("review comments by job (-want +got):\n%s", d)
	}
}

// TestFailOn: by default a run whose tests failed fails the step, so that
// a workflow whose test step continues on error does not end green; the
// status output keeps the verdict. fail-on narrows that to regressions or
// to culprit's own errors, and a run without failing tests never fails.
func TestFailOn(t *testing.T) {
	repo := loadScenario(t, nil)
	failing := goTestJSON(t, repo.Dir)
	passing := filepath.Join(t.TempDir(), "pass.json")
	os.WriteFile(passing, []byte(`{"Action":"pass","Package":"example.com/calc/calc","Test":"TestF","Elapsed":0}
{"Action":"pass","Package":"example.com/calc/calc","Elapsed":0}
`), 0o644)
	for _, tc := range []struct {
		failOn, results string
		wantFail        bool
		wantStatus      string
	}{
		{"", failing, true, "explained"},
		{"test-failures", failing, true, "explained"},
		{"regressions", failing, true, "explained"},
		{"errors", failing, false, "explained"},
		{"", passing, false, "no-failing-tests"},
		{"bogus", failing, true, "error"},
	} {
		t.Run(tc.failOn+"/"+tc.wantStatus, func(t *testing.T) {
			srv := newServer(t, repo)
			env := newRunnerEnv(t, srv, repo, "pull_request", prPayload(repo, repo.Base, repo.Head)).
				set("INPUT_TEST_RESULTS", tc.results, "INPUT_FAIL_ON", tc.failOn, "INPUT_COMMENT", "false", "INPUT_REVIEW_COMMENTS", "false")
			err := env.run(&canned{})
			if (err != nil) != tc.wantFail {
				t.Fatalf("run: %v, want failure %v\n%s", err, tc.wantFail, env.out.String())
			}
			if got := env.outputs()["status"]; got != tc.wantStatus {
				t.Errorf("status output %q, want %q", got, tc.wantStatus)
			}
			if tc.wantFail && tc.wantStatus != "error" && !strings.Contains(env.out.String(), "::error::culprit: failing the step: ") {
				t.Errorf("no error line says why the step fails:\n%s", env.out.String())
			}
		})
	}
}
