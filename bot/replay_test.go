package bot

import (
	"crypto/sha1"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/culprit-dev/culprit/internal/fakegh"
	"github.com/google/go-cmp/cmp"
)

// published is a payload GitHub published in octokit/webhooks'
// payload-examples, copied verbatim (testdata/octokit/README.md).
func published(t testing.TB, path string) []byte {
	t.Helper()
	return fixture(t, filepath.Join("octokit", filepath.FromSlash(path)))
}

// The repositories of the published payloads: the issue_comment
// examples' and the workflow_run examples'. Neither has culprit.yml; the
// fake API is given it, with the example workflow's inputs.
const (
	helloWorld = "Codertocat/Hello-World"
	octoRepo   = "octo-org/octo-repo"
	// The head commit of the published workflow runs.
	publishedRunHead = "3484a3fb816e0859fd6e1cea078d76385ff50625"
)

// replayAPI is the API of repository fullName ("owner/name"), whose
// default branch is "master" as in the published payloads, where
// Codertocat is an admin.
func replayAPI(t testing.TB, fullName string) *fakegh.Server {
	t.Helper()
	owner, name, _ := strings.Cut(fullName, "/")
	api := fakegh.New(t, owner, name, testToken)
	api.DefaultBranch = "master"
	api.Permissions = map[string]string{"Codertocat": "admin"}
	api.Workflows = map[string][]string{DefaultWorkflow: exampleInputs(t)}
	return api
}

// TestReplayPublishedPayloads replays GitHub's published example
// deliveries, signed as GitHub signs them, through the server and the
// fake API: those the bot ignores as published, and those it acts on
// with the changes named in each case (a pull request's comment, a
// failed run, a fork's pull request).
func TestReplayPublishedPayloads(t *testing.T) {
	created := published(t, "api.github.com/issue_comment/created.with-installation.payload.json")
	// onPullRequest makes the published comment (on issue 1) one on pull
	// request 1 saying body: GitHub's issue_comment for a pull request's
	// conversation differs only in issue.pull_request.
	onPullRequest := func(body string) []byte {
		return edit(t, created, map[string]any{
			"issue.pull_request": map[string]any{
				"url":       "https://api.github.com/repos/Codertocat/Hello-World/pulls/1",
				"html_url":  "https://github.com/Codertocat/Hello-World/pull/1",
				"diff_url":  "https://github.com/Codertocat/Hello-World/pull/1.diff",
				"patch_url": "https://github.com/Codertocat/Hello-World/pull/1.patch",
				"merged_at": nil,
			},
			"comment.body": body,
		})
	}
	completed := published(t, "api.github.com/workflow_run/completed.payload.json")
	// forkRun is the published completed run (pull_requests already
	// empty) made the failed run of a pull request from branch fix-sum of
	// the fork Codertocat/octo-repo: GitHub lists no pull request in the
	// run of a fork's pull request.
	forkRun := edit(t, completed, map[string]any{
		"workflow_run.conclusion":                       "failure",
		"workflow_run.event":                            "pull_request",
		"workflow_run.head_branch":                      "fix-sum",
		"workflow_run.head_repository.id":               312345678,
		"workflow_run.head_repository.name":             "octo-repo",
		"workflow_run.head_repository.full_name":        "Codertocat/octo-repo",
		"workflow_run.head_repository.owner.login":      "Codertocat",
		"workflow_run.head_repository.fork":             true,
		"workflow_run.head_repository.html_url":         "https://github.com/Codertocat/octo-repo",
		"workflow_run.head_repository.url":              "https://api.github.com/repos/Codertocat/octo-repo",
		"workflow_run.pull_requests":                    []any{},
		"workflow_run.head_repository.owner.html_url":   "https://github.com/Codertocat",
		"workflow_run.head_repository.owner.url":        "https://api.github.com/users/Codertocat",
		"workflow_run.head_repository.owner.type":       "User",
		"workflow_run.head_repository.owner.id":         21031067,
		"workflow_run.head_repository.owner.node_id":    "MDQ6VXNlcjIxMDMxMDY3",
		"workflow_run.head_repository.owner.site_admin": false,
	})
	// The fork's pull request as the API answers it, by a contributor.
	forkPR := fakegh.PR{Number: 7, HeadSHA: publishedRunHead, HeadRef: "fix-sum", HeadRepo: "Codertocat/octo-repo",
		Author: "Codertocat", AuthorAssociation: "CONTRIBUTOR"}
	listPulls := "GET /repos/octo-org/octo-repo/pulls"
	dispatchOcto := "POST /repos/octo-org/octo-repo/actions/workflows/culprit.yml/dispatches"
	pinned := func(pr, tests, head string) []fakegh.Dispatch {
		return []fakegh.Dispatch{{Workflow: DefaultWorkflow, Ref: "master", Inputs: map[string]string{"pr-number": pr, "tests": tests, "head-sha": head}}}
	}
	hello := func(call string) string { return strings.Replace(call, "{}", "/repos/Codertocat/Hello-World", 1) }

	tests := []struct {
		name       string
		event      string
		body       []byte
		repo       string            // the repository the bot serves and the API fakes
		prs        []fakegh.PR       // the repository's pull requests
		pageSize   int               // the API's, if not 100
		wantStatus int               //
		want       []string          // "METHOD path" of every API call, in order
		wantSent   []fakegh.Dispatch // the dispatches
		wantUsage  bool              // one reply on pull request 1, the usage
	}{
		// As published.
		{name: "ping", event: "ping", body: published(t, "api.github.com/ping/with-app_id.payload.json"),
			repo: octoRepo, wantStatus: http.StatusOK},
		{name: "comment on an issue", event: "issue_comment", body: created,
			repo: helloWorld, wantStatus: http.StatusNoContent},
		{name: "edited comment", event: "issue_comment", body: published(t, "api.github.com/issue_comment/edited.payload.json"),
			repo: helloWorld, wantStatus: http.StatusNoContent},
		{name: "GHES 3.5 comment on an issue", event: "issue_comment", body: published(t, "ghes-35/issue_comment/created.json"),
			repo: helloWorld, wantStatus: http.StatusNoContent},
		{name: "requested run", event: "workflow_run", body: published(t, "api.github.com/workflow_run/requested.payload.json"),
			repo: octoRepo, wantStatus: http.StatusNoContent},
		{name: "successful run", event: "workflow_run", body: completed,
			repo: octoRepo, wantStatus: http.StatusNoContent},
		{name: "successful run with a pull request", event: "workflow_run",
			body: published(t, "api.github.com/workflow_run/completed.with-pull-requests.payload.json"),
			repo: octoRepo, wantStatus: http.StatusNoContent},

		// Made a failure: the one pull request listed is of another
		// repository (Codertocat/Hello-World), and the head is the
		// repository's own branch.
		{name: "failed run listing another repository's pull request", event: "workflow_run",
			body: edit(t, published(t, "api.github.com/workflow_run/completed.with-pull-requests.payload.json"),
				map[string]any{"workflow_run.conclusion": "failure"}),
			repo: octoRepo, wantStatus: http.StatusNoContent},

		// Made a /culprit on a pull request.
		{name: "command", event: "issue_comment", body: onPullRequest("/culprit TestHello"),
			repo: helloWorld, prs: []fakegh.PR{{Number: 1, HeadSHA: prHead}}, wantStatus: http.StatusAccepted,
			want: []string{hello("GET {}/collaborators/Codertocat/permission"), hello("GET {}/pulls/1"),
				hello("POST {}/issues/comments/492700400/reactions"), hello("POST {}/actions/workflows/culprit.yml/dispatches")},
			wantSent: pinned("1", "TestHello", prHead)},
		{name: "words after the command", event: "issue_comment", body: onPullRequest("/culprit explain this failure"),
			repo: helloWorld, prs: []fakegh.PR{{Number: 1, HeadSHA: prHead}}, wantStatus: http.StatusAccepted,
			want:      []string{hello("GET {}/collaborators/Codertocat/permission"), hello("POST {}/issues/1/comments")},
			wantUsage: true},
		{name: "near miss", event: "issue_comment", body: onPullRequest("/culprit."),
			repo: helloWorld, prs: []fakegh.PR{{Number: 1, HeadSHA: prHead}}, wantStatus: http.StatusAccepted,
			want:      []string{hello("GET {}/collaborators/Codertocat/permission"), hello("POST {}/issues/1/comments")},
			wantUsage: true},
		{name: "command in a longer fence", event: "issue_comment", body: onPullRequest("Try:\n\n````md\n```\n/culprit TestHello\n```\n````"),
			repo: helloWorld, prs: []fakegh.PR{{Number: 1, HeadSHA: prHead}}, wantStatus: http.StatusNoContent},

		// Made the failed run of a fork's pull request.
		{name: "failed run of a contributor's fork", event: "workflow_run", body: forkRun,
			repo: octoRepo, prs: []fakegh.PR{forkPR}, wantStatus: http.StatusAccepted,
			want: []string{listPulls, dispatchOcto}, wantSent: pinned("7", "", publishedRunHead)},
		{name: "failed run of a first-time contributor's fork", event: "workflow_run", body: forkRun,
			repo: octoRepo, prs: []fakegh.PR{withAssociation(forkPR, "FIRST_TIME_CONTRIBUTOR")}, wantStatus: http.StatusAccepted,
			want: []string{listPulls}},
		{name: "failed run of a fork whose pull request moved on", event: "workflow_run", body: forkRun,
			repo: octoRepo, prs: []fakegh.PR{withHead(forkPR, prHead)}, wantStatus: http.StatusAccepted,
			want: []string{listPulls}},
		{name: "failed run of a fork whose pull request is closed", event: "workflow_run", body: forkRun,
			repo: octoRepo, prs: []fakegh.PR{withState(forkPR, "closed")}, wantStatus: http.StatusAccepted,
			want: []string{listPulls}},
		{name: "failed run of a fork, the branch's pull request from another fork of the owner", event: "workflow_run", body: forkRun,
			repo: octoRepo, prs: []fakegh.PR{withHeadRepo(forkPR, "Codertocat/octo-repo-2")}, wantStatus: http.StatusAccepted,
			want: []string{listPulls}},
		{name: "failed run of a fork with two open pull requests of its head", event: "workflow_run", body: forkRun,
			repo: octoRepo, prs: []fakegh.PR{forkPR, withNumber(forkPR, 8)}, wantStatus: http.StatusAccepted,
			want: []string{listPulls}},
		{name: "failed run of a fork, its pull request on the second page", event: "workflow_run", body: forkRun,
			repo: octoRepo, prs: []fakegh.PR{forkPR, withNumber(withHeadRepo(forkPR, "Codertocat/octo-repo-2"), 9)}, pageSize: 1,
			wantStatus: http.StatusAccepted,
			want:       []string{listPulls, listPulls, dispatchOcto}, wantSent: pinned("7", "", publishedRunHead)},
		{name: "failed run of a deleted fork", event: "workflow_run",
			body: edit(t, forkRun, map[string]any{"workflow_run.head_repository": nil}),
			repo: octoRepo, prs: []fakegh.PR{forkPR}, wantStatus: http.StatusNoContent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := replayAPI(t, tt.repo)
			if tt.pageSize != 0 {
				api.PageSize = tt.pageSize
			}
			for _, p := range tt.prs {
				api.PRs[p.Number] = p
			}
			if tt.event == "issue_comment" {
				api.PutIssueComment(1, 492700400, "Codertocat", "/culprit")
			}
			cfg := testConfig(api.APIURL())
			cfg.Repo = tt.repo
			cfg.OnFailure = []string{tt.repo}
			_, url, drain := startBot(t, cfg)
			if got := send(t, http.DefaultClient, url, signed(tt.event, "72d3162e-cc78-11e3-81ab-4c9367dc0958", tt.body)); got != tt.wantStatus {
				t.Errorf("status = %d, want %d", got, tt.wantStatus)
			}
			drain()
			if d := cmp.Diff(tt.want, api.Requests()); d != "" {
				t.Errorf("API calls (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.wantSent, api.Dispatches()); d != "" {
				t.Errorf("dispatches (-want +got):\n%s", d)
			}
			var got []string
			for _, c := range api.IssueComments(1) {
				if c.ID != 492700400 {
					got = append(got, c.Body)
				}
			}
			switch {
			case !tt.wantUsage && len(got) > 0:
				t.Errorf("replies %q, want none", got)
			case tt.wantUsage && (len(got) != 1 || !strings.HasPrefix(got[0], "@Codertocat ") || !strings.HasSuffix(got[0], usageMessage)):
				t.Errorf("replies %q, want one to @Codertocat ending with the usage", got)
			}
		})
	}
}

func withAssociation(p fakegh.PR, a string) fakegh.PR { p.AuthorAssociation = a; return p }
func withHead(p fakegh.PR, sha string) fakegh.PR      { p.HeadSHA = sha; return p }
func withState(p fakegh.PR, s string) fakegh.PR       { p.State = s; return p }
func withHeadRepo(p fakegh.PR, r string) fakegh.PR    { p.HeadRepo = r; return p }
func withNumber(p fakegh.PR, n int) fakegh.PR         { p.Number = n; return p }

// TestFixturesAreVerbatim checks that every published payload in
// testdata/octokit is the file its README names, unedited: its Git blob
// id is the one listed.
func TestFixturesAreVerbatim(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("testdata", "octokit", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for _, m := range regexp.MustCompile("(?m)^\\| `([^`]+\\.json)` \\| `([0-9a-f]{40})` \\|$").FindAllStringSubmatch(string(readme), -1) {
		want[m[1]] = m[2]
	}
	got := map[string]string{}
	root := filepath.Join("testdata", "octokit")
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".json") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		got[filepath.ToSlash(rel)] = fmt.Sprintf("%x", sha1.Sum(fmt.Appendf(nil, "blob %d\x00%s", len(b), b)))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(want) == 0 {
		t.Fatal("the README lists no files")
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Git blob ids of testdata/octokit (-README +files):\n%s", d)
	}
}
