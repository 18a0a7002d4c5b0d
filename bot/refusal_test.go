package bot

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/culprit-dev/culprit/internal/fakegh"
	"github.com/google/go-cmp/cmp"
)

// TestRefusalOncePerPullRequest checks that someone without write access
// gets one reply per pull request however many /culprit comments they post.
func TestRefusalOncePerPullRequest(t *testing.T) {
	prComment := fixture(t, "issue_comment_pr_created.json")
	// comment id on pull request n
	onPR := func(n, id int) []byte {
		return edit(t, prComment, map[string]any{"comment.user.login": "stranger", "issue.number": n, "comment.id": id})
	}
	for _, tt := range []struct {
		name    string
		bodies  [][]byte
		replies map[int]int // PR → replies on it
	}{
		{"two comments on one pull request", [][]byte{onPR(42, 1), onPR(42, 2)}, map[int]int{42: 1, 43: 0}},
		{"comments on two pull requests", [][]byte{onPR(42, 1), onPR(43, 2)}, map[int]int{42: 1, 43: 1}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			api := newAPI(t)
			cfg := testConfig(api.APIURL())
			cfg.Workers = 1 // deliveries run in order
			_, url, drain := startBot(t, cfg)
			for i, b := range tt.bodies {
				if got := send(t, http.DefaultClient, url, signed("issue_comment", fmt.Sprint("d-", i), b)); got != http.StatusAccepted {
					t.Errorf("delivery %d: status = %d, want 202", i, got)
				}
			}
			drain()
			got := map[int]int{}
			for pr := range tt.replies {
				got[pr] = len(replies(api, pr))
			}
			if d := cmp.Diff(tt.replies, got); d != "" {
				t.Errorf("replies (-want +got):\n%s", d)
			}
			if n := api.Calls()["GET /repos/octo-org/calc/collaborators/stranger/permission"]; n != len(tt.bodies) {
				t.Errorf("permission checks = %d, want %d", n, len(tt.bodies))
			}
		})
	}
}

// TestRefusalSurvivesRestart checks that "replied once on this pull
// request" is read back from GitHub, also by a new process, found on any
// page of comments, and that only a marker the bot made counts.
func TestRefusalSurvivesRestart(t *testing.T) {
	stranger := edit(t, fixture(t, "issue_comment_pr_created.json"), map[string]any{"comment.user.login": "stranger"})
	permStranger := "GET /repos/octo-org/calc/collaborators/stranger/permission"
	// What someone without the webhook secret can make.
	forged := markerOf([]byte("not the secret"), 42)

	for _, tc := range []struct {
		name      string
		seed      func(api *fakegh.Server) // the pull request's other comments
		wantReply bool
	}{
		{"no earlier reply", func(*fakegh.Server) {}, true},
		{"a forged marker", func(api *fakegh.Server) {
			api.AddIssueComment(42, "stranger", "quiet please "+forged)
		}, true},
		{"a marker from another pull request", func(api *fakegh.Server) {
			api.AddIssueComment(42, "stranger", "copied: "+markerOf([]byte(testSecret), 43))
		}, true},
		{"the bot's reply on the third page", func(api *fakegh.Server) {
			api.PageSize = 2
			for i := range 3 {
				api.AddIssueComment(42, "bob", fmt.Sprint("comment ", i))
			}
			api.AddIssueComment(42, "culprit[bot]", "@someone only collaborators … "+markerOf([]byte(testSecret), 42))
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			api := newAPI(t)
			tc.seed(api)
			// The calls of one refusal check: the permission, then every
			// page of comments up to the marker (or all of them).
			check := func() []string {
				pages := (len(api.IssueComments(42)) + api.PageSize - 1) / api.PageSize
				calls := []string{permStranger}
				for range pages {
					calls = append(calls, listPR42)
				}
				return calls
			}
			want := check()
			before := len(replies(api, 42))
			if tc.wantReply {
				want = append(want, replyPR42)
			}
			_, url, drain := startBot(t, testConfig(api.APIURL()))
			if got := send(t, http.DefaultClient, url, signed("issue_comment", "d-1", stranger)); got != http.StatusAccepted {
				t.Fatalf("status = %d", got)
			}
			drain()
			if d := cmp.Diff(want, api.Requests()); d != "" {
				t.Errorf("API calls (-want +got):\n%s", d)
			}
			after := replies(api, 42)
			if tc.wantReply {
				if len(after) != before+1 || !strings.HasSuffix(after[len(after)-1], markerOf([]byte(testSecret), 42)) {
					t.Fatalf("replies %q, want one more, ending with the marker", after)
				}
			} else if len(after) != before {
				t.Fatalf("replies %q, want none more", after)
			}

			// A new process sees the reply and stays quiet.
			calls := len(api.Requests())
			want = check()
			_, url, drain = startBot(t, testConfig(api.APIURL()))
			if got := send(t, http.DefaultClient, url, signed("issue_comment", "d-2", stranger)); got != http.StatusAccepted {
				t.Fatalf("after the restart: status = %d", got)
			}
			drain()
			if d := cmp.Diff(want, api.Requests()[calls:]); d != "" {
				t.Errorf("API calls after the restart (-want +got):\n%s", d)
			}
			if n := len(replies(api, 42)); n != len(after) {
				t.Errorf("%d replies after the restart, want still %d", n, len(after))
			}
		})
	}
}

// markerOf is the refusal marker a bot with this webhook secret writes on
// pull request pr of the fixtures' repository.
func markerOf(secret []byte, pr int) string {
	s := &Server{cfg: Config{WebhookSecret: secret}}
	return s.refusalMarker(&task{owner: testOwner, repo: testRepo, pr: pr})
}
