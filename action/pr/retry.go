package pr

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"time"
)

// MaxRetryWait bounds how long RetryTransport waits before its one retry;
// a limit that resets later than this is reported, not waited out.
const MaxRetryWait = 2 * time.Minute

// RetryTransport retries a request once when GitHub answers with a rate
// limit: 429, or 403 with X-RateLimit-Remaining: 0 or a Retry-After header.
// It waits Retry-After seconds, or until X-RateLimit-Reset, or a minute.
type RetryTransport struct {
	Base http.RoundTripper // nil means http.DefaultTransport
	// Sleep waits for d or until ctx is done; nil means a real timer.
	Sleep func(ctx context.Context, d time.Duration) error
	// Now is the clock used with X-RateLimit-Reset; nil means time.Now.
	Now func() time.Time
}

// RoundTrip implements http.RoundTripper.
func (t *RetryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.Base
	if base == nil {
		base = http.DefaultTransport
	}
	resp, err := base.RoundTrip(req)
	if err != nil || !rateLimited(resp) {
		return resp, err
	}
	wait := t.wait(resp)
	if wait > MaxRetryWait || (req.Body != nil && req.GetBody == nil) {
		return resp, nil
	}
	retry := req.Clone(req.Context())
	if req.GetBody != nil {
		body, err := req.GetBody()
		if err != nil {
			return resp, nil
		}
		retry.Body = body
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	sleep := t.Sleep
	if sleep == nil {
		sleep = sleepCtx
	}
	if err := sleep(req.Context(), wait); err != nil {
		return nil, err
	}
	return base.RoundTrip(retry)
}

func rateLimited(resp *http.Response) bool {
	switch resp.StatusCode {
	case http.StatusTooManyRequests:
		return true
	case http.StatusForbidden:
		return resp.Header.Get("X-RateLimit-Remaining") == "0" || resp.Header.Get("Retry-After") != ""
	}
	return false
}

func (t *RetryTransport) wait(resp *http.Response) time.Duration {
	if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s >= 0 {
		return time.Duration(s) * time.Second
	}
	if reset, err := strconv.ParseInt(resp.Header.Get("X-RateLimit-Reset"), 10, 64); err == nil {
		now := time.Now
		if t.Now != nil {
			now = t.Now
		}
		if d := time.Unix(reset, 0).Sub(now()); d > 0 {
			return d + time.Second
		}
		return time.Second
	}
	return time.Minute
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
