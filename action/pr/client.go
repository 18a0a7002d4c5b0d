package pr

import (
	"context"
	"fmt"
	"net/http"

	"github.com/culprit-dev/culprit/internal/ghclient"
	"github.com/google/go-github/v60/github"
)

// DefaultBot is the login of the identity behind the Actions GITHUB_TOKEN,
// which cannot ask the API who it is (GET /user answers 403).
const DefaultBot = "github-actions[bot]"

// Client posts to one pull request.
type Client struct {
	gh     *github.Client
	owner  string
	repo   string
	number int
	login  string
}

// New returns a Client for pull request number of owner/repo.
func New(gh *github.Client, owner, repo string, number int) *Client {
	return &Client{gh: gh, owner: owner, repo: repo, number: number}
}

// Login returns the login the token acts as, asking the API once. A token
// that may not read its own user (the Actions GITHUB_TOKEN) is taken to be
// [DefaultBot].
func (c *Client) Login(ctx context.Context) (string, error) {
	if c.login != "" {
		return c.login, nil
	}
	u, _, err := c.gh.Users.Get(ctx, "")
	switch {
	case err == nil:
		c.login = u.GetLogin()
	case IsPermission(err):
		c.login = DefaultBot
	default:
		return "", fmt.Errorf("asking who the token belongs to: %w", err)
	}
	return c.login, nil
}

// PullRequest is what the analysis needs to know about a pull request.
type PullRequest struct {
	Number  int
	BaseSHA string
	HeadSHA string
	BaseRef string
	HeadRef string
	// HeadRepo is the "owner/name" of the repository holding the head
	// branch: a fork's, or the repository's own.
	HeadRepo string
	URL      string
}

// Get fetches the pull request.
func (c *Client) Get(ctx context.Context) (*PullRequest, error) {
	p, _, err := c.gh.PullRequests.Get(ctx, c.owner, c.repo, c.number)
	if err != nil {
		return nil, fmt.Errorf("fetching pull request #%d: %w", c.number, err)
	}
	return &PullRequest{
		Number:   p.GetNumber(),
		BaseSHA:  p.GetBase().GetSHA(),
		HeadSHA:  p.GetHead().GetSHA(),
		BaseRef:  p.GetBase().GetRef(),
		HeadRef:  p.GetHead().GetRef(),
		HeadRepo: p.GetHead().GetRepo().GetFullName(),
		URL:      p.GetHTMLURL(),
	}, nil
}

// IsPermission reports whether err is GitHub refusing the token: 403 or 404
// on a write, as fork pull requests get with a read-only token. Rate limits
// are not permission errors.
func IsPermission(err error) bool {
	if ghclient.IsRateLimit(err) {
		return false
	}
	s := ghclient.Status(err)
	return s == http.StatusForbidden || s == http.StatusNotFound
}
