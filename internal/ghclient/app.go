package ghclient

import (
	"crypto/rsa"
	"fmt"
	"net/http"
	"strings"

	"github.com/bradleyfalzon/ghinstallation/v2"
	"github.com/google/go-github/v60/github"
)

// NewApp returns a client acting for one installation of a GitHub App:
// ghinstallation signs a JWT with key, exchanges it for an installation
// token and renews that token before it expires. tr (nil means
// http.DefaultTransport) carries the requests, wrapped once in
// [Transport] below the authentication, so that the token exchange is
// retried like every API call. sleep may be nil.
//
// A retried exchange resends its JWT, which GitHub accepts for 90 s after
// signing: two waits near [MaxWait] outlast it, and the last attempt is
// then refused (401) rather than waited for.
func NewApp(tr http.RoundTripper, apiURL string, appID, installationID int64, key *rsa.PrivateKey, sleep Sleep) (*github.Client, error) {
	base, err := BaseURL(apiURL)
	if err != nil {
		return nil, err
	}
	if installationID == 0 {
		return nil, fmt.Errorf("no installation id: is the App installed on the repository?")
	}
	retry := &Transport{Base: tr, Sleep: sleep}
	atr := ghinstallation.NewAppsTransportFromPrivateKey(retry, appID, key)
	atr.BaseURL = strings.TrimSuffix(base.String(), "/")
	itr := ghinstallation.NewFromAppsTransport(atr, installationID)
	gh := github.NewClient(&http.Client{Transport: itr})
	gh.BaseURL = base
	return gh, nil
}
