package ghclient

import (
	"errors"
	"net/http"

	"github.com/google/go-github/v60/github"
)

// Status returns the HTTP status of a GitHub API error, as go-github or
// [Transport] reports it, through any wrapping: 403 or 429 for a rate
// limit, 202 for go-github's "job scheduled" error. It is 0 for an error
// GitHub did not answer (a network failure, a cancelled context) and for
// nil. Callers branch on it instead of on go-github's error types, which
// differ for the same status (a 403 is an *ErrorResponse, a
// *RateLimitError or an *AbuseRateLimitError depending on its headers).
func Status(err error) int {
	if err == nil {
		return 0
	}
	var own *RateLimitError
	if errors.As(err, &own) {
		return own.StatusCode
	}
	if resp := response(err); resp != nil {
		return resp.StatusCode
	}
	var accepted *github.AcceptedError
	if errors.As(err, &accepted) {
		return http.StatusAccepted
	}
	return 0
}

// response is the HTTP response that go-github's error in err carries,
// or nil.
func response(err error) *http.Response {
	var er *github.ErrorResponse
	var tf *github.TwoFactorAuthError
	var rl *github.RateLimitError
	var abuse *github.AbuseRateLimitError
	switch {
	case errors.As(err, &er):
		return er.Response
	case errors.As(err, &tf):
		return tf.Response
	case errors.As(err, &rl):
		return rl.Response
	case errors.As(err, &abuse):
		return abuse.Response
	}
	return nil
}

// Message returns what GitHub said about err, for a person to read: for
// a [*RateLimitError], when the limit lifts and GitHub's message; for
// an error response, its message ("Unexpected inputs provided: [...]").
// It is "" for any other error, go-github's own rate limit errors
// included, whose message only repeats what [IsRateLimit] tells.
func Message(err error) string {
	var own *RateLimitError
	if errors.As(err, &own) {
		return own.Error()
	}
	var er *github.ErrorResponse
	if errors.As(err, &er) {
		return er.Message
	}
	return ""
}
