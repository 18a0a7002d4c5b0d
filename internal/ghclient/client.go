package ghclient

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/go-github/v60/github"
)

// DefaultAPIURL is the REST API of github.com.
const DefaultAPIURL = "https://api.github.com/"

// Sleep waits for d or until ctx is done, returning ctx's error then.
type Sleep func(ctx context.Context, d time.Duration) error

// New returns a go-github client for the REST API at apiURL ("" means
// github.com; GitHub Enterprise Server wants ".../api/v3") sending its
// requests through hc (nil means a default client) wrapped in [Transport].
// A non-empty token is sent as a bearer token; leave it empty when hc's
// transport authenticates (a GitHub App installation). sleep may be nil.
func New(hc *http.Client, apiURL, token string, sleep Sleep) (*github.Client, error) {
	base, err := BaseURL(apiURL)
	if err != nil {
		return nil, err
	}
	if hc == nil {
		hc = &http.Client{}
	}
	c := *hc
	c.Transport = &Transport{Base: hc.Transport, Sleep: sleep}
	gh := github.NewClient(&c)
	if token != "" {
		gh = gh.WithAuthToken(token)
	}
	gh.BaseURL = base
	return gh, nil
}

// BaseURL parses a REST API URL, used as given except for the trailing
// slash go-github needs.
func BaseURL(raw string) (*url.URL, error) {
	if raw == "" {
		raw = DefaultAPIURL
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
