package bot

import (
	"crypto/rsa"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/bradleyfalzon/ghinstallation/v2"
	"github.com/golang-jwt/jwt/v4"
	"github.com/google/go-github/v60/github"
)

// clientSource gives an API client that acts for the installation an event
// came from.
type clientSource interface {
	client(installationID int64) (*github.Client, error)
}

var (
	_ clientSource = (*tokenSource)(nil)
	_ clientSource = (*appSource)(nil)
)

const defaultAPIURL = "https://api.github.com/"

// newClientSource picks App or token authentication from cfg. All clients
// share tr, so connections are reused across installations.
func newClientSource(cfg Config, tr http.RoundTripper) (clientSource, error) {
	base, err := apiBaseURL(cfg.APIURL)
	if err != nil {
		return nil, err
	}
	if cfg.Token != "" {
		c := github.NewClient(&http.Client{Transport: tr}).WithAuthToken(cfg.Token)
		c.BaseURL = base
		return &tokenSource{c: c}, nil
	}
	key, err := jwt.ParseRSAPrivateKeyFromPEM(cfg.PrivateKey)
	if err != nil {
		return nil, fmt.Errorf("parsing the App private key: %w", err)
	}
	return &appSource{appID: cfg.AppID, key: key, base: base, tr: tr, clients: make(map[int64]*github.Client)}, nil
}

// apiBaseURL parses the configured REST API URL. It is used as given (GHES
// wants ".../api/v3/"), only ensuring the trailing slash go-github needs.
func apiBaseURL(raw string) (*url.URL, error) {
	if raw == "" {
		raw = defaultAPIURL
	}
	if !strings.HasSuffix(raw, "/") {
		raw += "/"
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("GitHub API URL %q is not an http(s) URL", raw)
	}
	return u, nil
}

// tokenSource serves every event with one token-authenticated client.
type tokenSource struct{ c *github.Client }

func (s *tokenSource) client(int64) (*github.Client, error) { return s.c, nil }

// appSource authenticates as a GitHub App installation. Clients are kept per
// installation so that an installation token is exchanged once and reused
// until it nears expiry (ghinstallation refreshes it).
type appSource struct {
	appID int64
	key   *rsa.PrivateKey
	base  *url.URL
	tr    http.RoundTripper

	mu      sync.Mutex
	clients map[int64]*github.Client
}

// maxInstallations bounds the client cache; past it an arbitrary entry is
// dropped, which costs one token exchange if that installation comes back.
const maxInstallations = 1024

func (s *appSource) client(installationID int64) (*github.Client, error) {
	if installationID == 0 {
		return nil, fmt.Errorf("event has no installation id: is the App installed on the repository?")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.clients[installationID]; ok {
		return c, nil
	}
	// Each installation gets its own apps transport: ghinstallation writes
	// to it when refreshing a token, so sharing one would race.
	atr := ghinstallation.NewAppsTransportFromPrivateKey(s.tr, s.appID, s.key)
	atr.BaseURL = strings.TrimSuffix(s.base.String(), "/")
	itr := ghinstallation.NewFromAppsTransport(atr, installationID)
	c := github.NewClient(&http.Client{Transport: itr})
	c.BaseURL = s.base
	if len(s.clients) >= maxInstallations {
		for id := range s.clients {
			delete(s.clients, id)
			break
		}
	}
	s.clients[installationID] = c
	return c, nil
}
