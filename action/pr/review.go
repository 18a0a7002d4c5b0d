package pr

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/go-github/v60/github"

	"github.com/culprit-dev/culprit/report"
)

// ReviewResult counts what Review did.
type ReviewResult struct {
	Posted  int // new comments, all in one review
	Kept    int // already on the pull request
	Deleted int // ours, outdated and without replies
}

// Review brings the pull request's culprit review comments in line with
// want, the comments report renders (their Key made this run's own). A
// comment whose Key is already in one of our comments is not posted again;
// the rest go out as a single review on commit. Our comments (author is the
// token's identity and body contains ownPrefix, the prefix every Key starts
// with) that match no wanted Key are deleted, unless someone replied to
// them: a conversation is not ours to remove.
func (c *Client) Review(ctx context.Context, commit, ownPrefix string, want []report.ReviewComment) (ReviewResult, error) {
	var res ReviewResult
	me, err := c.Login(ctx)
	if err != nil {
		return res, err
	}
	existing, err := c.reviewComments(ctx)
	if err != nil {
		return res, err
	}
	replied := map[int64]bool{}
	for _, cm := range existing {
		if id := cm.GetInReplyTo(); id != 0 {
			replied[id] = true
		}
	}
	var ours []*github.PullRequestComment
	for _, cm := range existing {
		if strings.EqualFold(cm.GetUser().GetLogin(), me) && hasKey(cm.GetBody(), ownPrefix) {
			ours = append(ours, cm)
		}
	}
	have := func(key string) bool {
		for _, cm := range ours {
			if hasKey(cm.GetBody(), key) {
				return true
			}
		}
		return false
	}
	var drafts []*github.DraftReviewComment
	seen := map[string]bool{}
	for _, w := range want {
		if w.Key == "" || !strings.Contains(w.Body, w.Key) {
			return res, fmt.Errorf("review comment on %s:%d: body lacks its key", w.Path, w.Line)
		}
		if seen[w.Key] {
			continue
		}
		seen[w.Key] = true
		if have(w.Key) {
			res.Kept++
			continue
		}
		d := &github.DraftReviewComment{
			Path: github.String(w.Path),
			Line: github.Int(w.Line),
			Side: github.String("RIGHT"),
			Body: github.String(w.Body),
		}
		// GitHub refuses a start_line that does not precede line.
		if w.StartLine > 0 && w.StartLine < w.Line {
			d.StartLine = github.Int(w.StartLine)
			d.StartSide = github.String("RIGHT")
		}
		drafts = append(drafts, d)
	}
	if len(drafts) > 0 {
		req := &github.PullRequestReviewRequest{
			Event:    github.String("COMMENT"),
			Comments: drafts,
		}
		if commit != "" {
			req.CommitID = github.String(commit)
		}
		if _, _, err := c.gh.PullRequests.CreateReview(ctx, c.owner, c.repo, c.number, req); err != nil {
			return res, fmt.Errorf("posting a review of %d comments on #%d: %w", len(drafts), c.number, err)
		}
		res.Posted = len(drafts)
	}
	for _, cm := range ours {
		if replied[cm.GetID()] {
			continue
		}
		wanted := false
		for key := range seen {
			if hasKey(cm.GetBody(), key) {
				wanted = true
				break
			}
		}
		if wanted {
			continue
		}
		if _, err := c.gh.PullRequests.DeleteComment(ctx, c.owner, c.repo, cm.GetID()); err != nil {
			return res, fmt.Errorf("deleting outdated review comment %d: %w", cm.GetID(), err)
		}
		res.Deleted++
	}
	return res, nil
}

func (c *Client) reviewComments(ctx context.Context) ([]*github.PullRequestComment, error) {
	var all []*github.PullRequestComment
	opts := &github.PullRequestListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	for {
		cs, resp, err := c.gh.PullRequests.ListComments(ctx, c.owner, c.repo, c.number, opts)
		if err != nil {
			return nil, fmt.Errorf("listing review comments of #%d: %w", c.number, err)
		}
		all = append(all, cs...)
		if resp.NextPage == 0 {
			return all, nil
		}
		opts.Page = resp.NextPage
	}
}

// hasKey reports whether a review comment's first or last line, where a
// key goes, starts with key (a whole key, or the prefix of a run's keys).
// A key anywhere else in a body is text, not a claim of ownership.
func hasKey(body, key string) bool {
	body = strings.TrimSpace(body)
	first, _, _ := strings.Cut(body, "\n")
	last := body[strings.LastIndexByte(body, '\n')+1:]
	return strings.HasPrefix(strings.TrimSpace(first), key) || strings.HasPrefix(strings.TrimSpace(last), key)
}
