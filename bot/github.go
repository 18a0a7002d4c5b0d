package bot

import (
	"crypto/rsa"
	"fmt"
	"net/http"
	"net/url"
	"sync"

	"github.com/culprit-dev/culprit/internal/ghclient"
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

// newClientSource picks App or token authentication from cfg. All clients
// share tr, so connections are reused across installations, and wait out
// short rate limits (see internal/ghclient).
func newClientSource(cfg Config, tr http.RoundTripper) (clientSource, error) {
	base, err := ghclient.BaseURL(cfg.APIURL)
	if err != nil {
		return nil, err
	}
	if cfg.Token != "" {
		c, err := ghclient.New(&http.Client{Transport: tr}, base.String(), cfg.Token, nil)
		if err != nil {
			return nil, err
		}
		return &tokenSource{c: c}, nil
	}
	key, err := jwt.ParseRSAPrivateKeyFromPEM(cfg.PrivateKey)
	if err != nil {
		return nil, fmt.Errorf("parsing the App private key: %w", err)
	}
	return &appSource{appID: cfg.AppID, key: key, base: base, tr: tr, clients: make(map[int64]*github.Client)}, nil
}

// tokenSource serves every event with one token-authenticated client.
type tokenSource struct{ c *github.Client }

func (s *tokenSource) client(int64) (*github.Client, error) { return s.c, nil }

// appSource authenticates as a GitHub App installation. Clients are kept per
// installation so that an installation token is exchanged once and reused
// until it nears expiry (ghinstallation refreshes it); the exchange is
// retried on rate limits and server errors like any call (ghclient.NewApp).
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
	// Each installation gets its own transports: ghinstallation writes to
	// them when refreshing a token, so sharing them would race.
	c, err := ghclient.NewApp(s.tr, s.base.String(), s.appID, installationID, s.key, nil)
	if err != nil {
		// NewApp fails only without an installation id, ruled out above,
		// or for a URL that ghclient.BaseURL, which parsed s.base, rejects.
		panic(fmt.Sprintf("API URL %s no longer parses: %v", s.base, err))
	}
	if len(s.clients) >= maxInstallations {
		for id := range s.clients {
			delete(s.clients, id)
			break
		}
	}
	s.clients[installationID] = c
	return c, nil
}
