package action

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/culprit-dev/culprit/action/pr"
	"github.com/culprit-dev/culprit/analyzer/result"
	"github.com/culprit-dev/culprit/internal/ghclient"
	"github.com/culprit-dev/culprit/report"
)

// reviewPrefix starts every hidden marker culprit puts in a review
// comment; with the author it tells our review comments from others'.
const reviewPrefix = "<!-- culprit:"

// post publishes the reports on the pull request: the sticky comment and
// review comments. A token that may not write (fork pull requests) is not
// an error: the annotations and job summary carry the result, and the log
// says so.
func (ru *run) post(ctx context.Context, c *pr.Client, head string, reps []*result.Report, details string) error {
	ru.a.Group("culprit: posting to the pull request")
	defer ru.a.EndGroup()
	if ru.cfg.Comment != CommentOff {
		if err := ru.sticky(ctx, c, reps, details); err != nil {
			if pr.IsPermission(err) {
				ru.fallback(reps, err)
				return nil
			}
			return err
		}
	}
	if ru.cfg.ReviewComments {
		if err := ru.review(ctx, c, head, reps); err != nil {
			if pr.IsPermission(err) {
				ru.fallback(reps, err)
				return nil
			}
			// The sticky comment already holds the result; a review that
			// GitHub refuses (a line outside the diff) is worth a warning.
			ru.a.Warningf("culprit: review comments not posted: %v", err)
			ru.annotate(reps)
		}
	}
	return nil
}

func (ru *run) sticky(ctx context.Context, c *pr.Client, reps []*result.Report, details string) error {
	if len(reps) == 0 {
		// Nothing to claim. An earlier comment may name a culprit that
		// no longer fails: correct it rather than leave it standing.
		body := ru.marker() + "\n### culprit\n\nNo failing regression test on this pull request's latest run: earlier findings no longer apply."
		if details != "" {
			body += fmt.Sprintf(" ([run](%s))", details)
		}
		if ru.cfg.Comment == CommentAlways {
			return ru.upsert(ctx, c, body+"\n", ": no failing test")
		}
		ok, err := c.UpdateComment(ctx, ru.marker(), body+"\n")
		if ok {
			infof(ru.a, "culprit: updated the earlier comment: no failing test now")
		}
		return err
	}
	body := report.Comment(reps, report.CommentOptions{MaxLen: pr.MaxBody, DetailsURL: details, Rerun: ru.rerunHint()})
	// Test names, values and notes come from the pull request.
	body = strings.Replace(body, report.Marker, ru.marker(), 1)
	body = neutral(body, details, ru.marker())
	return ru.upsert(ctx, c, body, "")
}

// upsert posts or edits the sticky comment, records it for the outputs
// and logs what it did (what, when set, says why it was posted).
func (ru *run) upsert(ctx context.Context, c *pr.Client, body, what string) error {
	how, posted, err := c.UpsertComment(ctx, ru.marker(), body)
	if err != nil {
		return err
	}
	ru.commentID, ru.commentURL = posted.GetID(), posted.GetHTMLURL()
	infof(ru.a, "culprit: %s the pull request comment %s%s", how, ru.commentURL, what)
	return nil
}

func (ru *run) review(ctx context.Context, c *pr.Client, head string, reps []*result.Report) error {
	var want []report.ReviewComment
	for _, r := range reps {
		// Only an explained failure names culprit lines.
		if r.Status != result.Explained {
			continue
		}
		for _, rc := range report.ReviewComments(r) {
			key := strings.Replace(rc.Key, reviewPrefix, ru.reviewPrefix(), 1)
			body := strings.Replace(rc.Body, rc.Key, key, 1)
			want = append(want, report.ReviewComment{Path: rc.Path, StartLine: rc.StartLine, Line: rc.Line, Body: neutral(body, key, ru.reviewPrefix()), Key: key})
		}
	}
	res, err := c.Review(ctx, head, ru.reviewPrefix(), want)
	if err != nil {
		if ghclient.Status(err) == http.StatusUnprocessableEntity {
			return fmt.Errorf("GitHub refused the review (a culprit line outside the diff?): %w", err)
		}
		return err
	}
	infof(ru.a, "culprit: review comments: %d posted, %d already there, %d outdated removed", res.Posted, res.Kept, res.Deleted)
	return nil
}

// fallback is what a read-only token gets: annotations and the summary.
func (ru *run) fallback(reps []*result.Report, err error) {
	ru.a.Warningf("culprit: the token cannot write to the pull request (%v). This is expected for pull requests from forks: the result is in the annotations and the job summary instead. To comment on fork PRs, use the fork-safe pattern (mode analyze + a workflow_run job with mode comment).", shortErr(err))
	ru.annotate(reps)
}

func (ru *run) rerunHint() string {
	wf := ru.gc.Workflow
	if wf == "" {
		wf = "culprit"
	}
	return fmt.Sprintf("comment `/culprit` on this pull request (culprit bot), or run the **%s** workflow from the Actions tab (workflow_dispatch) with `pr-number` set to this pull request.", wf)
}

func shortErr(err error) string {
	s := err.Error()
	if i := strings.Index(s, "\n"); i >= 0 {
		s = s[:i]
	}
	return s
}

// marker is the hidden marker of this run's sticky comment: report.Marker,
// or one naming the comment-id.
func (ru *run) marker() string {
	if ru.cfg.CommentID == "" {
		return report.Marker
	}
	return "<!-- culprit:report:" + ru.cfg.CommentID + " -->"
}

// reviewPrefix starts the hidden markers of this run's review comments;
// runs with different comment-ids never see each other's.
func (ru *run) reviewPrefix() string {
	if ru.cfg.CommentID == "" {
		return reviewPrefix
	}
	return "<!-- culprit[" + ru.cfg.CommentID + "]:"
}
