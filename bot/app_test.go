package bot

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net/http"
	"testing"

	"github.com/culprit-dev/culprit/internal/fakegh"
	"github.com/google/go-cmp/cmp"
)

const (
	testAppID          = 842301
	testInstallationID = 2311213 // the fixtures' installation
	tokenExchange      = "POST /app/installations/2311213/access_tokens"
)

// appAPI is newAPI serving a GitHub App installation whose key is returned
// PEM-encoded. Its installation token is testToken.
func appAPI(t *testing.T) (*fakegh.Server, []byte) {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	api := newAPI(t)
	api.App = &fakegh.App{ID: testAppID, Slug: "culprit", Key: &key.PublicKey, InstallationID: testInstallationID}
	return api, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
}

func appConfig(apiURL string, key []byte) Config {
	cfg := testConfig(apiURL)
	cfg.Token, cfg.Repo = "", ""
	cfg.AppID, cfg.PrivateKey = testAppID, key
	return cfg
}

// The App path exchanges a JWT signed with the App's key for an
// installation token, once per installation, and uses that token for the
// event's API calls (the fake checks the JWT and every call's token).
func TestAppInstallationToken(t *testing.T) {
	api, key := appAPI(t)
	cfg := appConfig(api.APIURL(), key)
	cfg.Workers = 1 // one installation token exchange, deterministically
	_, url, drain := startBot(t, cfg)

	body := fixture(t, "issue_comment_pr_created.json")
	again := edit(t, body, map[string]any{"comment.id": commandCommentID + 1})
	api.PutIssueComment(42, commandCommentID+1, "alice", "/culprit")
	for i, b := range [][]byte{body, again} {
		id := fmt.Sprint("d-", i)
		if got := send(t, http.DefaultClient, url, signed("issue_comment", id, b)); got != http.StatusAccepted {
			t.Fatalf("%s: status = %d", id, got)
		}
	}
	drain()

	want := []string{tokenExchange, permAlice, getPR42, reactEyes, dispatchPath, permAlice, getPR42,
		"POST /repos/octo-org/calc/issues/comments/1978143221/reactions", dispatchPath}
	if diff := cmp.Diff(want, api.Requests()); diff != "" {
		t.Fatalf("API calls (-want +got):\n%s", diff)
	}
	if n := api.InstallationTokens(); n != 1 {
		t.Errorf("installation tokens handed out = %d, want 1", n)
	}
	if n := len(api.Dispatches()); n != 2 {
		t.Errorf("dispatches = %d, want 2", n)
	}
}

func TestAppWithoutInstallation(t *testing.T) {
	api, key := appAPI(t)
	_, url, drain := startBot(t, appConfig(api.APIURL(), key))
	body := edit(t, fixture(t, "issue_comment_pr_created.json"), map[string]any{"installation": nil})
	send(t, http.DefaultClient, url, signed("issue_comment", "d-1", body))
	drain()
	if calls := api.Requests(); len(calls) != 0 {
		t.Errorf("API calls without an installation: %v", calls)
	}
}

// A token exchange that fails with a server error is retried (after a
// second) and the delivery's work goes on with the token it then gets.
func TestAppTokenExchangeRetried(t *testing.T) {
	api, key := appAPI(t)
	api.Fail = map[string]fakegh.Fault{tokenExchange: {Status: http.StatusBadGateway, Times: 1}}
	_, url, drain := startBot(t, appConfig(api.APIURL(), key))
	if got := send(t, http.DefaultClient, url, signed("issue_comment", "d-1", fixture(t, "issue_comment_pr_created.json"))); got != http.StatusAccepted {
		t.Fatalf("status = %d", got)
	}
	drain()
	want := []string{tokenExchange, tokenExchange, permAlice, getPR42, reactEyes, dispatchPath}
	if diff := cmp.Diff(want, api.Requests()); diff != "" {
		t.Errorf("API calls (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(dispatched("main", "TestSum TestSum/empty", prHead), api.Dispatches()); diff != "" {
		t.Errorf("dispatches (-want +got):\n%s", diff)
	}
}
