package bot

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/go-github/v60/github"
)

// pullRequest is what a task needs to know of its pull request as it is
// when the task runs, read from the API: the payloads of comments lack
// all of it, and those of workflow runs most.
type pullRequest struct {
	headSHA string
	// fromFork: the head branch is in another repository than the base,
	// or in one since deleted.
	fromFork    bool
	author      string
	association string // GitHub's author_association of the author
}

// readPullRequest reads t's pull request.
func readPullRequest(ctx context.Context, gh *github.Client, t *task) (pullRequest, error) {
	p, _, err := gh.PullRequests.Get(ctx, t.owner, t.repo, t.pr)
	if err != nil {
		return pullRequest{}, fmt.Errorf("reading pull request #%d: %w", t.pr, err)
	}
	head := p.GetHead().GetRepo()
	pr := pullRequest{
		headSHA:     p.GetHead().GetSHA(),
		fromFork:    head == nil || !strings.EqualFold(head.GetFullName(), p.GetBase().GetRepo().GetFullName()),
		author:      p.GetUser().GetLogin(),
		association: p.GetAuthorAssociation(),
	}
	if pr.headSHA == "" {
		return pullRequest{}, fmt.Errorf("reading pull request #%d: no head commit", t.pr)
	}
	return pr, nil
}

// needsApproval reports whether running pr's code needs the word of
// someone with write access. GitHub runs the workflows of a fork's pull
// request by a first-time contributor (or a new GitHub user, or someone
// with no association at all) only once a maintainer approves; a dispatch
// by the bot, on its own initiative, must not be a way around that. An
// association GitHub did not give counts as none.
func needsApproval(pr pullRequest) bool {
	if !pr.fromFork {
		// Pushing a branch to the repository takes write access.
		return false
	}
	switch pr.association {
	case "FIRST_TIME_CONTRIBUTOR", "FIRST_TIMER", "NONE", "":
		return true
	}
	return false
}
