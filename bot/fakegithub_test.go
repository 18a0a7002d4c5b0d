package bot

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// apiCall is one request the fake GitHub API received.
type apiCall struct {
	Method, Path string
	Body         string // compact JSON, or empty
	Auth         string
}

func (c apiCall) String() string { return c.Method + " " + c.Path }

// fakeGitHub is the GitHub REST API under /api/v3/, as GHES serves it. It
// records every call and answers the few endpoints the bot uses.
type fakeGitHub struct {
	srv *httptest.Server

	mu             sync.Mutex
	calls          []apiCall
	perms          map[string]string // login → permission; absent → 404
	dispatchStatus int               // 0 means 204
	dispatchHeader map[string]string // set on every dispatch answer
	dispatchLimit  int               // this many dispatches first get 429, Retry-After: 1
	block          chan struct{}     // if set, dispatches wait for it to close
}

const installToken = "ghs_installation_token"

func newFakeGitHub(t testing.TB) *fakeGitHub {
	t.Helper()
	f := &fakeGitHub{perms: map[string]string{"alice": "write", "mallory": "admin", "reader": "read"}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /repos/{owner}/{repo}/collaborators/{user}/permission", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		p, ok := f.perms[r.PathValue("user")]
		f.mu.Unlock()
		if !ok {
			writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"permission": p, "user": map[string]string{"login": r.PathValue("user")}})
	})
	mux.HandleFunc("POST /repos/{owner}/{repo}/issues/comments/{id}/reactions", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusCreated, map[string]any{"id": 1, "content": "eyes"})
	})
	mux.HandleFunc("POST /repos/{owner}/{repo}/issues/{number}/comments", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusCreated, map[string]any{"id": 2})
	})
	mux.HandleFunc("POST /repos/{owner}/{repo}/actions/workflows/{file}/dispatches", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		status, block, header := f.dispatchStatus, f.block, f.dispatchHeader
		limited := f.dispatchLimit > 0
		if limited {
			f.dispatchLimit--
		}
		f.mu.Unlock()
		if block != nil {
			<-block
		}
		if limited {
			w.Header().Set("Retry-After", "1")
			writeJSON(w, http.StatusTooManyRequests, map[string]string{"message": "You have exceeded a secondary rate limit."})
			return
		}
		for k, v := range header {
			w.Header().Set(k, v)
		}
		switch status {
		case 0:
			w.WriteHeader(http.StatusNoContent)
		default:
			writeJSON(w, status, map[string]string{"message": http.StatusText(status)})
		}
	})
	mux.HandleFunc("GET /repos/{owner}/{repo}", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"name": r.PathValue("repo"), "default_branch": "trunk"})
	})
	mux.HandleFunc("POST /app/installations/{id}/access_tokens", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusCreated, map[string]any{"token": installToken, "expires_at": time.Now().Add(time.Hour).UTC().Format(time.RFC3339)})
	})
	api := http.StripPrefix("/api/v3", mux)
	record := func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		c := apiCall{Method: r.Method, Path: r.URL.Path, Body: compactJSON(body), Auth: r.Header.Get("Authorization")}
		f.mu.Lock()
		f.calls = append(f.calls, c)
		f.mu.Unlock()
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		api.ServeHTTP(w, r)
	}
	root := http.NewServeMux()
	root.HandleFunc("/api/v3/", record)
	root.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("request outside the API base path: %s %s", r.Method, r.URL.Path)
		http.NotFound(w, r)
	})
	f.srv = httptest.NewServer(root)
	t.Cleanup(f.srv.Close)
	return f
}

// url is the API base URL to configure the bot with.
func (f *fakeGitHub) url() string { return f.srv.URL + "/api/v3/" }

func (f *fakeGitHub) recorded() []apiCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]apiCall(nil), f.calls...)
}

// count returns how many calls were made with this method and path suffix.
func (f *fakeGitHub) count(method, pathSuffix string) int {
	n := 0
	for _, c := range f.recorded() {
		if c.Method == method && strings.HasSuffix(c.Path, pathSuffix) {
			n++
		}
	}
	return n
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// compactJSON normalises a JSON body (keys sorted) so tests can compare it
// as a string.
func compactJSON(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Sprintf("invalid JSON %q", b)
	}
	out, _ := json.Marshal(v)
	return string(out)
}
