package pr_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/culprit-dev/culprit/action/pr"
	"github.com/culprit-dev/culprit/internal/fakegh"
	"github.com/culprit-dev/culprit/internal/ghclient"
	"github.com/culprit-dev/culprit/report"
	"github.com/google/go-cmp/cmp"
)

const (
	token  = "ghs_test_token"
	marker = "<!-- culprit:report -->"
	bot    = "github-actions[bot]"
	prNum  = 7
)

type sleeps []time.Duration

func (s *sleeps) sleep(_ context.Context, d time.Duration) error {
	*s = append(*s, d)
	return nil
}

func setup(t *testing.T) (*fakegh.Server, *pr.Client, *sleeps) {
	t.Helper()
	srv := fakegh.New(t, "octo", "calc", token)
	srv.PRs[prNum] = fakegh.PR{Number: prNum, BaseSHA: "b0", HeadSHA: "h1"}
	var sl sleeps
	gh, err := ghclient.New(nil, srv.APIURL(), token, sl.sleep)
	if err != nil {
		t.Fatal(err)
	}
	return srv, pr.New(gh, "octo", "calc", prNum), &sl
}

func diffCalls(t *testing.T, srv *fakegh.Server, want map[string]int) {
	t.Helper()
	if d := cmp.Diff(want, srv.Calls()); d != "" {
		t.Errorf("API calls (-want +got):\n%s", d)
	}
}

func TestUpsertCommentCreatesThenEdits(t *testing.T) {
	srv, c, _ := setup(t)
	ctx := context.Background()
	srv.AddIssueComment(prNum, "alice", "looks good")
	got, _, err := c.UpsertComment(ctx, marker, marker+"\nfirst run")
	if err != nil || got != pr.Created {
		t.Fatalf("first run: %v, %v; want created", got, err)
	}
	// A second run is a new process: a new Client, the same PR.
	_, c2, _ := func() (*fakegh.Server, *pr.Client, *sleeps) {
		gh, err := ghclient.New(nil, srv.APIURL(), token, nil)
		if err != nil {
			t.Fatal(err)
		}
		return srv, pr.New(gh, "octo", "calc", prNum), nil
	}()
	got, _, err = c2.UpsertComment(ctx, marker, marker+"\nsecond run")
	if err != nil || got != pr.Updated {
		t.Fatalf("second run: %v, %v; want updated", got, err)
	}
	diffCalls(t, srv, map[string]int{
		"GET /user":                                   2,
		"GET /repos/octo/calc/issues/7/comments":      2,
		"POST /repos/octo/calc/issues/7/comments":     1,
		"PATCH /repos/octo/calc/issues/comments/1002": 1,
	})
	cs := srv.IssueComments(prNum)
	if len(cs) != 2 || cs[1].Body != marker+"\nsecond run" || cs[1].User.Login != bot {
		t.Errorf("comments after two runs: %+v", cs)
	}
}

func TestUpsertCommentFindsMarkerOnLaterPage(t *testing.T) {
	srv, c, _ := setup(t)
	srv.Login = "culprit-app"
	srv.PageSize = 2
	srv.AddIssueComment(prNum, "alice", "first")
	// Someone quoting the marker is not our comment.
	srv.AddIssueComment(prNum, "mallory", "quoted: "+marker)
	srv.AddIssueComment(prNum, "bob", "third")
	mine := srv.AddIssueComment(prNum, "culprit-app", marker+"\nold")
	srv.AddIssueComment(prNum, "carol", "fifth")
	got, _, err := c.UpsertComment(context.Background(), marker, marker+"\nnew")
	if err != nil || got != pr.Updated {
		t.Fatalf("UpsertComment: %v, %v; want updated", got, err)
	}
	// Every page is read: a duplicate of ours may sit on a later one.
	diffCalls(t, srv, map[string]int{
		"GET /user":                              1,
		"GET /repos/octo/calc/issues/7/comments": 3,
		"PATCH /repos/octo/calc/issues/comments/" + itoa(mine.ID): 1,
	})
	if cs := srv.IssueComments(prNum); cs[1].Body != "quoted: "+marker {
		t.Errorf("someone else's comment was changed: %q", cs[1].Body)
	}
}

func TestUpsertCommentReadOnlyToken(t *testing.T) {
	srv, c, _ := setup(t)
	srv.ReadOnly = true
	_, _, err := c.UpsertComment(context.Background(), marker, marker+"\nbody")
	if !pr.IsPermission(err) {
		t.Fatalf("UpsertComment with a read-only token: %v; want a permission error", err)
	}
	diffCalls(t, srv, map[string]int{
		"GET /user":                               1,
		"GET /repos/octo/calc/issues/7/comments":  1,
		"POST /repos/octo/calc/issues/7/comments": 1,
	})
}

func TestUpsertCommentRefusesOverlongBody(t *testing.T) {
	srv, c, _ := setup(t)
	body := marker + strings.Repeat("é", pr.MaxBody)
	if _, _, err := c.UpsertComment(context.Background(), marker, body); err == nil {
		t.Fatal("UpsertComment of an over-long body succeeded")
	}
	diffCalls(t, srv, map[string]int{})
}

func TestRateLimitRetriedOnce(t *testing.T) {
	for _, tc := range []struct {
		kind string
		wait time.Duration
	}{
		{"primary", time.Second},
		{"secondary", 3 * time.Second},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			srv, c, sl := setup(t)
			srv.RateLimit = map[string]string{"POST /repos/octo/calc/issues/7/comments": tc.kind}
			got, _, err := c.UpsertComment(context.Background(), marker, marker+"\nbody")
			if err != nil || got != pr.Created {
				t.Fatalf("UpsertComment: %v, %v", got, err)
			}
			diffCalls(t, srv, map[string]int{
				"GET /user":                               1,
				"GET /repos/octo/calc/issues/7/comments":  1,
				"POST /repos/octo/calc/issues/7/comments": 2,
			})
			if d := cmp.Diff([]time.Duration{tc.wait}, []time.Duration(*sl)); d != "" {
				t.Errorf("waits (-want +got):\n%s", d)
			}
			if n := len(srv.IssueComments(prNum)); n != 1 {
				t.Errorf("%d comments, want 1", n)
			}
		})
	}
}

// TestPrimaryRateLimitIsNotAPermissionError checks that a write refused
// for a primary rate limit that lifts in an hour is reported as such at
// once: not waited out, and not taken for a read-only token (which would
// fall back to annotations).
func TestPrimaryRateLimitIsNotAPermissionError(t *testing.T) {
	srv, c, sl := setup(t)
	reset := time.Now().Add(time.Hour).Truncate(time.Second)
	srv.ResetAt = reset
	srv.RateLimit = map[string]string{"POST /repos/octo/calc/issues/7/comments": "primary"}
	_, _, err := c.UpsertComment(context.Background(), marker, marker+"\nbody")
	want := "rate limited until " + reset.UTC().Format(time.RFC3339)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("UpsertComment: %v; want an error with %q", err, want)
	}
	if pr.IsPermission(err) {
		t.Errorf("IsPermission(%v) = true", err)
	}
	if len(*sl) != 0 {
		t.Errorf("waited %v", *sl)
	}
	diffCalls(t, srv, map[string]int{
		"GET /user":                               1,
		"GET /repos/octo/calc/issues/7/comments":  1,
		"POST /repos/octo/calc/issues/7/comments": 1,
	})
}

func TestReview(t *testing.T) {
	key := func(s string) string { return "<!-- culprit:review " + s + " -->" }
	want := []report.ReviewComment{
		{Path: "calc/calc.go", Line: 8, Body: key("a") + "\nculprit: a", Key: key("a")},
		{Path: "calc/calc.go", Line: 17, Body: key("b") + "\nculprit: b", Key: key("b")},
		{Path: "calc/calc.go", Line: 17, Body: key("b") + "\nculprit: b", Key: key("b")},
	}
	srv, c, _ := setup(t)
	ctx := context.Background()

	// Already posted: a (kept). Outdated: old (deleted) and replied (kept,
	// someone answered it). Not ours: alice's comment quoting a key.
	srv.AddReviewComment(prNum, bot, "calc/calc.go", 8, key("a")+"\nculprit: a", 0)
	old := srv.AddReviewComment(prNum, bot, "calc/calc.go", 3, key("old")+"\nculprit: old", 0)
	replied := srv.AddReviewComment(prNum, bot, "calc/calc.go", 4, key("replied")+"\nculprit: replied", 0)
	srv.AddReviewComment(prNum, "alice", "calc/calc.go", 4, "why?", replied.ID)
	srv.AddReviewComment(prNum, "alice", "calc/calc.go", 9, key("zzz"), 0)

	res, err := c.Review(ctx, "h1", "<!-- culprit:review", want)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(pr.ReviewResult{Posted: 1, Kept: 1, Deleted: 1}, res); d != "" {
		t.Errorf("result (-want +got):\n%s", d)
	}
	diffCalls(t, srv, map[string]int{
		"GET /user":                                              1,
		"GET /repos/octo/calc/pulls/7/comments":                  1,
		"POST /repos/octo/calc/pulls/7/reviews":                  1,
		"DELETE /repos/octo/calc/pulls/comments/" + itoa(old.ID): 1,
	})

	// A rerun with the same findings changes nothing.
	res, err = c.Review(ctx, "h1", "<!-- culprit:review", want)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(pr.ReviewResult{Kept: 2}, res); d != "" {
		t.Errorf("rerun result (-want +got):\n%s", d)
	}
	if n := srv.Calls()["POST /repos/octo/calc/pulls/7/reviews"]; n != 1 {
		t.Errorf("%d reviews after a rerun, want 1", n)
	}
	var lines []int
	for _, cm := range srv.ReviewComments(prNum) {
		if cm.User.Login == bot {
			lines = append(lines, cm.Line)
		}
	}
	if d := cmp.Diff([]int{8, 4, 17}, lines); d != "" {
		t.Errorf("our review comment lines (-want +got):\n%s", d)
	}
}

func TestGetPullRequest(t *testing.T) {
	srv, c, _ := setup(t)
	p, err := c.Get(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if p.BaseSHA != "b0" || p.HeadSHA != "h1" || p.Number != prNum {
		t.Errorf("Get = %+v", p)
	}
	diffCalls(t, srv, map[string]int{"GET /repos/octo/calc/pulls/7": 1})
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// TestStickyMarkerOnlyAsFirstLine: another run's marker quoted inside one
// of our own comments (text that came from a report) does not make that
// comment the other run's: only a comment whose first line is the marker
// is found, and the other run creates its own.
func TestStickyMarkerOnlyAsFirstLine(t *testing.T) {
	srv, c, _ := setup(t)
	other := "<!-- culprit:report:culprit.other -->"
	forged := srv.AddIssueComment(prNum, bot, marker+"\nnote: "+other+" quoted")
	got, _, err := c.UpsertComment(context.Background(), other, other+"\nthe other run")
	if err != nil || got != pr.Created {
		t.Fatalf("UpsertComment: %v, %v; want a new comment", got, err)
	}
	cs := srv.IssueComments(prNum)
	if len(cs) != 2 || cs[0].ID != forged.ID || cs[0].Body != marker+"\nnote: "+other+" quoted" {
		t.Errorf("comments: %+v", cs)
	}
}

// TestUpsertCommentRemovesRacedDuplicate: two runs that raced each created
// the sticky comment; the next run edits the oldest and deletes the other.
func TestUpsertCommentRemovesRacedDuplicate(t *testing.T) {
	srv, c, _ := setup(t)
	first := srv.AddIssueComment(prNum, bot, marker+"\nrun 1")
	second := srv.AddIssueComment(prNum, bot, marker+"\nrun 2")
	got, _, err := c.UpsertComment(context.Background(), marker, marker+"\nrun 3")
	if err != nil || got != pr.Updated {
		t.Fatalf("UpsertComment: %v, %v; want updated", got, err)
	}
	diffCalls(t, srv, map[string]int{
		"GET /user":                              1,
		"GET /repos/octo/calc/issues/7/comments": 1,
		"DELETE /repos/octo/calc/issues/comments/" + itoa(second.ID): 1,
		"PATCH /repos/octo/calc/issues/comments/" + itoa(first.ID):   1,
	})
	if cs := srv.IssueComments(prNum); len(cs) != 1 || cs[0].ID != first.ID || cs[0].Body != marker+"\nrun 3" {
		t.Errorf("comments: %+v", cs)
	}
}
