package bot

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"strconv"
	"strings"

	"github.com/google/go-github/v60/github"
)

// refuse tells someone without write access that they cannot run
// /culprit, once per pull request: anyone can comment, and a reply to
// every comment would let them make the bot spam the pull request.
//
// "Once" outlives the process: the reply ends with a hidden marker, and
// before replying the bot looks for it among the pull request's comments.
// The in-memory set only saves that look-up for pull requests this
// process has already seen.
func (s *Server) refuse(ctx context.Context, gh *github.Client, t *task, perm string, log *slog.Logger) error {
	key := t.fullName() + "#" + strconv.Itoa(t.pr)
	if !s.refused.add(key) {
		log.Info("command refused; already replied on this pull request", "author", t.author, "permission", perm)
		return nil
	}
	marker := s.refusalMarker(t)
	found, err := hasComment(ctx, gh, t, marker)
	if err != nil {
		s.refused.remove(key)
		return err
	}
	if found {
		log.Info("command refused; the pull request already has the reply", "author", t.author, "permission", perm)
		return nil
	}
	log.Info("command refused", "author", t.author, "permission", perm)
	body := fmt.Sprintf("@%s only collaborators with write access can run `/culprit`.\n\n%s", t.author, marker)
	if err := s.reply(ctx, gh, t, body); err != nil {
		s.refused.remove(key) // nobody was told: a later comment may be
		return err
	}
	return nil
}

// refusalMarker is the hidden line that marks the bot's refusal on t's
// pull request. It holds an HMAC of the repository and pull request keyed
// by the webhook secret, so that only the bot can write a valid one,
// whatever account it posts as (an App, or a token's user): a marker
// typed by someone else, or copied from another pull request, does not
// silence the reply.
func (s *Server) refusalMarker(t *task) string {
	mac := hmac.New(sha256.New, s.cfg.WebhookSecret)
	fmt.Fprintf(mac, "culprit refusal\x00%s\x00%d", strings.ToLower(t.fullName()), t.pr)
	return "<!-- culprit-refused " + hex.EncodeToString(mac.Sum(nil)[:16]) + " -->"
}

// hasComment reports whether a comment on t's pull request contains s,
// reading every page of comments.
func hasComment(ctx context.Context, gh *github.Client, t *task, s string) (bool, error) {
	opts := &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	for {
		cs, resp, err := gh.Issues.ListComments(ctx, t.owner, t.repo, t.pr, opts)
		if err != nil {
			return false, fmt.Errorf("reading the comments of #%d: %w", t.pr, err)
		}
		for _, c := range cs {
			if strings.Contains(c.GetBody(), s) {
				return true, nil
			}
		}
		if resp.NextPage == 0 {
			return false, nil
		}
		opts.Page = resp.NextPage
	}
}
