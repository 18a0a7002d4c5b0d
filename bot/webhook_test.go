package bot

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/culprit-dev/culprit/internal/fakegh"
	"github.com/google/go-cmp/cmp"
)

const (
	permAlice    = "GET /repos/octo-org/calc/collaborators/alice/permission"
	reactEyes    = "POST /repos/octo-org/calc/issues/comments/1978143220/reactions"
	dispatchPath = "POST /repos/octo-org/calc/actions/workflows/culprit.yml/dispatches"
	replyPR42    = "POST /repos/octo-org/calc/issues/42/comments"
	listPR42     = "GET /repos/octo-org/calc/issues/42/comments"
	getPR42      = "GET /repos/octo-org/calc/pulls/42"
)

// dispatched is the dispatch of the culprit workflow for PR 42, pinned to
// head.
func dispatched(ref, tests, head string) []fakegh.Dispatch {
	return []fakegh.Dispatch{{Workflow: DefaultWorkflow, Ref: ref, Inputs: map[string]string{"pr-number": "42", "tests": tests, "head-sha": head}}}
}

// fromFork makes PR 42 come from a fork by newbie, whose relation to the
// repository GitHub calls association.
func fromFork(association string) func(api *fakegh.Server) {
	return func(api *fakegh.Server) {
		api.PRs[42] = fakegh.PR{Number: 42, HeadSHA: prHead, Author: "newbie", AuthorAssociation: association, HeadRepo: "newbie/calc"}
	}
}

func TestWebhook(t *testing.T) {
	prComment := fixture(t, "issue_comment_pr_created.json")
	runFailure := fixture(t, "workflow_run_failure.json")
	fromUser := func(login, typ string) []byte {
		return edit(t, prComment, map[string]any{"comment.user.login": login, "comment.user.type": typ})
	}
	withBody := func(body string) []byte { return edit(t, prComment, map[string]any{"comment.body": body}) }
	resetAt := time.Now().Add(time.Hour).Truncate(time.Second)
	runFromFork := edit(t, runFailure, map[string]any{"workflow_run.head_repository.full_name": "newbie/calc"})

	tests := []struct {
		name       string
		delivery   delivery
		setup      func(api *fakegh.Server)
		wantStatus int
		want       []string // "METHOD path" of every API call, in order
		wantSent   []fakegh.Dispatch
		wantReply  string // a substring of the one reply on PR 42; "" means no reply
	}{{
		name:       "command from a writer",
		delivery:   signed("issue_comment", "d-1", prComment),
		wantStatus: http.StatusAccepted,
		want:       []string{permAlice, getPR42, reactEyes, dispatchPath},
		wantSent:   dispatched("main", "TestSum TestSum/empty", prHead),
	}, {
		name:       "command from a maintainer-level admin",
		delivery:   signed("issue_comment", "d-1", fromUser("mallory", "User")),
		wantStatus: http.StatusAccepted,
		want:       []string{"GET /repos/octo-org/calc/collaborators/mallory/permission", getPR42, reactEyes, dispatchPath},
		wantSent:   dispatched("main", "TestSum TestSum/empty", prHead),
	}, {
		name:       "bare command",
		delivery:   signed("issue_comment", "d-1", withBody("/culprit")),
		wantStatus: http.StatusAccepted,
		want:       []string{permAlice, getPR42, reactEyes, dispatchPath},
		wantSent:   dispatched("main", "", prHead),
	}, {
		name:       "command from a writer on a first-time contributor's fork",
		delivery:   signed("issue_comment", "d-1", prComment),
		setup:      fromFork("FIRST_TIME_CONTRIBUTOR"),
		wantStatus: http.StatusAccepted,
		want:       []string{permAlice, getPR42, reactEyes, dispatchPath},
		wantSent:   dispatched("main", "TestSum TestSum/empty", prHead),
	}, {
		name:       "command from the fork's author, who has no write access",
		delivery:   signed("issue_comment", "d-1", fromUser("newbie", "User")),
		setup:      fromFork("FIRST_TIME_CONTRIBUTOR"),
		wantStatus: http.StatusAccepted,
		want:       []string{"GET /repos/octo-org/calc/collaborators/newbie/permission", listPR42, replyPR42},
		wantReply:  "@newbie only collaborators with write access",
	}, {
		name:       "wrong signature",
		delivery:   delivery{event: "issue_comment", id: "d-1", body: prComment, signature: sign("guess", prComment)},
		wantStatus: http.StatusUnauthorized,
	}, {
		name:       "missing signature",
		delivery:   delivery{event: "issue_comment", id: "d-1", body: prComment},
		wantStatus: http.StatusUnauthorized,
	}, {
		name:       "signature of another body",
		delivery:   delivery{event: "issue_comment", id: "d-1", body: prComment, signature: sign(testSecret, withBody("/culprit"))},
		wantStatus: http.StatusUnauthorized,
	}, {
		name: "only the SHA-1 signature",
		delivery: func() delivery {
			d := signed("issue_comment", "d-1", prComment)
			d.signature = ""
			d.sha1 = "sha1=0123"
			return d
		}(),
		wantStatus: http.StatusUnauthorized,
	}, {
		name:       "malformed signature",
		delivery:   delivery{event: "issue_comment", id: "d-1", body: prComment, signature: "sha256=zz"},
		wantStatus: http.StatusUnauthorized,
	}, {
		name:       "comment from a reader",
		delivery:   signed("issue_comment", "d-1", fromUser("reader", "User")),
		wantStatus: http.StatusAccepted,
		want:       []string{"GET /repos/octo-org/calc/collaborators/reader/permission", listPR42, replyPR42},
		wantReply:  "@reader only collaborators with write access",
	}, {
		name:       "comment from a non-collaborator",
		delivery:   signed("issue_comment", "d-1", fromUser("stranger", "User")),
		wantStatus: http.StatusAccepted,
		want:       []string{"GET /repos/octo-org/calc/collaborators/stranger/permission", listPR42, replyPR42},
		wantReply:  "@stranger only collaborators with write access",
	}, {
		name:       "comment from a bot",
		delivery:   signed("issue_comment", "d-1", fromUser("culprit[bot]", "Bot")),
		wantStatus: http.StatusNoContent,
	}, {
		name:       "comment from a bot account typed as user",
		delivery:   signed("issue_comment", "d-1", fromUser("renovate[bot]", "User")),
		wantStatus: http.StatusNoContent,
	}, {
		name:       "comment on an issue",
		delivery:   signed("issue_comment", "d-1", fixture(t, "issue_comment_issue_created.json")),
		wantStatus: http.StatusNoContent,
	}, {
		name:       "edited comment",
		delivery:   signed("issue_comment", "d-1", fixture(t, "issue_comment_pr_edited.json")),
		wantStatus: http.StatusNoContent,
	}, {
		name:       "comment without a command",
		delivery:   signed("issue_comment", "d-1", withBody("LGTM, though /culprit could tell us more")),
		wantStatus: http.StatusNoContent,
	}, {
		name:       "malformed command",
		delivery:   signed("issue_comment", "d-1", withBody("/culprit TestSum;rm")),
		wantStatus: http.StatusAccepted,
		want:       []string{permAlice, replyPR42},
		wantReply:  "Usage: `/culprit [explain]",
	}, {
		name:       "words after the command",
		delivery:   signed("issue_comment", "d-1", withBody("/culprit explain this failure")),
		wantStatus: http.StatusAccepted,
		want:       []string{permAlice, replyPR42},
		wantReply:  "Usage: `/culprit [explain]",
	}, {
		name:       "near miss from a writer",
		delivery:   signed("issue_comment", "d-1", withBody("/Culprit")),
		wantStatus: http.StatusAccepted,
		want:       []string{permAlice, replyPR42},
		wantReply:  "Usage: `/culprit [explain]",
	}, {
		name:       "near miss from a reader",
		delivery:   signed("issue_comment", "d-1", edit(t, prComment, map[string]any{"comment.user.login": "reader", "comment.body": "/culprit\u00a0TestSum"})),
		wantStatus: http.StatusAccepted,
		want:       []string{"GET /repos/octo-org/calc/collaborators/reader/permission", listPR42, replyPR42},
		wantReply:  "@reader only collaborators with write access",
	}, {
		name:       "command after a ~~~ block holding ```go",
		delivery:   signed("issue_comment", "d-1", withBody("~~~\n```go\n~~~\n/culprit TestSum")),
		wantStatus: http.StatusAccepted,
		want:       []string{permAlice, getPR42, reactEyes, dispatchPath},
		wantSent:   dispatched("main", "TestSum", prHead),
	}, {
		name:       "command in an HTML comment",
		delivery:   signed("issue_comment", "d-1", withBody("<!--\n/culprit TestSum\n-->")),
		wantStatus: http.StatusNoContent,
	}, {
		name:       "workflow missing",
		delivery:   signed("issue_comment", "d-1", prComment),
		setup:      func(api *fakegh.Server) { api.Workflows = nil },
		wantStatus: http.StatusAccepted,
		want:       []string{permAlice, getPR42, reactEyes, dispatchPath, replyPR42},
		wantReply:  "`.github/workflows/culprit.yml` was not found on the default branch `main`",
	}, {
		name:     "rate limited",
		delivery: signed("issue_comment", "d-1", prComment),
		setup: func(api *fakegh.Server) {
			api.RateLimit = map[string]string{dispatchPath: "primary"}
			api.ResetAt = resetAt
		},
		wantStatus: http.StatusAccepted,
		want:       []string{permAlice, getPR42, reactEyes, dispatchPath, replyPR42},
		wantReply: "rate limit for the app is used up (rate limited until " +
			resetAt.UTC().Format(time.RFC3339) + ": API rate limit exceeded)",
	}, {
		name:     "secondary rate limit waited out",
		delivery: signed("issue_comment", "d-1", prComment),
		setup: func(api *fakegh.Server) {
			api.RateLimit = map[string]string{dispatchPath: "secondary"}
			api.RetryAfter = "1"
		},
		wantStatus: http.StatusAccepted,
		want:       []string{permAlice, getPR42, reactEyes, dispatchPath, dispatchPath},
		wantSent:   dispatched("main", "TestSum TestSum/empty", prHead),
	}, {
		name:     "workflow without the tests input",
		delivery: signed("issue_comment", "d-1", prComment),
		setup: func(api *fakegh.Server) {
			api.Workflows = map[string][]string{DefaultWorkflow: {"pr-number!", "head-sha"}}
		},
		wantStatus: http.StatusAccepted,
		want:       []string{permAlice, getPR42, reactEyes, dispatchPath, replyPR42},
		wantReply: "GitHub refused the dispatch (Unexpected inputs provided: [\"tests\"]). " +
			"The workflow needs an `on: workflow_dispatch` trigger with the inputs `pr-number`, `tests` and `head-sha`.",
	}, {
		// An older workflow: one dispatch, refused, and no second one
		// without the pin.
		name:     "workflow without the head-sha input",
		delivery: signed("issue_comment", "d-1", prComment),
		setup: func(api *fakegh.Server) {
			api.Workflows = map[string][]string{DefaultWorkflow: {"pr-number!", "tests"}}
		},
		wantStatus: http.StatusAccepted,
		want:       []string{permAlice, getPR42, reactEyes, dispatchPath, replyPR42},
		wantReply:  "the workflow on `main` has no `head-sha` input (GitHub: Unexpected inputs provided: [\"head-sha\"])",
	}, {
		name:       "default branch looked up when the payload lacks it",
		delivery:   signed("issue_comment", "d-1", edit(t, prComment, map[string]any{"repository.default_branch": nil})),
		setup:      func(api *fakegh.Server) { api.DefaultBranch = "trunk" },
		wantStatus: http.StatusAccepted,
		want:       []string{permAlice, getPR42, reactEyes, "GET /repos/octo-org/calc", dispatchPath},
		wantSent:   dispatched("trunk", "TestSum TestSum/empty", prHead),
	}, {
		name:       "failed run",
		delivery:   signed("workflow_run", "d-1", runFailure),
		wantStatus: http.StatusAccepted,
		want:       []string{getPR42, dispatchPath},
		wantSent:   dispatched("main", "", runHead),
	}, {
		name:     "failed run, workflow without the head-sha input",
		delivery: signed("workflow_run", "d-1", runFailure),
		setup: func(api *fakegh.Server) {
			api.Workflows = map[string][]string{DefaultWorkflow: {"pr-number!", "tests"}}
		},
		wantStatus: http.StatusAccepted,
		want:       []string{getPR42, dispatchPath},
	}, {
		name:       "failed run of a contributor's fork",
		delivery:   signed("workflow_run", "d-1", runFromFork),
		setup:      fromFork("CONTRIBUTOR"),
		wantStatus: http.StatusAccepted,
		want:       []string{getPR42, dispatchPath},
		wantSent:   dispatched("main", "", runHead),
	}, {
		name:       "failed run of a first-time contributor's fork",
		delivery:   signed("workflow_run", "d-1", runFromFork),
		setup:      fromFork("FIRST_TIME_CONTRIBUTOR"),
		wantStatus: http.StatusAccepted,
		want:       []string{getPR42},
	}, {
		name:       "failed run of a first-timer's fork",
		delivery:   signed("workflow_run", "d-1", runFromFork),
		setup:      fromFork("FIRST_TIMER"),
		wantStatus: http.StatusAccepted,
		want:       []string{getPR42},
	}, {
		name:       "failed run of a fork by someone without association",
		delivery:   signed("workflow_run", "d-1", runFromFork),
		setup:      fromFork("NONE"),
		wantStatus: http.StatusAccepted,
		want:       []string{getPR42},
	}, {
		name:       "successful run",
		delivery:   signed("workflow_run", "d-1", fixture(t, "workflow_run_success.json")),
		wantStatus: http.StatusNoContent,
	}, {
		name:       "failed run of the culprit workflow itself",
		delivery:   signed("workflow_run", "d-1", edit(t, runFailure, map[string]any{"workflow.path": ".github/workflows/culprit.yml"})),
		wantStatus: http.StatusNoContent,
	}, {
		name:       "failed run not for a pull request",
		delivery:   signed("workflow_run", "d-1", edit(t, runFailure, map[string]any{"workflow_run.pull_requests": []any{}})),
		wantStatus: http.StatusNoContent,
	}, {
		name: "failed run of a repository not opted in",
		delivery: signed("workflow_run", "d-1", edit(t, runFailure, map[string]any{
			"repository.name": "other", "repository.full_name": "octo-org/other",
		})),
		wantStatus: http.StatusNoContent,
	}, {
		name:       "ping",
		delivery:   signed("ping", "d-1", fixture(t, "ping.json")),
		wantStatus: http.StatusOK,
	}, {
		name:       "unknown event",
		delivery:   signed("star", "d-1", []byte(`{"action":"created"}`)),
		wantStatus: http.StatusNoContent,
	}, {
		name:       "unknown event with a bad signature",
		delivery:   delivery{event: "star", id: "d-1", body: []byte(`{}`), signature: sign("guess", []byte(`{}`))},
		wantStatus: http.StatusUnauthorized,
	}, {
		name:       "signed but not JSON",
		delivery:   signed("issue_comment", "d-1", []byte(`{"action":`)),
		wantStatus: http.StatusBadRequest,
	}, {
		name:       "missing delivery id",
		delivery:   signed("issue_comment", "", prComment),
		wantStatus: http.StatusBadRequest,
	}, {
		name:       "repository the token is not for",
		delivery:   signed("issue_comment", "d-1", edit(t, prComment, map[string]any{"repository.owner.login": "someone"})),
		wantStatus: http.StatusNoContent,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := newAPI(t)
			if tt.setup != nil {
				tt.setup(api)
			}
			_, url, drain := startBot(t, testConfig(api.APIURL()))
			if got := send(t, http.DefaultClient, url, tt.delivery); got != tt.wantStatus {
				t.Errorf("status = %d, want %d", got, tt.wantStatus)
			}
			drain()
			if diff := cmp.Diff(tt.want, api.Requests()); diff != "" {
				t.Errorf("API calls (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantSent, api.Dispatches()); diff != "" {
				t.Errorf("dispatches (-want +got):\n%s", diff)
			}
			var wantEyes []string
			if slices.Contains(tt.want, reactEyes) {
				wantEyes = []string{"eyes"}
			}
			if diff := cmp.Diff(wantEyes, api.IssueComments(42)[0].Reactions); diff != "" {
				t.Errorf("reactions on the command (-want +got):\n%s", diff)
			}
			got := replies(api, 42)
			switch {
			case tt.wantReply == "" && len(got) > 0:
				t.Errorf("replies %q, want none", got)
			case tt.wantReply != "" && (len(got) != 1 || !strings.Contains(got[0], tt.wantReply)):
				t.Errorf("replies %q, want one containing %q", got, tt.wantReply)
			}
		})
	}
}

// TestReplayedDelivery: the delivery id is not signed, so a captured
// signed body can come back under any id. A repeated id, and a repeated
// comment or head commit under a new id, start nothing more.
func TestReplayedDelivery(t *testing.T) {
	comment := fixture(t, "issue_comment_pr_created.json")
	otherComment := edit(t, comment, map[string]any{"comment.id": commandCommentID + 1})
	run := fixture(t, "workflow_run_failure.json")
	tests := []struct {
		name       string
		deliveries []delivery
		want       []int // the statuses
		dispatches int
	}{{
		name: "the same delivery id",
		deliveries: []delivery{signed("issue_comment", "same-id", comment), signed("issue_comment", "same-id", comment),
			signed("issue_comment", "same-id", comment)},
		want:       []int{http.StatusAccepted, http.StatusOK, http.StatusOK},
		dispatches: 1,
	}, {
		name:       "the same comment under a new delivery id",
		deliveries: []delivery{signed("issue_comment", "first", comment), signed("issue_comment", "replayed", comment)},
		want:       []int{http.StatusAccepted, http.StatusOK},
		dispatches: 1,
	}, {
		name:       "another comment",
		deliveries: []delivery{signed("issue_comment", "first", comment), signed("issue_comment", "second", otherComment)},
		want:       []int{http.StatusAccepted, http.StatusAccepted},
		dispatches: 2,
	}, {
		// The head commit is remembered by the job, which then does nothing.
		name:       "the same failed run under a new delivery id",
		deliveries: []delivery{signed("workflow_run", "first", run), signed("workflow_run", "replayed", run)},
		want:       []int{http.StatusAccepted, http.StatusAccepted},
		dispatches: 1,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := newAPI(t)
			api.PutIssueComment(42, commandCommentID+1, "alice", "/culprit")
			cfg := testConfig(api.APIURL())
			cfg.Workers = 1 // deliveries run in order
			_, url, drain := startBot(t, cfg)
			var got []int
			for _, d := range tt.deliveries {
				got = append(got, send(t, http.DefaultClient, url, d))
			}
			drain()
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("statuses (-want +got):\n%s", d)
			}
			if n := len(api.Dispatches()); n != tt.dispatches {
				t.Errorf("dispatches = %d, want %d", n, tt.dispatches)
			}
		})
	}
}

// A command whose job failed is forgotten, delivery and comment, so that
// its redelivery runs.
func TestRedeliveryAfterFailedCommandRunsAgain(t *testing.T) {
	api := newAPI(t)
	api.Fail = map[string]fakegh.Fault{getPR42: {Status: http.StatusNotFound, Times: 1}}
	cfg := testConfig(api.APIURL())
	cfg.Workers = 1
	s, url, drain := startBot(t, cfg)
	body := fixture(t, "issue_comment_pr_created.json")
	if got := send(t, http.DefaultClient, url, signed("issue_comment", "same", body)); got != http.StatusAccepted {
		t.Fatalf("first delivery: status %d, want 202", got)
	}
	waitFor(t, func() bool { return s.deliveries.len() == 0 && s.comments.len() == 0 })
	if got := send(t, http.DefaultClient, url, signed("issue_comment", "same", body)); got != http.StatusAccepted {
		t.Fatalf("redelivery: status %d, want 202", got)
	}
	drain()
	if d := cmp.Diff(dispatched("main", "TestSum TestSum/empty", prHead), api.Dispatches()); d != "" {
		t.Errorf("dispatches (-want +got):\n%s", d)
	}
}

func TestFailedRunOncePerHead(t *testing.T) {
	api := newAPI(t)
	_, url, drain := startBot(t, testConfig(api.APIURL()))
	body := fixture(t, "workflow_run_failure.json")
	other := edit(t, body, map[string]any{"workflow.path": ".github/workflows/lint.yml", "workflow_run.id": 99})
	newHead := edit(t, body, map[string]any{"workflow_run.head_sha": "0000000000000000000000000000000000000001"})
	for i, b := range [][]byte{body, other, newHead} {
		if got := send(t, http.DefaultClient, url, signed("workflow_run", string(rune('a'+i)), b)); got != http.StatusAccepted {
			t.Errorf("delivery %d: status = %d", i, got)
		}
	}
	drain()
	if n := api.Calls()[dispatchPath]; n != 2 {
		t.Errorf("dispatches = %d, want 2 (one per head SHA)", n)
	}
}

func TestFailedDispatchLetsTheHeadRetry(t *testing.T) {
	api := newAPI(t)
	api.Fail = map[string]fakegh.Fault{dispatchPath: {Status: http.StatusInternalServerError}}
	cfg := testConfig(api.APIURL())
	cfg.Workers = 1
	s, url, drain := startBot(t, cfg)
	body := fixture(t, "workflow_run_failure.json")
	send(t, http.DefaultClient, url, signed("workflow_run", "a", body))
	send(t, http.DefaultClient, url, signed("workflow_run", "b", body))
	drain()
	if n := api.Calls()[dispatchPath]; n != 2 {
		t.Errorf("dispatch attempts = %d, want 2: a failed dispatch must not mark the head as done", n)
	}
	if n := s.shas.len(); n != 0 {
		t.Errorf("heads remembered = %d, want 0", n)
	}
}

func TestHealthz(t *testing.T) {
	_, url, _ := startBot(t, testConfig(newAPI(t).APIURL()))
	resp, err := http.Get(url + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("status = %d", resp.StatusCode)
	}
	resp, err = http.Get(url + "/webhook")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET /webhook status = %d, want 405", resp.StatusCode)
	}
}

func TestBodyLimit(t *testing.T) {
	api := newAPI(t)
	_, url, drain := startBot(t, testConfig(api.APIURL()))
	big := make([]byte, maxBody+1)
	if got := send(t, http.DefaultClient, url, signed("issue_comment", "big", big)); got != http.StatusRequestEntityTooLarge {
		t.Errorf("status = %d, want 413", got)
	}
	drain()
	if calls := api.Requests(); len(calls) != 0 {
		t.Errorf("API calls: %v", calls)
	}
}

func TestRedeliveryAfterFailedJobRunsAgain(t *testing.T) {
	api := newAPI(t)
	api.Fail = map[string]fakegh.Fault{dispatchPath: {Status: http.StatusInternalServerError, Times: 1}}
	cfg := testConfig(api.APIURL())
	cfg.Workers = 1
	s, url, drain := startBot(t, cfg)
	body := fixture(t, "workflow_run_failure.json")
	if got := send(t, http.DefaultClient, url, signed("workflow_run", "same", body)); got != http.StatusAccepted {
		t.Fatalf("first delivery: status %d, want 202", got)
	}
	deadline := time.Now().Add(10 * time.Second)
	for s.deliveries.len() != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the failed delivery is still remembered")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if got := send(t, http.DefaultClient, url, signed("workflow_run", "same", body)); got != http.StatusAccepted {
		t.Fatalf("redelivery: status %d, want 202", got)
	}
	if got := send(t, http.DefaultClient, url, signed("workflow_run", "same", body)); got != http.StatusOK {
		t.Errorf("a third delivery while the second is remembered: status %d, want 200 (duplicate)", got)
	}
	drain()
	if n := api.Calls()[dispatchPath]; n != 2 {
		t.Errorf("dispatch attempts = %d, want 2: the redelivery dispatches again", n)
	}
	if d := cmp.Diff(dispatched("main", "", runHead), api.Dispatches()); d != "" {
		t.Errorf("dispatches (-want +got):\n%s", d)
	}
	if n := s.shas.len(); n != 1 {
		t.Errorf("heads remembered = %d, want 1 after the successful redelivery", n)
	}
}

// Bodies being read share a memory budget: with it used up, a delivery is
// answered 503, unread, and one arriving once there is room is read.
func TestBodyReadsAreBounded(t *testing.T) {
	api := newAPI(t)
	s, url, drain := startBot(t, testConfig(api.APIURL()))
	if !s.unverified.take(maxUnverified - firstChunk + 1) {
		t.Fatal("the budget is not whole at the start")
	}
	body := fixture(t, "workflow_run_failure.json")
	if got := send(t, http.DefaultClient, url, signed("workflow_run", "r1", body)); got != http.StatusServiceUnavailable {
		t.Errorf("with the budget used up: status %d, want 503", got)
	}
	s.unverified.give(maxUnverified - firstChunk + 1)
	if got := send(t, http.DefaultClient, url, signed("ping", "r2", []byte(`{"zen":"x"}`))); got != http.StatusOK {
		t.Errorf("with room in the budget: status %d, want 200", got)
	}
	drain()
	if calls := api.Requests(); len(calls) != 0 {
		t.Errorf("API calls: %v", calls)
	}
	if left := s.unverified.left.Load(); left != maxUnverified {
		t.Errorf("budget left after the requests = %d, want all of it, %d", left, maxUnverified)
	}
}
