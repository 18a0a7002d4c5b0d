// Package fakegh is an in-memory GitHub REST API for tests of the Action
// and the bot: an httptest server with a mux mounted under a base path
// that serves the few endpoints culprit uses, checks the method, path, body
// and Authorization header of every request, and counts them. A request
// to any other endpoint fails the test.
package fakegh

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

// BasePath is where the API is mounted, as on GitHub Enterprise Server.
const BasePath = "/api/v3"

// Comment is an issue or review comment held by the server.
type Comment struct {
	ID        int64  `json:"id"`
	Body      string `json:"body"`
	User      User   `json:"user"`
	Path      string `json:"path,omitempty"`
	StartLine int    `json:"start_line,omitempty"`
	Line      int    `json:"line,omitempty"`
	StartSide string `json:"start_side,omitempty"`
	Side      string `json:"side,omitempty"`
	CommitID  string `json:"commit_id,omitempty"`
	InReplyTo int64  `json:"in_reply_to_id,omitempty"`
	HTMLURL   string `json:"html_url"`
	// Reactions are the contents of the reactions added through the API,
	// in order ("eyes", "+1", …).
	Reactions []string `json:"-"`
}

// User is a comment's author.
type User struct {
	Login string `json:"login"`
	Type  string `json:"type,omitempty"`
}

// PR is a pull request the server knows.
type PR struct {
	Number  int
	BaseSHA string
	HeadSHA string
	// Author is the login that opened the pull request; AuthorAssociation
	// is GitHub's word for their relation to the repository (OWNER,
	// MEMBER, COLLABORATOR, CONTRIBUTOR, FIRST_TIME_CONTRIBUTOR,
	// FIRST_TIMER, NONE). Either is left out of the answer when empty.
	Author            string
	AuthorAssociation string
	// HeadRepo is the "owner/name" of the repository the head branch is
	// in, a fork's; "" means the repository itself.
	HeadRepo string
	// HeadRef is the head branch, "feature" unless set.
	HeadRef string
	// State is "open" unless set ("closed").
	State string
}

// Server is the fake API. Set its fields before the first request.
type Server struct {
	*httptest.Server
	t testing.TB

	Owner, Repo string
	// Token is the token every request must carry: as a bearer token, or,
	// when App is set, as the installation token ("token …") that the
	// App's token exchange hands out.
	Token string
	// App, when set, makes the server a GitHub App installation: see
	// [App].
	App *App
	// DefaultBranch is the repository's default branch, "main" unless set.
	DefaultBranch string
	// Permissions maps a login to its permission on the repository
	// (admin, maintain, write, triage, read); a login not listed is not a
	// collaborator (404).
	Permissions map[string]string
	// Workflows maps a workflow file name to the workflow_dispatch inputs
	// it declares, required ones marked with a trailing "!"; a dispatch of
	// another file answers 404, of an undeclared input 422.
	Workflows map[string][]string
	// Fail answers a "METHOD /path" key with an error (see [Fault]).
	Fail map[string]Fault
	// OnRequest, if set, is called with the key of every request before it
	// is answered, outside the server's lock: a test can block there.
	OnRequest func(key string)
	// Login is what GET /user answers; "" answers 403 as the Actions
	// GITHUB_TOKEN gets.
	Login string
	// ReadOnly makes every write answer 403, as a fork's token gets.
	ReadOnly bool
	// PageSize caps per_page so tests can force several pages.
	PageSize int
	// RateLimit answers the first RateLimitTimes requests to a
	// "METHOD /path" key with a rate-limit response of this kind:
	// "primary" (403, remaining 0, X-RateLimit-Reset ResetAt) or
	// "secondary" (429, Retry-After RetryAfter).
	RateLimit      map[string]string
	RateLimitTimes int       // 1 unless set
	RetryAfter     string    // seconds; "3" unless set
	ResetAt        time.Time // the zero time means 1970, already past

	mu       sync.Mutex
	nextID   int64
	PRs      map[int]PR
	Issue    map[int][]*Comment // issue comments by PR number
	Reviewed map[int][]*Comment // review comments by PR number
	Reviews  map[int]int        // reviews created by PR number
	calls    map[string]int
	limited  map[string]int
	failed   map[string]int
	requests []string

	dispatches []Dispatch
	tokens     int // installation tokens handed out

	// Run runs accepted dispatches (runs.go); QueueLatency is how long a
	// dispatched run waits before it is listed and its work starts.
	Run          Run
	QueueLatency time.Duration
	runs         runs
}

// Fault is an error answer injected by [Server.Fail].
type Fault struct {
	Status int // the HTTP status; the message is its text
	// Times is how many requests get it; 0 means every one.
	Times int
}

// New starts a fake API for owner/repo that expects token. It is closed
// when the test ends.
func New(t testing.TB, owner, repo, token string) *Server {
	t.Helper()
	s := &Server{
		t: t, Owner: owner, Repo: repo, Token: token, PageSize: 100,
		nextID: 1000, PRs: map[int]PR{}, Issue: map[int][]*Comment{},
		Reviewed: map[int][]*Comment{}, Reviews: map[int]int{},
		calls: map[string]int{}, limited: map[string]int{}, failed: map[string]int{},
		RateLimitTimes: 1, RetryAfter: "3", DefaultBranch: "main",
	}
	mux := http.NewServeMux()
	repoPath := BasePath + "/repos/{owner}/{repo}"
	mux.HandleFunc("GET "+BasePath+"/user", s.getUser)
	mux.HandleFunc("GET "+repoPath+"/pulls/{number}", s.getPR)
	mux.HandleFunc("GET "+repoPath+"/pulls", s.listPRs)
	mux.HandleFunc("GET "+repoPath+"/issues/{number}/comments", s.listIssueComments)
	mux.HandleFunc("POST "+repoPath+"/issues/{number}/comments", s.createIssueComment)
	mux.HandleFunc("PATCH "+repoPath+"/issues/comments/{id}", s.editIssueComment)
	mux.HandleFunc("DELETE "+repoPath+"/issues/comments/{id}", s.deleteIssueComment)
	mux.HandleFunc("GET "+repoPath+"/pulls/{number}/comments", s.listReviewComments)
	mux.HandleFunc("POST "+repoPath+"/pulls/{number}/reviews", s.createReview)
	mux.HandleFunc("DELETE "+repoPath+"/pulls/comments/{id}", s.deleteReviewComment)
	mux.HandleFunc("GET "+repoPath, s.getRepo)
	mux.HandleFunc("GET "+repoPath+"/collaborators/{user}/permission", s.getPermission)
	mux.HandleFunc("POST "+repoPath+"/issues/comments/{id}/reactions", s.createReaction)
	mux.HandleFunc("POST "+repoPath+"/actions/workflows/{file}/dispatches", s.dispatch)
	mux.HandleFunc("POST "+BasePath+"/app/installations/{id}/access_tokens", s.createInstallationToken)
	s.routeRuns(mux, repoPath)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("fake GitHub: unexpected request %s %s", r.Method, r.URL.Path)
		http.Error(w, `{"message":"Not Found"}`, http.StatusNotFound)
	})
	s.Server = httptest.NewServer(s.blobs(s.check(mux)))
	t.Cleanup(s.Close)
	// The runs' work ends before the server closes (cleanups run last
	// first).
	t.Cleanup(s.runs.wg.Wait)
	return s
}

// APIURL is the value for GITHUB_API_URL.
func (s *Server) APIURL() string { return s.URL + BasePath }

// Calls returns how many requests each "METHOD /path" received (path
// without BasePath), rate-limited ones included.
func (s *Server) Calls() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := make(map[string]int, len(s.calls))
	for k, v := range s.calls {
		m[k] = v
	}
	return m
}

// Requests lists every request as "METHOD /path", in order.
func (s *Server) Requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.requests...)
}

// AddIssueComment seeds an issue comment and returns it.
func (s *Server) AddIssueComment(pr int, login, body string) *Comment {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.newComment(login, body)
	s.Issue[pr] = append(s.Issue[pr], c)
	return c
}

// PutIssueComment seeds an issue comment with the given id (a webhook
// fixture's), author and body and returns it.
func (s *Server) PutIssueComment(pr int, id int64, login, body string) *Comment {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.newComment(login, body)
	c.ID = id
	s.Issue[pr] = append(s.Issue[pr], c)
	return c
}

// AddReviewComment seeds a review comment and returns it.
func (s *Server) AddReviewComment(pr int, login, path string, line int, body string, inReplyTo int64) *Comment {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.newComment(login, body)
	c.Path, c.Line, c.Side, c.InReplyTo = path, line, "RIGHT", inReplyTo
	s.Reviewed[pr] = append(s.Reviewed[pr], c)
	return c
}

// IssueComments returns a copy of the issue comments of pr.
func (s *Server) IssueComments(pr int) []Comment {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Comment
	for _, c := range s.Issue[pr] {
		out = append(out, *c)
	}
	return out
}

// ReviewComments returns a copy of the review comments of pr.
func (s *Server) ReviewComments(pr int) []Comment {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Comment
	for _, c := range s.Reviewed[pr] {
		out = append(out, *c)
	}
	return out
}

func (s *Server) newComment(login, body string) *Comment {
	s.nextID++
	typ := "User"
	if strings.HasSuffix(login, "[bot]") {
		typ = "Bot"
	}
	return &Comment{ID: s.nextID, Body: body, User: User{Login: login, Type: typ},
		HTMLURL: fmt.Sprintf("https://github.example/%s/%s/pull/x#c%d", s.Owner, s.Repo, s.nextID)}
}

// check is the middleware run on every request: auth, repository, JSON
// bodies, counting and injected rate limits.
func (s *Server) check(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Method + " " + strings.TrimPrefix(r.URL.Path, BasePath)
		s.mu.Lock()
		s.calls[key]++
		s.requests = append(s.requests, key)
		kind, limit := s.RateLimit[key]
		if limit && s.limited[key] < s.RateLimitTimes {
			s.limited[key]++
		} else {
			limit = false
		}
		fault, faulty := s.Fail[key]
		if faulty && (fault.Times == 0 || s.failed[key] < fault.Times) {
			s.failed[key]++
		} else {
			faulty = false
		}
		hook := s.OnRequest
		s.mu.Unlock()
		if hook != nil {
			hook(key)
		}
		// The token exchange is authenticated by the App's JWT, checked
		// by its handler.
		if !s.isTokenExchange(r) {
			if got, want := r.Header.Get("Authorization"), s.authorization(); got != want {
				s.t.Errorf("fake GitHub: %s: Authorization = %q, want %q", key, got, want)
				s.fail(w, http.StatusUnauthorized, "Bad credentials")
				return
			}
		}
		if !strings.HasPrefix(r.Header.Get("Accept"), "application/vnd.github") {
			s.t.Errorf("fake GitHub: %s: Accept = %q", key, r.Header.Get("Accept"))
		}
		repoPath := BasePath + "/repos/" + s.Owner + "/" + s.Repo
		if strings.HasPrefix(r.URL.Path, BasePath+"/repos/") && r.URL.Path != repoPath && !strings.HasPrefix(r.URL.Path, repoPath+"/") {
			s.t.Errorf("fake GitHub: %s: not repository %s/%s", key, s.Owner, s.Repo)
		}
		if faulty {
			s.fail(w, fault.Status, http.StatusText(fault.Status))
			return
		}
		if limit {
			w.Header().Set("Content-Type", "application/json")
			switch kind {
			case "secondary":
				w.Header().Set("Retry-After", s.RetryAfter)
				w.WriteHeader(http.StatusTooManyRequests)
				io.WriteString(w, `{"message":"You have exceeded a secondary rate limit."}`)
			default:
				w.Header().Set("X-RateLimit-Limit", "5000")
				w.Header().Set("X-RateLimit-Remaining", "0")
				reset := int64(0)
				if !s.ResetAt.IsZero() {
					reset = s.ResetAt.Unix()
				}
				w.Header().Set("X-RateLimit-Reset", strconv.FormatInt(reset, 10))
				w.WriteHeader(http.StatusForbidden)
				io.WriteString(w, `{"message":"API rate limit exceeded"}`)
			}
			return
		}
		w.Header().Set("X-RateLimit-Limit", "5000")
		w.Header().Set("X-RateLimit-Remaining", "4999")
		next.ServeHTTP(w, r)
	})
}

func (s *Server) json(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	if err := json.NewEncoder(w).Encode(v); err != nil {
		s.t.Errorf("fake GitHub: encoding response: %v", err)
	}
}

func (s *Server) fail(w http.ResponseWriter, code int, msg string) {
	s.json(w, code, map[string]string{"message": msg, "documentation_url": "https://docs.github.com/rest"})
}

func (s *Server) forbidWrite(w http.ResponseWriter) bool {
	if s.ReadOnly {
		s.fail(w, http.StatusForbidden, "Resource not accessible by integration")
		return true
	}
	return false
}

func (s *Server) number(w http.ResponseWriter, r *http.Request) (int, bool) {
	n, err := strconv.Atoi(r.PathValue("number"))
	if err != nil {
		s.t.Errorf("fake GitHub: %s %s: bad number", r.Method, r.URL.Path)
		s.fail(w, http.StatusNotFound, "Not Found")
		return 0, false
	}
	if _, ok := s.PRs[n]; !ok {
		s.t.Errorf("fake GitHub: %s %s: no pull request #%d", r.Method, r.URL.Path, n)
		s.fail(w, http.StatusNotFound, "Not Found")
		return 0, false
	}
	return n, true
}

// body decodes a JSON request body and checks it has a non-empty "body"
// under GitHub's size limit when want says so.
func (s *Server) body(w http.ResponseWriter, r *http.Request, v any) bool {
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		s.t.Errorf("fake GitHub: %s %s: Content-Type = %q", r.Method, r.URL.Path, ct)
	}
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		s.t.Errorf("fake GitHub: %s %s: body: %v", r.Method, r.URL.Path, err)
		s.fail(w, http.StatusBadRequest, "Problems parsing JSON")
		return false
	}
	return true
}

func (s *Server) tooLong(w http.ResponseWriter, body string) bool {
	if utf8.RuneCountInString(body) >= 65536 {
		s.t.Errorf("fake GitHub: body of %d characters", utf8.RuneCountInString(body))
		s.fail(w, http.StatusUnprocessableEntity, "Validation Failed: body is too long (maximum is 65536 characters)")
		return true
	}
	if body == "" {
		s.t.Errorf("fake GitHub: empty body")
		s.fail(w, http.StatusUnprocessableEntity, "Validation Failed: body")
		return true
	}
	return false
}

func (s *Server) getUser(w http.ResponseWriter, r *http.Request) {
	if s.Login == "" {
		s.fail(w, http.StatusForbidden, "Resource not accessible by integration")
		return
	}
	s.json(w, http.StatusOK, User{Login: s.Login, Type: "User"})
}

func (s *Server) getPR(w http.ResponseWriter, r *http.Request) {
	n, ok := s.number(w, r)
	if !ok {
		return
	}
	s.json(w, http.StatusOK, s.prJSON(s.PRs[n]))
}

// repoJSON is the repository object of a pull request's base or head.
func repoJSON(fullName string, fork bool) map[string]any {
	owner, name, _ := strings.Cut(fullName, "/")
	return map[string]any{"name": name, "full_name": fullName, "owner": map[string]any{"login": owner}, "fork": fork}
}

// Keys returns the sorted keys of a call-count map, for messages.
func Keys(m map[string]int) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
