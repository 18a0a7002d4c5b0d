package ghclient

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// serverError reports whether resp is one of GitHub's transient failures.
func serverError(resp *http.Response) bool {
	switch resp.StatusCode {
	case http.StatusInternalServerError, http.StatusBadGateway,
		http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// repeatable reports whether req may be sent again after a server error,
// which may have come after GitHub acted on it: reads, and writes that
// leave the same state however often they are made. Creating an
// installation token is one, as an extra token does nothing; creating a
// comment or dispatching a workflow is not.
func repeatable(req *http.Request) bool {
	switch req.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodPut, http.MethodDelete:
		return true
	case http.MethodPost:
		return isTokenExchange(req.URL.Path)
	}
	return false
}

// isTokenExchange matches POST …/app/installations/{id}/access_tokens.
func isTokenExchange(path string) bool {
	rest, ok := strings.CutSuffix(path, "/access_tokens")
	if !ok {
		return false
	}
	i := strings.LastIndex(rest, "/app/installations/")
	if i < 0 {
		return false
	}
	_, err := strconv.ParseInt(rest[i+len("/app/installations/"):], 10, 64)
	return err == nil
}

// backoff is the wait before retry number retries+1 of a server error:
// Retry-After when GitHub sends it (ok is false when that is beyond
// MaxWait), else one second, then two.
func backoff(resp *http.Response, retries int) (wait time.Duration, ok bool) {
	if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s >= 0 {
		d := time.Duration(s) * time.Second
		return d, d <= MaxWait
	}
	return time.Second << retries, true
}

// discard reads a little of resp's body, so that its connection can be
// reused, and closes it.
func discard(resp *http.Response) {
	io.Copy(io.Discard, io.LimitReader(resp.Body, peekLimit))
	resp.Body.Close()
}
