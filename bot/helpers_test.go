package bot

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/culprit-dev/culprit/internal/fakegh"
)

const (
	testSecret = "It's a Secret to Everybody"
	testToken  = "ghp_single_repo_token"
)

func testConfig(apiURL string) Config {
	return Config{
		Addr:            "127.0.0.1:0",
		WebhookSecret:   []byte(testSecret),
		Token:           testToken,
		Repo:            "octo-org/calc",
		Workflow:        DefaultWorkflow,
		APIURL:          apiURL,
		Workers:         2,
		Queue:           16,
		OnFailure:       []string{"octo-org/calc"},
		DedupeSize:      1000,
		JobTimeout:      10 * time.Second,
		ShutdownTimeout: 10 * time.Second,
	}
}

// The repository of the fixtures, the /culprit comment of
// issue_comment_pr_created.json, and the head commits: the pull request's
// now, as the API answers, and that of the failed run of
// workflow_run_failure.json.
const (
	testOwner, testRepo = "octo-org", "calc"
	commandCommentID    = 1978143220
	prHead              = "c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00"
	runHead             = "8f3c2a51d6e0b9c4a7e2f1d3c5b6a7980e1f2a3b"
)

// newAPI is the GitHub API of the fixtures' repository: pull requests 42
// and 43 (opened by octocat, a contributor, from branches of the
// repository), the /culprit comment on 42, the collaborators alice
// (write), mallory (admin) and reader (read), and the culprit workflow
// with the inputs the example workflow declares.
func newAPI(t testing.TB) *fakegh.Server {
	t.Helper()
	api := fakegh.New(t, testOwner, testRepo, testToken)
	api.PRs[42] = fakegh.PR{Number: 42, HeadSHA: prHead, Author: "octocat", AuthorAssociation: "CONTRIBUTOR"}
	api.PRs[43] = fakegh.PR{Number: 43, HeadSHA: prHead, Author: "octocat", AuthorAssociation: "CONTRIBUTOR"}
	api.PutIssueComment(42, commandCommentID, "alice", "/culprit explain TestSum TestSum/empty")
	api.Permissions = map[string]string{"alice": "write", "mallory": "admin", "reader": "read"}
	api.Workflows = map[string][]string{DefaultWorkflow: exampleInputs(t)}
	return api
}

// exampleInputs are the workflow_dispatch inputs of the example workflow,
// required ones marked with a trailing "!" as fakegh wants them. The
// fake refuses a dispatch with any other input, as GitHub does, so every
// test that dispatches checks the bot against the example.
func exampleInputs(t testing.TB) []string {
	t.Helper()
	const path = "../.github/workflows/culprit-example.yml"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	indent := func(l string) int { return len(l) - len(strings.TrimLeft(l, " ")) }
	var (
		inputs       []string
		state        int // 0: before workflow_dispatch, 1: before its inputs, 2: in them
		outer, inner int // the indentation of "inputs:" and of an input's name
	)
	for l := range strings.Lines(string(data)) {
		l = strings.TrimRight(l, "\r\n")
		text := strings.TrimSpace(l)
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		switch {
		case state == 0 && text == "workflow_dispatch:":
			state = 1
		case state == 1 && text == "inputs:":
			state, outer, inner = 2, indent(l), 0
		case state == 2 && indent(l) <= outer:
			return inputs
		case state == 2 && (inner == 0 || indent(l) == inner):
			inner = indent(l)
			inputs = append(inputs, strings.TrimSuffix(text, ":"))
		case state == 2 && text == "required: true":
			inputs[len(inputs)-1] += "!"
		}
	}
	if len(inputs) == 0 {
		t.Fatalf("%s declares no workflow_dispatch inputs", path)
	}
	return inputs
}

// commandComment is issue_comment_pr_created.json made a comment of its
// own, id on pull request pr, by login, seeded in api (the bot reacts to
// it): deliveries of one comment count as one.
func commandComment(t testing.TB, api *fakegh.Server, pr int, id int64, login string) []byte {
	t.Helper()
	body := edit(t, fixture(t, "issue_comment_pr_created.json"), map[string]any{
		"issue.number": pr, "comment.id": id, "comment.user.login": login, "comment.body": "/culprit",
	})
	api.PutIssueComment(pr, id, login, "/culprit")
	return body
}

// replies are the comments on pr after the seeded ones: what the bot wrote.
func replies(api *fakegh.Server, pr int) []string {
	var out []string
	for _, c := range api.IssueComments(pr) {
		if c.ID != commandCommentID {
			out = append(out, c.Body)
		}
	}
	return out
}

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

// startBot serves cfg on an httptest server. drain waits for all accepted
// work to finish, after which the fake API's record is complete.
func startBot(t testing.TB, cfg Config) (s *Server, url string, drain func()) {
	t.Helper()
	s, err := New(cfg, discardLogger())
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	drained := false
	drain = func() {
		t.Helper()
		if drained {
			return
		}
		drained = true
		hs.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := s.Close(ctx); err != nil {
			t.Errorf("draining: %v", err)
		}
	}
	t.Cleanup(drain)
	return s, hs.URL, drain
}

func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// edit decodes a JSON fixture, applies set ("a.b.c" → value) and encodes it.
func edit(t testing.TB, body []byte, set map[string]any) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	for path, v := range set {
		keys := strings.Split(path, ".")
		cur := m
		for _, k := range keys[:len(keys)-1] {
			next, ok := cur[k].(map[string]any)
			if !ok {
				t.Fatalf("edit: %s: %q is not an object", path, k)
			}
			cur = next
		}
		cur[keys[len(keys)-1]] = v
	}
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sign(secret string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

// delivery is one webhook request as GitHub sends it.
type delivery struct {
	event, id string
	body      []byte
	signature string // as sent; "" sends no signature header
	sha1      string // X-Hub-Signature, if set
}

func signed(event, id string, body []byte) delivery {
	return delivery{event: event, id: id, body: body, signature: sign(testSecret, body)}
}

func (d delivery) request(t testing.TB, url string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url+"/webhook", bytes.NewReader(d.body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "GitHub-Hookshot/2f5b3a1")
	req.Header.Set("X-GitHub-Event", d.event)
	req.Header.Set("X-GitHub-Delivery", d.id)
	req.Header.Set("X-GitHub-Hook-ID", "469861011")
	if d.sha1 != "" {
		req.Header.Set("X-Hub-Signature", d.sha1)
	}
	if d.signature != "" {
		req.Header.Set("X-Hub-Signature-256", d.signature)
	}
	return req
}

// send posts d and returns the status code.
func send(t testing.TB, client *http.Client, url string, d delivery) int {
	t.Helper()
	resp, err := client.Do(d.request(t, url))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}
