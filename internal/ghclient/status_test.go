package ghclient_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/culprit-dev/culprit/internal/ghclient"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-github/v60/github"
)

// answer is the error go-github returns for GitHub's answer: CheckResponse
// is what its client calls on every response, and picks the error type
// from the status, the headers and the body.
func answer(t *testing.T, status int, header map[string]string, body string) error {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, "https://api.github.com/repos/octo/calc/actions/workflows/culprit.yml/dispatches", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp := &http.Response{StatusCode: status, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(body)), Request: req}
	for k, v := range header {
		resp.Header.Set(k, v)
	}
	err = github.CheckResponse(resp)
	if err == nil {
		t.Fatalf("go-github accepts a %d", status)
	}
	return err
}

func TestStatus(t *testing.T) {
	until := time.Date(2024, 1, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name      string
		err       func(t *testing.T) error
		typ       string // the type go-github (or Transport) chose
		status    int
		message   string
		rateLimit bool
	}{{
		name: "no error",
		err:  func(*testing.T) error { return nil },
	}, {
		name: "network failure",
		err: func(*testing.T) error {
			return &url.Error{Op: "Post", URL: "https://api.github.com/", Err: errors.New("dial tcp: connection refused")}
		},
	}, {
		name: "cancelled",
		err:  func(*testing.T) error { return fmt.Errorf("dispatching: %w", context.Canceled) },
	}, {
		name: "not found",
		typ:  "*github.ErrorResponse",
		err: func(t *testing.T) error {
			return answer(t, http.StatusNotFound, nil, `{"message":"Not Found","documentation_url":"https://docs.github.com/rest"}`)
		},
		status: http.StatusNotFound, message: "Not Found",
	}, {
		name: "unprocessable, wrapped by the caller",
		typ:  "*github.ErrorResponse",
		err: func(t *testing.T) error {
			return fmt.Errorf("dispatching culprit.yml on main: %w",
				answer(t, http.StatusUnprocessableEntity, nil, `{"message":"Unexpected inputs provided: [\"head-sha\"]"}`))
		},
		status: http.StatusUnprocessableEntity, message: `Unexpected inputs provided: ["head-sha"]`,
	}, {
		name: "forbidden",
		typ:  "*github.ErrorResponse",
		err: func(t *testing.T) error {
			return answer(t, http.StatusForbidden, nil, `{"message":"Resource not accessible by integration"}`)
		},
		status: http.StatusForbidden, message: "Resource not accessible by integration",
	}, {
		name: "server error",
		typ:  "*github.ErrorResponse",
		err: func(t *testing.T) error {
			return answer(t, http.StatusBadGateway, nil, `{"message":"Server Error"}`)
		},
		status: http.StatusBadGateway, message: "Server Error",
	}, {
		name: "go-github's primary rate limit",
		typ:  "*github.RateLimitError",
		err: func(t *testing.T) error {
			return answer(t, http.StatusForbidden, map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1704110400"},
				`{"message":"API rate limit exceeded for installation ID 1."}`)
		},
		status: http.StatusForbidden, rateLimit: true,
	}, {
		name: "go-github's secondary rate limit",
		typ:  "*github.AbuseRateLimitError",
		err: func(t *testing.T) error {
			return answer(t, http.StatusForbidden, nil,
				`{"message":"You have exceeded a secondary rate limit.","documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"}`)
		},
		status: http.StatusForbidden, rateLimit: true,
	}, {
		name: "Transport's rate limit, as http.Client wraps it",
		typ:  "*ghclient.RateLimitError",
		err: func(*testing.T) error {
			return fmt.Errorf("fetching pull request #7: %w", &url.Error{Op: "Get", URL: "https://api.github.com/repos/octo/calc/pulls/7",
				Err: &ghclient.RateLimitError{Until: until, StatusCode: http.StatusTooManyRequests, Message: "slow down"}})
		},
		status: http.StatusTooManyRequests, message: "rate limited until 2024-01-01T12:00:00Z: slow down", rateLimit: true,
	}, {
		name: "two-factor authentication",
		typ:  "*github.TwoFactorAuthError",
		err: func(t *testing.T) error {
			return answer(t, http.StatusUnauthorized, map[string]string{"X-GitHub-OTP": "required; app"}, `{"message":"Must specify two-factor authentication OTP code."}`)
		},
		status: http.StatusUnauthorized,
	}, {
		name: "job scheduled",
		typ:  "*github.AcceptedError",
		err: func(t *testing.T) error {
			return answer(t, http.StatusAccepted, nil, `{}`)
		},
		status: http.StatusAccepted,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.err(t)
			if tc.typ != "" {
				if got := innermost(err); got != tc.typ {
					t.Fatalf("the error is a %s, not a %s", got, tc.typ)
				}
			}
			type classified struct {
				Status    int
				Message   string
				RateLimit bool
			}
			want := classified{tc.status, tc.message, tc.rateLimit}
			got := classified{ghclient.Status(err), ghclient.Message(err), ghclient.IsRateLimit(err)}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%v (-want +got):\n%s", err, diff)
			}
		})
	}
}

// innermost is the type of the error at the end of err's chain.
func innermost(err error) string {
	for errors.Unwrap(err) != nil {
		err = errors.Unwrap(err)
	}
	return fmt.Sprintf("%T", err)
}
