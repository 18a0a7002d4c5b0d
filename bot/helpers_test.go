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

// The repository of the fixtures, and the /culprit comment of
// issue_comment_pr_created.json.
const (
	testOwner, testRepo = "octo-org", "calc"
	commandCommentID    = 1978143220
)

// newAPI is the GitHub API of the fixtures' repository: pull requests 42
// and 43, the /culprit comment on 42, the collaborators alice (write),
// mallory (admin) and reader (read), and the culprit workflow with the
// inputs the example workflow declares.
func newAPI(t testing.TB) *fakegh.Server {
	t.Helper()
	api := fakegh.New(t, testOwner, testRepo, testToken)
	api.PRs[42] = fakegh.PR{Number: 42}
	api.PRs[43] = fakegh.PR{Number: 43}
	api.PutIssueComment(42, commandCommentID, "alice", "/culprit explain TestSum TestSum/empty")
	api.Permissions = map[string]string{"alice": "write", "mallory": "admin", "reader": "read"}
	api.Workflows = map[string][]string{DefaultWorkflow: {"pr-number!", "tests"}}
	return api
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
