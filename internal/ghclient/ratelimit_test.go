package ghclient_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/culprit-dev/culprit/internal/fakegh"
	"github.com/culprit-dev/culprit/internal/ghclient"
	"github.com/google/go-cmp/cmp"
)

const (
	token = "ghs_test_token"
	getPR = "GET /repos/octo/calc/pulls/7"
)

func TestRateLimit(t *testing.T) {
	resetAt := time.Now().Add(time.Hour).Truncate(time.Second)
	for _, tc := range []struct {
		name       string
		kind       string
		times      int
		retryAfter string
		resetAt    time.Time
		calls      int
		waits      []time.Duration
		wantErr    string // "" means the request succeeds
	}{
		{name: "secondary, retried once", kind: "secondary", times: 1, retryAfter: "1",
			calls: 2, waits: []time.Duration{time.Second}},
		{name: "secondary, retried twice", kind: "secondary", times: 2, retryAfter: "1",
			calls: 3, waits: []time.Duration{time.Second, time.Second}},
		{name: "secondary, retries used up", kind: "secondary", times: 3, retryAfter: "1",
			calls: 3, waits: []time.Duration{time.Second, time.Second}, wantErr: "rate limited until "},
		{name: "secondary, too long to wait", kind: "secondary", times: 1, retryAfter: "61",
			calls: 1, wantErr: "rate limited until "},
		{name: "primary, reset passed", kind: "primary", times: 1,
			calls: 2, waits: []time.Duration{time.Second}},
		{name: "primary, reset in an hour", kind: "primary", times: 1, resetAt: resetAt,
			calls: 1, wantErr: "rate limited until " + resetAt.UTC().Format(time.RFC3339) + ": API rate limit exceeded"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := fakegh.New(t, "octo", "calc", token)
			srv.PRs[7] = fakegh.PR{Number: 7, BaseSHA: "b0", HeadSHA: "h1"}
			srv.RateLimit = map[string]string{getPR: tc.kind}
			srv.RateLimitTimes, srv.ResetAt = tc.times, tc.resetAt
			if tc.retryAfter != "" {
				srv.RetryAfter = tc.retryAfter
			}
			var waits []time.Duration
			sleep := func(_ context.Context, d time.Duration) error {
				waits = append(waits, d)
				return nil
			}
			gh, err := ghclient.New(nil, srv.APIURL(), token, sleep)
			if err != nil {
				t.Fatal(err)
			}
			p, _, err := gh.PullRequests.Get(context.Background(), "octo", "calc", 7)
			switch {
			case tc.wantErr == "" && (err != nil || p.GetHead().GetSHA() != "h1"):
				t.Errorf("Get: %v, %v; want head h1", p, err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("Get: %v; want an error with %q", err, tc.wantErr)
			case tc.wantErr != "" && !ghclient.IsRateLimit(err):
				t.Errorf("IsRateLimit(%v) = false", err)
			}
			if d := cmp.Diff(map[string]int{getPR: tc.calls}, srv.Calls()); d != "" {
				t.Errorf("API calls (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.waits, waits); d != "" {
				t.Errorf("waits (-want +got):\n%s", d)
			}
		})
	}
}

// TestRateLimitWaitEndsWithTheContext checks that a wait for a limit to
// lift stops when the request's context is cancelled.
func TestRateLimitWaitEndsWithTheContext(t *testing.T) {
	srv := fakegh.New(t, "octo", "calc", token)
	srv.PRs[7] = fakegh.PR{Number: 7}
	srv.RateLimit = map[string]string{getPR: "secondary"}
	srv.RetryAfter = "30"
	gh, err := ghclient.New(nil, srv.APIURL(), token, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, _, err = gh.PullRequests.Get(ctx, "octo", "calc", 7)
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 10*time.Second {
		t.Errorf("Get: %v after %v; want the context's deadline at once", err, time.Since(start))
	}
	if n := srv.Calls()[getPR]; n != 1 {
		t.Errorf("%d calls, want 1", n)
	}
}

// TestForbiddenMessageIsARateLimit checks that a 403 whose only sign of a
// rate limit is its message is retried, not taken for a refusal.
func TestForbiddenMessageIsARateLimit(t *testing.T) {
	calls := 0
	rt := &ghclient.Transport{
		Base: roundTripper(func(r *http.Request) (*http.Response, error) {
			calls++
			if calls == 1 {
				body := `{"message":"You have exceeded a secondary rate limit. Please wait."}`
				return &http.Response{StatusCode: 403, Header: http.Header{}, Body: readCloser(body), Request: r}, nil
			}
			return &http.Response{StatusCode: 200, Header: http.Header{}, Body: readCloser(`{}`), Request: r}, nil
		}),
		Sleep: func(context.Context, time.Duration) error { return nil },
	}
	req, _ := http.NewRequest("GET", "http://x/", nil)
	resp, err := rt.RoundTrip(req)
	if err != nil || resp.StatusCode != 200 || calls != 2 {
		t.Errorf("RoundTrip: %v after %d calls; want 200 after 2", err, calls)
	}
	// A 403 that is a refusal is passed on, its body intact.
	rt.Base = roundTripper(func(r *http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: 403, Header: http.Header{}, Body: readCloser(`{"message":"Resource not accessible by integration"}`), Request: r}, nil
	})
	resp, err = rt.RoundTrip(req)
	if err != nil || resp.StatusCode != 403 {
		t.Fatalf("RoundTrip: %v, %v; want the 403", resp, err)
	}
	b := new(strings.Builder)
	if _, err := io.Copy(b, resp.Body); err != nil || !strings.Contains(b.String(), "Resource not accessible") {
		t.Errorf("body %q, %v", b, err)
	}
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func readCloser(s string) io.ReadCloser { return io.NopCloser(strings.NewReader(s)) }
