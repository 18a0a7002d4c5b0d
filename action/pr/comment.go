package pr

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/google/go-github/v60/github"
)

// MaxBody is GitHub's limit on a comment body, in characters; a longer body
// is refused with 422.
const MaxBody = 65536

// Posted says what UpsertComment did.
type Posted string

const (
	Created Posted = "created"
	Updated Posted = "updated"
	// Kept: the comment already said the same; it is left as it is.
	Kept Posted = "kept"
)

// UpsertComment makes body the pull request's sticky comment: the one
// comment that contains marker and was written by the token's identity. It
// edits that comment when it exists and creates it otherwise, so reruns
// never add a second one. A body at or over MaxBody is refused here, before
// GitHub would answer 422.
func (c *Client) UpsertComment(ctx context.Context, marker, body string) (Posted, *github.IssueComment, error) {
	if !strings.Contains(body, marker) {
		return "", nil, fmt.Errorf("comment body lacks the marker %q: a rerun could not find it", marker)
	}
	if n := utf8.RuneCountInString(body); n >= MaxBody {
		return "", nil, fmt.Errorf("comment body has %d characters, over GitHub's limit of %d", n, MaxBody-1)
	}
	ours, err := c.stickies(ctx, marker)
	if err != nil {
		return "", nil, err
	}
	if len(ours) > 0 {
		old := ours[0]
		// Two runs that raced may each have created one: the oldest
		// stays, the others go.
		for _, extra := range ours[1:] {
			if _, err := c.gh.Issues.DeleteComment(ctx, c.owner, c.repo, extra.GetID()); err != nil {
				return "", nil, fmt.Errorf("deleting duplicate comment %d on #%d: %w", extra.GetID(), c.number, err)
			}
		}
		if old.GetBody() == body {
			return Kept, old, nil
		}
		ed, _, err := c.gh.Issues.EditComment(ctx, c.owner, c.repo, old.GetID(), &github.IssueComment{Body: &body})
		if err != nil {
			return "", nil, fmt.Errorf("editing comment %d on #%d: %w", old.GetID(), c.number, err)
		}
		return Updated, ed, nil
	}
	cr, _, err := c.gh.Issues.CreateComment(ctx, c.owner, c.repo, c.number, &github.IssueComment{Body: &body})
	if err != nil {
		return "", nil, fmt.Errorf("commenting on #%d: %w", c.number, err)
	}
	return Created, cr, nil
}

// FindComment returns the sticky comment, the oldest of ours with the
// marker (see stickies), or nil when there is none.
func (c *Client) FindComment(ctx context.Context, marker string) (*github.IssueComment, error) {
	ours, err := c.stickies(ctx, marker)
	if err != nil || len(ours) == 0 {
		return nil, err
	}
	return ours[0], nil
}

// stickies returns, oldest first, the comments that are ours under marker:
// written by the token's identity and with marker as their first line.
// A marker elsewhere in a body is text, whoever wrote it. Every page of
// the conversation is read.
func (c *Client) stickies(ctx context.Context, marker string) ([]*github.IssueComment, error) {
	me, err := c.Login(ctx)
	if err != nil {
		return nil, err
	}
	var ours []*github.IssueComment
	opts := &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	for {
		cs, resp, err := c.gh.Issues.ListComments(ctx, c.owner, c.repo, c.number, opts)
		if err != nil {
			return nil, fmt.Errorf("listing comments of #%d: %w", c.number, err)
		}
		for _, cm := range cs {
			first, _, _ := strings.Cut(cm.GetBody(), "\n")
			if strings.TrimSpace(first) == marker && strings.EqualFold(cm.GetUser().GetLogin(), me) {
				ours = append(ours, cm)
			}
		}
		if resp.NextPage == 0 {
			return ours, nil
		}
		opts.Page = resp.NextPage
	}
}

// UpdateComment edits the sticky comment when there is one and does
// nothing otherwise; it reports whether it edited. It is for news that only
// matters to a comment already posted (an earlier culprit no longer fails).
func (c *Client) UpdateComment(ctx context.Context, marker, body string) (bool, error) {
	old, err := c.FindComment(ctx, marker)
	if err != nil || old == nil {
		return false, err
	}
	if old.GetBody() == body {
		return true, nil
	}
	if _, _, err := c.gh.Issues.EditComment(ctx, c.owner, c.repo, old.GetID(), &github.IssueComment{Body: &body}); err != nil {
		return false, fmt.Errorf("editing comment %d on #%d: %w", old.GetID(), c.number, err)
	}
	return true, nil
}
