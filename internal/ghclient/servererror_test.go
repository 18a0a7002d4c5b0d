package ghclient_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"net/http"
	"testing"
	"time"

	"github.com/culprit-dev/culprit/internal/fakegh"
	"github.com/culprit-dev/culprit/internal/ghclient"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-github/v60/github"
)

const postComment = "POST /repos/octo/calc/issues/7/comments"

// recordSleeps is a Sleep that only records the waits.
func recordSleeps(waits *[]time.Duration) ghclient.Sleep {
	return func(_ context.Context, d time.Duration) error {
		*waits = append(*waits, d)
		return nil
	}
}

func TestServerErrors(t *testing.T) {
	for _, tc := range []struct {
		name       string
		key        string // the request made and failed
		fault      fakegh.Fault
		wantCalls  int
		waits      []time.Duration
		wantStatus int // of the error; 0 means success
	}{
		{name: "read, one 502", key: getPR, fault: fakegh.Fault{Status: 502, Times: 1},
			wantCalls: 2, waits: []time.Duration{time.Second}},
		{name: "read, two 503s", key: getPR, fault: fakegh.Fault{Status: 503, Times: 2},
			wantCalls: 3, waits: []time.Duration{time.Second, 2 * time.Second}},
		{name: "read, retries used up", key: getPR, fault: fakegh.Fault{Status: 500},
			wantCalls: 3, waits: []time.Duration{time.Second, 2 * time.Second}, wantStatus: 500},
		{name: "read, not a transient error", key: getPR, fault: fakegh.Fault{Status: 501, Times: 1},
			wantCalls: 1, wantStatus: 501},
		{name: "comment, never repeated", key: postComment, fault: fakegh.Fault{Status: 502, Times: 1},
			wantCalls: 1, wantStatus: 502},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := fakegh.New(t, "octo", "calc", token)
			srv.PRs[7] = fakegh.PR{Number: 7, BaseSHA: "b0", HeadSHA: "h1"}
			srv.Fail = map[string]fakegh.Fault{tc.key: tc.fault}
			var waits []time.Duration
			gh, err := ghclient.New(nil, srv.APIURL(), token, recordSleeps(&waits))
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			if tc.key == getPR {
				_, _, err = gh.PullRequests.Get(ctx, "octo", "calc", 7)
			} else {
				_, _, err = gh.Issues.CreateComment(ctx, "octo", "calc", 7, &github.IssueComment{Body: github.String("hi")})
			}
			var status int
			if er, ok := err.(*github.ErrorResponse); ok {
				status = er.Response.StatusCode
			} else if err != nil {
				t.Fatalf("error %v, want a *github.ErrorResponse", err)
			}
			if status != tc.wantStatus {
				t.Errorf("status %d (%v), want %d", status, err, tc.wantStatus)
			}
			if d := cmp.Diff(map[string]int{tc.key: tc.wantCalls}, srv.Calls()); d != "" {
				t.Errorf("API calls (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.waits, waits); d != "" {
				t.Errorf("waits (-want +got):\n%s", d)
			}
			if n := len(srv.IssueComments(7)); n > 1 {
				t.Errorf("%d comments created, want at most 1", n)
			}
		})
	}
}

// TestAppTokenExchangeRetried checks that an App's installation-token
// exchange is retried on rate limits and server errors, and that the token
// it gets then authenticates the call (the fake checks the JWT and token).
func TestAppTokenExchangeRetried(t *testing.T) {
	const exchange = "POST /app/installations/77/access_tokens"
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		setup func(*fakegh.Server)
		calls int
		waits []time.Duration
	}{
		{"no error", func(*fakegh.Server) {}, 1, nil},
		{"server error", func(s *fakegh.Server) {
			s.Fail = map[string]fakegh.Fault{exchange: {Status: http.StatusBadGateway, Times: 2}}
		}, 3, []time.Duration{time.Second, 2 * time.Second}},
		{"secondary rate limit", func(s *fakegh.Server) {
			s.RateLimit = map[string]string{exchange: "secondary"}
			s.RetryAfter = "5"
		}, 2, []time.Duration{5 * time.Second}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := fakegh.New(t, "octo", "calc", "ghs_installation")
			srv.App = &fakegh.App{ID: 12, Slug: "culprit", Key: &key.PublicKey, InstallationID: 77}
			srv.PRs[7] = fakegh.PR{Number: 7, HeadSHA: "h1"}
			tc.setup(srv)
			var waits []time.Duration
			gh, err := ghclient.NewApp(nil, srv.APIURL(), 12, 77, key, recordSleeps(&waits))
			if err != nil {
				t.Fatal(err)
			}
			p, _, err := gh.PullRequests.Get(context.Background(), "octo", "calc", 7)
			if err != nil || p.GetHead().GetSHA() != "h1" {
				t.Fatalf("Get: %v, %v", p, err)
			}
			if d := cmp.Diff(map[string]int{exchange: tc.calls, getPR: 1}, srv.Calls()); d != "" {
				t.Errorf("API calls (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.waits, waits); d != "" {
				t.Errorf("waits (-want +got):\n%s", d)
			}
		})
	}
}

// A rate limit on the exchange that does not lift soon is reported as one,
// through ghinstallation's and go-github's wrapping.
func TestAppTokenExchangeRateLimited(t *testing.T) {
	const exchange = "POST /app/installations/77/access_tokens"
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	srv := fakegh.New(t, "octo", "calc", "ghs_installation")
	srv.App = &fakegh.App{ID: 12, Slug: "culprit", Key: &key.PublicKey, InstallationID: 77}
	srv.PRs[7] = fakegh.PR{Number: 7}
	srv.RateLimit = map[string]string{exchange: "primary"}
	srv.ResetAt = time.Now().Add(time.Hour)
	gh, err := ghclient.NewApp(nil, srv.APIURL(), 12, 77, key, recordSleeps(new([]time.Duration)))
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = gh.PullRequests.Get(context.Background(), "octo", "calc", 7)
	if !ghclient.IsRateLimit(err) {
		t.Errorf("Get: %v; want a rate limit error", err)
	}
	if d := cmp.Diff(map[string]int{exchange: 1}, srv.Calls()); d != "" {
		t.Errorf("API calls (-want +got):\n%s", d)
	}
}
