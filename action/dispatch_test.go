package action_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDispatchedAnalyzeReadsTheCheckout checks that an analyze run started
// by workflow_dispatch takes the pull request's base and head from GitHub's
// merge commit in the checkout, so that its job needs no pull-requests
// permission, and reads the pull request through the API only when the
// checkout lacks that commit.
func TestDispatchedAnalyzeReadsTheCheckout(t *testing.T) {
	for _, tc := range []struct {
		name     string
		mergeRef bool
		calls    map[string]int
	}{
		{"merge commit checked out", true, map[string]int{}},
		{"head checked out", false, map[string]int{getPR: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo := loadScenario(t, nil)
			if tc.mergeRef {
				merge := gitOut(t, repo.Dir, "commit-tree", repo.Head+"^{tree}", "-p", repo.Base, "-p", repo.Head, "-m", "Merge")
				gitOut(t, repo.Dir, "update-ref", "refs/remotes/pull/7/merge", merge)
			}
			srv := newServer(t, repo)
			payload := map[string]any{"inputs": map[string]any{"pr-number": "7", "tests": ""}}
			env := newRunnerEnv(t, srv, repo, "workflow_dispatch", payload).
				set("INPUT_TEST_RESULTS", goTestJSON(t, repo.Dir), "INPUT_MODE", "analyze")
			ex := &canned{}
			if err := env.run(ex); err != nil {
				t.Fatalf("run: %v\n%s", err, env.out.String())
			}
			diffCalls(t, srv, tc.calls)
			if len(ex.reqs) == 0 {
				t.Fatalf("nothing was explained\n%s", env.out.String())
			}
			type revs struct{ Base, Head string }
			if d := cmp.Diff(revs{repo.Base, repo.Head}, revs{ex.reqs[0].Base, ex.reqs[0].Head}); d != "" {
				t.Errorf("revisions (-want +got):\n%s", d)
			}
		})
	}
}

func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out))
}

// TestDispatchedAnalyzeIsPinned: a dispatch that names head-sha (the pull
// request's head when /culprit was written) analyzes that commit or
// nothing: a pull request that moved on since is refused before any test
// runs, and so is a head-sha that is not a commit SHA.
func TestDispatchedAnalyzeIsPinned(t *testing.T) {
	for _, tc := range []struct {
		name    string
		pin     func(*scenarioRevs) string
		wantErr string
	}{
		{"pinned to the head", func(r *scenarioRevs) string { return r.head }, ""},
		{"the PR moved on", func(r *scenarioRevs) string { return r.base }, "not analyzing another commit in its place"},
		{"not a SHA", func(*scenarioRevs) string { return "main" }, "is not a full commit SHA"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo := loadScenario(t, nil)
			merge := gitOut(t, repo.Dir, "commit-tree", repo.Head+"^{tree}", "-p", repo.Base, "-p", repo.Head, "-m", "Merge")
			gitOut(t, repo.Dir, "update-ref", "refs/remotes/pull/7/merge", merge)
			srv := newServer(t, repo)
			pin := tc.pin(&scenarioRevs{base: repo.Base, head: repo.Head})
			payload := map[string]any{"inputs": map[string]any{"pr-number": "7", "tests": "", "head-sha": pin}}
			env := newRunnerEnv(t, srv, repo, "workflow_dispatch", payload).
				set("INPUT_TEST_RESULTS", goTestJSON(t, repo.Dir), "INPUT_MODE", "analyze")
			ex := &canned{}
			err := env.run(ex)
			if tc.wantErr == "" {
				if err != nil || len(ex.reqs) == 0 || ex.reqs[0].Head != repo.Head {
					t.Fatalf("run: %v, requests %+v\n%s", err, ex.reqs, env.out.String())
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("err %v, want one saying %q", err, tc.wantErr)
			}
			if len(ex.reqs) != 0 {
				t.Errorf("analyzed %+v although the pin did not hold", ex.reqs)
			}
			if got := env.outputs()["status"]; got != "error" {
				t.Errorf("status %q, want error", got)
			}
		})
	}
}

type scenarioRevs struct{ base, head string }

// TestIssueCommentEvent: a run on issue_comment analyzes the pull request
// commented on, or the one pr-number names, and warns that it runs PR code
// from the default branch; a comment on a plain issue is an error that
// names the problem.
func TestIssueCommentEvent(t *testing.T) {
	for _, tc := range []struct {
		name     string
		issue    map[string]any
		prNumber string
		wantErr  string
	}{
		{"comment on the pull request", map[string]any{"number": 7, "pull_request": map[string]any{"url": "x"}}, "", ""},
		{"pr-number on an issue", map[string]any{"number": 3}, "7", ""},
		{"comment on an issue", map[string]any{"number": 3}, "", "issue #3, which is not a pull request"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo := loadScenario(t, nil)
			srv := newServer(t, repo)
			payload := map[string]any{"action": "created", "issue": tc.issue, "comment": map[string]any{"body": "/culprit"}}
			env := newRunnerEnv(t, srv, repo, "issue_comment", payload).
				set("INPUT_TEST_RESULTS", goTestJSON(t, repo.Dir), "INPUT_MODE", "analyze", "INPUT_PR_NUMBER", tc.prNumber)
			ex := &canned{}
			err := env.run(ex)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Errorf("err %v, want one saying %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || len(ex.reqs) == 0 || ex.reqs[0].Head != repo.Head {
				t.Fatalf("run: %v, requests %+v\n%s", err, ex.reqs, env.out.String())
			}
			if !strings.Contains(env.out.String(), "::warning::culprit runs pull request #7's tests in an issue_comment run") {
				t.Errorf("no warning about running PR code from the default branch:\n%s", env.out.String())
			}
		})
	}
}
