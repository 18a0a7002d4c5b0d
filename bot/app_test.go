package bot

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"net/http"
	"strings"
	"testing"

	"github.com/golang-jwt/jwt/v4"
	"github.com/google/go-cmp/cmp"
)

// The App path exchanges a JWT signed with the App's key for an
// installation token, once per installation, and uses that token for the
// event's API calls.
func TestAppInstallationToken(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	pemKey := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})

	api := newFakeGitHub(t)
	cfg := testConfig(api.url())
	cfg.Token, cfg.Repo = "", ""
	cfg.AppID, cfg.PrivateKey = 842301, pemKey
	cfg.Workers = 1 // one installation token exchange, deterministically
	_, url, drain := startBot(t, cfg)

	body := fixture(t, "issue_comment_pr_created.json")
	for _, id := range []string{"d-1", "d-2"} {
		if got := send(t, http.DefaultClient, url, signed("issue_comment", id, body)); got != http.StatusAccepted {
			t.Fatalf("%s: status = %d", id, got)
		}
	}
	drain()

	calls := api.recorded()
	var got []string
	for _, c := range calls {
		got = append(got, c.String())
	}
	tokenPath := "POST /api/v3/app/installations/2311213/access_tokens"
	want := []string{tokenPath, permAlice, reactEyes, dispatchPath, permAlice, reactEyes, dispatchPath}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("API calls (-want +got):\n%s", diff)
	}

	jwtAuth, ok := strings.CutPrefix(calls[0].Auth, "Bearer ")
	if !ok {
		t.Fatalf("token exchange Authorization = %q, want a Bearer JWT", calls[0].Auth)
	}
	var claims jwt.RegisteredClaims
	if _, err := jwt.ParseWithClaims(jwtAuth, &claims, func(*jwt.Token) (any, error) { return &key.PublicKey, nil }); err != nil {
		t.Fatalf("JWT does not verify with the App's public key: %v", err)
	}
	if claims.Issuer != "842301" {
		t.Errorf("JWT issuer = %q, want the app id", claims.Issuer)
	}
	for _, c := range calls[1:] {
		if c.Auth != "token "+installToken {
			t.Errorf("%s: Authorization = %q, want the installation token", c, c.Auth)
		}
	}
}

func TestAppWithoutInstallation(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	api := newFakeGitHub(t)
	cfg := testConfig(api.url())
	cfg.Token, cfg.Repo = "", ""
	cfg.AppID = 1
	cfg.PrivateKey = pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	_, url, drain := startBot(t, cfg)
	body := edit(t, fixture(t, "issue_comment_pr_created.json"), map[string]any{"installation": nil})
	send(t, http.DefaultClient, url, signed("issue_comment", "d-1", body))
	drain()
	if calls := api.recorded(); len(calls) != 0 {
		t.Errorf("API calls without an installation: %v", calls)
	}
}
