package fakegh_test

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/culprit-dev/culprit/internal/fakegh"
	"github.com/golang-jwt/jwt/v4"
	"github.com/google/go-cmp/cmp"
)

// recorder is a testing.TB whose Errorf only records, so that a test can
// check that the fake fails a test where it should.
type recorder struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func (r *recorder) Helper() {}

func (r *recorder) errors() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.errs...)
}

const token = "ghs_token"

// TestStrict checks what the fake answers and which requests fail the
// test: a request GitHub would answer with an error the client must
// handle is answered so, quietly; a request culprit should never make
// fails the test.
func TestStrict(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	other, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	signed := func(k *rsa.PrivateKey, issuer string) string {
		now := time.Now()
		s, err := jwt.NewWithClaims(jwt.SigningMethodRS256, jwt.RegisteredClaims{
			Issuer: issuer, IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(now.Add(time.Minute)),
		}).SignedString(k)
		if err != nil {
			t.Fatal(err)
		}
		return "Bearer " + s
	}
	bearer := "Bearer " + token
	for _, tc := range []struct {
		name       string
		app        bool
		method     string
		path       string
		auth       string
		body       string
		wantStatus int
		wantError  string // a substring of the one test error; "" means none
		wantBody   string // a substring of the answer
	}{
		{name: "unknown endpoint", method: "GET", path: "/repos/octo/calc/branches", auth: bearer,
			wantStatus: 404, wantError: "unexpected request GET /api/v3/repos/octo/calc/branches"},
		{name: "outside the base path", method: "GET", path: "/../user", auth: bearer,
			wantStatus: 404, wantError: "unexpected request"},
		{name: "another repository", method: "GET", path: "/repos/octo/other", auth: bearer,
			wantStatus: 200, wantError: "not repository octo/calc"},
		{name: "bad token", method: "GET", path: "/repos/octo/calc", auth: "Bearer nope",
			wantStatus: 401, wantError: `Authorization = "Bearer nope"`},
		{name: "repository", method: "GET", path: "/repos/octo/calc", auth: bearer,
			wantStatus: 200, wantBody: `"default_branch":"main"`},
		{name: "collaborator", method: "GET", path: "/repos/octo/calc/collaborators/alice/permission", auth: bearer,
			wantStatus: 200, wantBody: `"permission":"write"`},
		{name: "not a collaborator", method: "GET", path: "/repos/octo/calc/collaborators/eve/permission", auth: bearer,
			wantStatus: 404},
		{name: "reaction", method: "POST", path: "/repos/octo/calc/issues/comments/1001/reactions", auth: bearer,
			body: `{"content":"eyes"}`, wantStatus: 201},
		{name: "reaction to an unknown comment", method: "POST", path: "/repos/octo/calc/issues/comments/5/reactions", auth: bearer,
			body: `{"content":"eyes"}`, wantStatus: 404, wantError: "unknown issue comment 5"},
		{name: "reaction GitHub does not have", method: "POST", path: "/repos/octo/calc/issues/comments/1001/reactions", auth: bearer,
			body: `{"content":"party"}`, wantStatus: 422, wantError: `reaction "party"`},
		{name: "dispatch", method: "POST", path: "/repos/octo/calc/actions/workflows/culprit.yml/dispatches", auth: bearer,
			body: `{"ref":"main","inputs":{"pr-number":"7"}}`, wantStatus: 204},
		{name: "dispatch of another workflow", method: "POST", path: "/repos/octo/calc/actions/workflows/ci.yml/dispatches", auth: bearer,
			body: `{"ref":"main"}`, wantStatus: 404},
		{name: "dispatch with an undeclared input", method: "POST", path: "/repos/octo/calc/actions/workflows/culprit.yml/dispatches", auth: bearer,
			body: `{"ref":"main","inputs":{"pr-number":"7","force":"yes"}}`, wantStatus: 422, wantBody: `Unexpected inputs provided: [\"force\"]`},
		{name: "dispatch without a required input", method: "POST", path: "/repos/octo/calc/actions/workflows/culprit.yml/dispatches", auth: bearer,
			body: `{"ref":"main","inputs":{"tests":"TestA"}}`, wantStatus: 422, wantBody: `Required input 'pr-number' not provided`},
		{name: "dispatch on a missing branch", method: "POST", path: "/repos/octo/calc/actions/workflows/culprit.yml/dispatches", auth: bearer,
			body: `{"ref":"feature","inputs":{"pr-number":"7"}}`, wantStatus: 422, wantBody: "No ref found for: feature"},
		{name: "dispatch with a number input", method: "POST", path: "/repos/octo/calc/actions/workflows/culprit.yml/dispatches", auth: bearer,
			body: `{"ref":"main","inputs":{"pr-number":7}}`, wantStatus: 422, wantError: "not a string"},
		{name: "token exchange", app: true, method: "POST", path: "/app/installations/77/access_tokens",
			auth: signed(key, "12"), wantStatus: 201, wantBody: `"token":"ghs_token"`},
		{name: "token exchange, JWT of another key", app: true, method: "POST", path: "/app/installations/77/access_tokens",
			auth: signed(other, "12"), wantStatus: 401, wantError: "JWT does not verify"},
		{name: "token exchange, another App", app: true, method: "POST", path: "/app/installations/77/access_tokens",
			auth: signed(key, "13"), wantStatus: 401, wantError: "JWT issuer"},
		{name: "token exchange, another installation", app: true, method: "POST", path: "/app/installations/78/access_tokens",
			auth: signed(key, "12"), wantStatus: 404, wantError: "installation 78"},
		{name: "App call with the installation token", app: true, method: "GET", path: "/repos/octo/calc",
			auth: "token " + token, wantStatus: 200},
		{name: "App call as a bearer", app: true, method: "GET", path: "/repos/octo/calc",
			auth: bearer, wantStatus: 401, wantError: "Authorization"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := &recorder{TB: t}
			srv := fakegh.New(rec, "octo", "calc", token)
			srv.PRs[7] = fakegh.PR{Number: 7}
			srv.AddIssueComment(7, "alice", "/culprit") // id 1001
			srv.Permissions = map[string]string{"alice": "write"}
			srv.Workflows = map[string][]string{"culprit.yml": {"pr-number!", "tests"}}
			if tc.app {
				srv.App = &fakegh.App{ID: 12, Slug: "culprit", Key: &key.PublicKey, InstallationID: 77}
			}
			var body io.Reader
			if tc.body != "" {
				body = strings.NewReader(tc.body)
			}
			req, err := http.NewRequest(tc.method, srv.APIURL()+tc.path, body)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Authorization", tc.auth)
			req.Header.Set("Accept", "application/vnd.github.v3+json")
			if tc.body != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.wantStatus || !strings.Contains(string(b), tc.wantBody) {
				t.Errorf("answer %d %s, want %d with %q", resp.StatusCode, b, tc.wantStatus, tc.wantBody)
			}
			errs := rec.errors()
			switch {
			case tc.wantError == "" && len(errs) > 0:
				t.Errorf("test errors %q, want none", errs)
			case tc.wantError != "" && (len(errs) != 1 || !strings.Contains(errs[0], tc.wantError)):
				t.Errorf("test errors %q, want one with %q", errs, tc.wantError)
			}
		})
	}
}

// TestFaults checks injected failures: a count of them, then the real
// answer.
func TestFaults(t *testing.T) {
	srv := fakegh.New(t, "octo", "calc", token)
	srv.Fail = map[string]fakegh.Fault{"GET /repos/octo/calc": {Status: 502, Times: 2}}
	var got []int
	for range 3 {
		req, _ := http.NewRequest("GET", srv.APIURL()+"/repos/octo/calc", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Accept", "application/vnd.github+json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		got = append(got, resp.StatusCode)
	}
	if d := cmp.Diff([]int{502, 502, 200}, got); d != "" {
		t.Errorf("statuses (-want +got):\n%s", d)
	}
}

// TestPullRequest checks the pull request's head repository, author and
// association: a branch of the repository by default, a fork's when set.
func TestPullRequest(t *testing.T) {
	type repo struct {
		FullName string `json:"full_name"`
		Fork     bool   `json:"fork"`
	}
	type side struct {
		SHA  string `json:"sha"`
		Repo repo   `json:"repo"`
	}
	type pull struct {
		Head        side `json:"head"`
		Base        side `json:"base"`
		User        *fakegh.User
		Association string `json:"author_association"`
	}
	for _, tc := range []struct {
		name string
		pr   fakegh.PR
		want pull
	}{
		{"a branch of the repository", fakegh.PR{Number: 7, BaseSHA: "b0", HeadSHA: "h1"}, pull{
			Head: side{SHA: "h1", Repo: repo{FullName: "octo/calc"}},
			Base: side{SHA: "b0", Repo: repo{FullName: "octo/calc"}},
		}},
		{"a fork", fakegh.PR{Number: 7, BaseSHA: "b0", HeadSHA: "h1", Author: "newbie", AuthorAssociation: "FIRST_TIMER", HeadRepo: "newbie/calc"}, pull{
			Head:        side{SHA: "h1", Repo: repo{FullName: "newbie/calc", Fork: true}},
			Base:        side{SHA: "b0", Repo: repo{FullName: "octo/calc"}},
			User:        &fakegh.User{Login: "newbie", Type: "User"},
			Association: "FIRST_TIMER",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := fakegh.New(t, "octo", "calc", token)
			srv.PRs[7] = tc.pr
			req, err := http.NewRequest("GET", srv.APIURL()+"/repos/octo/calc/pulls/7", nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Authorization", "Bearer "+token)
			req.Header.Set("Accept", "application/vnd.github+json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var got pull
			if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("pull request (-want +got):\n%s", d)
			}
		})
	}
}

// TestListPullRequests checks GET /pulls: filtered by state (open unless
// given) and by head ("owner:branch"), newest first, in pages; a head
// without an owner fails the test.
func TestListPullRequests(t *testing.T) {
	prs := []fakegh.PR{
		{Number: 1, HeadSHA: "h1", HeadRef: "fix"},
		{Number: 2, HeadSHA: "h2", HeadRef: "fix", HeadRepo: "newbie/calc"},
		{Number: 3, HeadSHA: "h3", HeadRef: "fix", HeadRepo: "newbie/calc", State: "closed"},
		{Number: 4, HeadSHA: "h4", HeadRef: "fix", HeadRepo: "newbie/calc-fork"},
		{Number: 5, HeadSHA: "h5", HeadRef: "other", HeadRepo: "newbie/calc"},
	}
	type pull struct {
		Number int    `json:"number"`
		State  string `json:"state"`
		Head   struct {
			Label string `json:"label"`
			Repo  struct {
				FullName string `json:"full_name"`
			} `json:"repo"`
		} `json:"head"`
	}
	for _, tc := range []struct {
		name      string
		query     string
		pageSize  int
		want      [][]int // the numbers on each page
		wantError string
	}{
		{name: "open ones", query: "", want: [][]int{{5, 4, 2, 1}}},
		{name: "all", query: "state=all", want: [][]int{{5, 4, 3, 2, 1}}},
		{name: "by head", query: "head=newbie:fix&state=open", want: [][]int{{4, 2}}},
		{name: "by head, any state", query: "head=newbie:fix&state=all", want: [][]int{{4, 3, 2}}},
		{name: "a branch of the repository", query: "head=octo:fix", want: [][]int{{1}}},
		{name: "in pages", query: "per_page=2", pageSize: 2, want: [][]int{{5, 4}, {2, 1}}},
		{name: "head without an owner", query: "head=fix", want: [][]int{{}}, wantError: "without an owner"},
		{name: "unknown parameter", query: "author=newbie", want: [][]int{{5, 4, 2, 1}}, wantError: `unknown parameter "author"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := &recorder{TB: t}
			srv := fakegh.New(rec, "octo", "calc", token)
			if tc.pageSize != 0 {
				srv.PageSize = tc.pageSize
			}
			for _, p := range prs {
				srv.PRs[p.Number] = p
			}
			var got [][]int
			for url := srv.APIURL() + "/repos/octo/calc/pulls?" + tc.query; url != ""; {
				req, err := http.NewRequest("GET", url, nil)
				if err != nil {
					t.Fatal(err)
				}
				req.Header.Set("Authorization", "Bearer "+token)
				req.Header.Set("Accept", "application/vnd.github+json")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				var page []pull
				err = json.NewDecoder(resp.Body).Decode(&page)
				resp.Body.Close()
				if err != nil {
					t.Fatal(err)
				}
				numbers := []int{}
				for _, p := range page {
					numbers = append(numbers, p.Number)
					owner, _, _ := strings.Cut(p.Head.Repo.FullName, "/")
					if want := owner + ":fix"; p.Head.Label != want && p.Number != 5 {
						t.Errorf("#%d: head label %q, want %q", p.Number, p.Head.Label, want)
					}
				}
				got = append(got, numbers)
				url = ""
				if link := resp.Header.Get("Link"); link != "" {
					url = strings.TrimPrefix(strings.Split(link, ">")[0], "<")
				}
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("pages of pull requests (-want +got):\n%s", d)
			}
			errs := rec.errors()
			switch {
			case tc.wantError == "" && len(errs) > 0:
				t.Errorf("test errors %q, want none", errs)
			case tc.wantError != "" && (len(errs) != 1 || !strings.Contains(errs[0], tc.wantError)):
				t.Errorf("test errors %q, want one with %q", errs, tc.wantError)
			}
		})
	}
}
