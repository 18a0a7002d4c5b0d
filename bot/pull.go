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
	number  int
	headSHA string
	// headRepo is the full name of the repository the head branch is in;
	// "" when it has been deleted.
	headRepo string
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
	pr := pullRequestOf(p)
	if pr.headSHA == "" {
		return pullRequest{}, fmt.Errorf("reading pull request #%d: no head commit", t.pr)
	}
	return pr, nil
}

func pullRequestOf(p *github.PullRequest) pullRequest {
	head := p.GetHead().GetRepo()
	return pullRequest{
		number:      p.GetNumber(),
		headSHA:     p.GetHead().GetSHA(),
		headRepo:    head.GetFullName(),
		fromFork:    head == nil || !strings.EqualFold(head.GetFullName(), p.GetBase().GetRepo().GetFullName()),
		author:      p.GetUser().GetLogin(),
		association: p.GetAuthorAssociation(),
	}
}

// forkPullRequests finds the pull requests whose head is the failed run
// of t.fork: open ones of the repository whose head commit is the run's
// and whose head repository is the fork the run ran in. The API lists
// pull requests by head as "owner:branch", which names the fork only by
// its owner; the rest is checked here, with no guessing: a pull request
// that has moved on to another commit since has a run of its own, and a
// closed one needs no explanation. The caller explains the run only when
// exactly one matches: two open pull requests of one head into different
// base branches cannot be told apart from the run.
func forkPullRequests(ctx context.Context, gh *github.Client, t *task) ([]pullRequest, error) {
	opts := &github.PullRequestListOptions{
		State:       "open",
		Head:        t.fork.owner + ":" + t.fork.branch,
		ListOptions: github.ListOptions{PerPage: 100},
	}
	var matches []pullRequest
	for {
		ps, resp, err := gh.PullRequests.List(ctx, t.owner, t.repo, opts)
		if err != nil {
			return nil, fmt.Errorf("listing the pull requests of %s: %w", opts.Head, err)
		}
		for _, p := range ps {
			// GitHub's names are case-insensitive: the same name in
			// another case is the same repository.
			if pr := pullRequestOf(p); pr.headSHA == t.headSHA && strings.EqualFold(pr.headRepo, t.fork.repo) {
				matches = append(matches, pr)
			}
		}
		if resp.NextPage == 0 {
			return matches, nil
		}
		opts.Page = resp.NextPage
	}
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
