package ghclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-github/v60/github"
)

const (
	// MaxRetries is how many times a rate-limited request is retried.
	MaxRetries = 2
	// MaxWait bounds one wait before a retry: a limit that lifts later is
	// reported at once rather than waited out, since a job or a webhook
	// worker holding on for an hour helps nobody.
	MaxWait = 60 * time.Second
	// defaultWait is GitHub's advice for a secondary limit that names no
	// time.
	defaultWait = time.Minute
	// peekLimit bounds how much of a 403 body is read to look for a rate
	// limit message.
	peekLimit = 64 << 10
)

// RateLimitError is a request GitHub refused for a rate limit that did not
// lift within the retries.
type RateLimitError struct {
	Until      time.Time // when GitHub says the limit lifts
	StatusCode int       // 403 or 429
	Message    string    // GitHub's message, if any
}

func (e *RateLimitError) Error() string {
	s := "rate limited until " + e.Until.UTC().Format(time.RFC3339)
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// IsRateLimit reports whether err is GitHub refusing for a rate limit,
// whether reported by [Transport] or, for a client built elsewhere, by
// go-github.
func IsRateLimit(err error) bool {
	var own *RateLimitError
	var rl *github.RateLimitError
	var abuse *github.AbuseRateLimitError
	if errors.As(err, &own) || errors.As(err, &rl) || errors.As(err, &abuse) {
		return true
	}
	switch Status(err) {
	case http.StatusTooManyRequests:
		return true
	case http.StatusForbidden:
		return strings.Contains(strings.ToLower(Message(err)), "rate limit")
	}
	return false
}

// Transport retries rate-limited requests (see the package comment).
type Transport struct {
	Base http.RoundTripper // nil means http.DefaultTransport
	// Sleep waits before a retry; nil means a timer that stops when the
	// request's context is done.
	Sleep Sleep
	// Now is the clock read with X-RateLimit-Reset; nil means time.Now.
	Now func() time.Time
}

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.Base
	if base == nil {
		base = http.DefaultTransport
	}
	now := t.Now
	if now == nil {
		now = time.Now
	}
	sleep := t.Sleep
	if sleep == nil {
		sleep = sleepCtx
	}
	// A body already sent cannot be sent again without GetBody.
	replayable := req.Body == nil || req.Body == http.NoBody || req.GetBody != nil
	r := req
	for retries := 0; ; retries++ {
		resp, err := base.RoundTrip(r)
		if err != nil {
			return nil, err
		}
		var wait time.Duration
		switch {
		case rateLimited(resp):
			var until time.Time
			until, wait = lifts(resp, now())
			msg := message(resp) // also closes the body
			if retries == MaxRetries || wait > MaxWait || !replayable {
				return nil, &RateLimitError{Until: until, StatusCode: resp.StatusCode, Message: msg}
			}
		case serverError(resp) && repeatable(req) && replayable && retries < MaxRetries:
			var ok bool
			if wait, ok = backoff(resp, retries); !ok {
				return resp, nil
			}
			discard(resp)
		default:
			return resp, nil
		}
		if err := sleep(req.Context(), wait); err != nil {
			return nil, fmt.Errorf("waiting to retry %s %s: %w", req.Method, req.URL.Path, err)
		}
		r = req.Clone(req.Context())
		if req.GetBody != nil {
			if r.Body, err = req.GetBody(); err != nil {
				return nil, err
			}
		}
	}
}

// rateLimited reports whether resp is a rate limit. A 403 without rate
// limit headers is one only if its message says so, so its body is peeked
// and put back.
func rateLimited(resp *http.Response) bool {
	switch resp.StatusCode {
	case http.StatusTooManyRequests:
		return true
	case http.StatusForbidden:
		if resp.Header.Get("X-RateLimit-Remaining") == "0" || resp.Header.Get("Retry-After") != "" {
			return true
		}
		b, _ := io.ReadAll(io.LimitReader(resp.Body, peekLimit))
		resp.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(b), resp.Body), resp.Body}
		return bytes.Contains(bytes.ToLower(b), []byte("rate limit"))
	}
	return false
}

// lifts is when the limit lifts and how long to wait for it: Retry-After,
// else X-RateLimit-Reset (waiting a second more, as the reset is rounded
// down to one), else a minute.
func lifts(resp *http.Response, now time.Time) (time.Time, time.Duration) {
	if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s >= 0 {
		d := time.Duration(s) * time.Second
		return now.Add(d), d
	}
	if reset, err := strconv.ParseInt(resp.Header.Get("X-RateLimit-Reset"), 10, 64); err == nil {
		at := time.Unix(reset, 0)
		if d := at.Sub(now); d > 0 {
			return at, d + time.Second
		}
		return now, time.Second
	}
	return now.Add(defaultWait), defaultWait
}

// message reads GitHub's error message from resp and closes its body.
func message(resp *http.Response) string {
	defer resp.Body.Close()
	var body struct {
		Message string `json:"message"`
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, peekLimit))
	if json.Unmarshal(b, &body) != nil {
		return ""
	}
	return body.Message
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
