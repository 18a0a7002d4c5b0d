package bot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/culprit-dev/culprit/internal/ghclient"
	"github.com/google/go-github/v60/github"
)

// runTask performs the API calls of one task.
func (s *Server) runTask(ctx context.Context, t *task, log *slog.Logger) error {
	gh, err := s.clients.client(t.installationID)
	if err != nil {
		return err
	}
	switch t.kind {
	case taskCommand:
		return s.runCommand(ctx, gh, t, log)
	case taskFailure:
		return s.runFailure(ctx, gh, t, log)
	default:
		// decodeEvent only builds the kinds above.
		panic(fmt.Sprintf("runTask: unknown task kind %d", t.kind))
	}
}

// runCommand answers a "/culprit" comment: permission check, 👀, dispatch.
func (s *Server) runCommand(ctx context.Context, gh *github.Client, t *task, log *slog.Logger) error {
	perm, err := permission(ctx, gh, t)
	if err != nil {
		return err
	}
	if !canRun(perm) {
		return s.refuse(ctx, gh, t, perm, log)
	}
	if t.cmdErr != nil {
		return s.reply(ctx, gh, t, fmt.Sprintf("@%s %s.\n\n%s", t.author, t.cmdErr, usageMessage))
	}
	if _, _, err := gh.Reactions.CreateIssueCommentReaction(ctx, t.owner, t.repo, t.commentID, "eyes"); err != nil {
		// The reaction is only an acknowledgement; the dispatch matters more.
		log.Warn("adding the eyes reaction", "err", err)
	}
	if err := s.dispatch(ctx, gh, t, t.cmd.Tests); err != nil {
		return errors.Join(err, s.reply(ctx, gh, t, dispatchFailureMessage(err, s.cfg.Workflow)))
	}
	log.Info("explanation dispatched", "author", t.author, "tests", t.cmd.Tests)
	return nil
}

// runFailure dispatches an explanation of a failed run, once per head SHA:
// several workflows failing on one commit start one explanation.
func (s *Server) runFailure(ctx context.Context, gh *github.Client, t *task, log *slog.Logger) error {
	key := t.fullName() + "@" + t.headSHA
	if !s.shas.add(key) {
		log.Info("explanation already dispatched for this head", "sha", t.headSHA)
		return nil
	}
	if err := s.dispatch(ctx, gh, t, nil); err != nil {
		s.shas.remove(key) // let the next failed run of this head try again
		return err
	}
	log.Info("explanation dispatched", "sha", t.headSHA, "run", t.runID)
	return nil
}

// permission returns the author's permission on the repository; someone who
// is not a collaborator at all (404) has none.
func permission(ctx context.Context, gh *github.Client, t *task) (string, error) {
	p, _, err := gh.Repositories.GetPermissionLevel(ctx, t.owner, t.repo, t.author)
	if statusCode(err) == http.StatusNotFound {
		return "none", nil
	}
	if err != nil {
		return "", fmt.Errorf("checking %s's permission: %w", t.author, err)
	}
	return p.GetPermission(), nil
}

func canRun(permission string) bool {
	switch permission {
	case "admin", "maintain", "write":
		return true
	}
	return false
}

// dispatch starts the culprit workflow on the base repository's default
// branch: the workflow's own definition is trusted there, never the pull
// request's copy of it.
func (s *Server) dispatch(ctx context.Context, gh *github.Client, t *task, tests []string) error {
	ref := t.defaultBranch
	if ref == "" {
		r, _, err := gh.Repositories.Get(ctx, t.owner, t.repo)
		if err != nil {
			return fmt.Errorf("reading the default branch: %w", err)
		}
		ref = r.GetDefaultBranch()
	}
	req := github.CreateWorkflowDispatchEventRequest{
		Ref: ref,
		Inputs: map[string]any{
			"pr-number": strconv.Itoa(t.pr),
			"tests":     strings.Join(tests, " "),
		},
	}
	if _, err := gh.Actions.CreateWorkflowDispatchEventByFileName(ctx, t.owner, t.repo, s.cfg.Workflow, req); err != nil {
		return &dispatchError{workflow: s.cfg.Workflow, ref: ref, err: err}
	}
	return nil
}

type dispatchError struct {
	workflow, ref string
	err           error
}

func (e *dispatchError) Error() string {
	return fmt.Sprintf("dispatching %s on %s: %v", e.workflow, e.ref, e.err)
}

func (e *dispatchError) Unwrap() error { return e.err }

// dispatchFailureMessage says, for the pull request's readers, why nothing
// will run and what to do about it.
func dispatchFailureMessage(err error, workflow string) string {
	ref := ""
	var de *dispatchError
	if errors.As(err, &de) {
		ref = de.ref
	}
	if ghclient.IsRateLimit(err) {
		return fmt.Sprintf("culprit could not start `%s`: GitHub's API rate limit for the app is used up (%s). Run `/culprit` again later.", workflow, apiMessage(err))
	}
	switch statusCode(err) {
	case http.StatusNotFound:
		return fmt.Sprintf("culprit could not start: the workflow `.github/workflows/%s` was not found on the default branch `%s`. Add it (see the culprit README for an example) and run `/culprit` again.", workflow, ref)
	case http.StatusUnprocessableEntity:
		return fmt.Sprintf("culprit could not start `%s`: GitHub refused the dispatch (%s). The workflow needs an `on: workflow_dispatch` trigger with the inputs `pr-number` and `tests`.", workflow, apiMessage(err))
	case http.StatusForbidden:
		return fmt.Sprintf("culprit could not start `%s`: the app is not allowed to (%s). It needs the Actions: write permission.", workflow, apiMessage(err))
	default:
		return fmt.Sprintf("culprit could not start `%s`: %s. Try `/culprit` again later.", workflow, apiMessage(err))
	}
}

func (s *Server) reply(ctx context.Context, gh *github.Client, t *task, body string) error {
	if _, _, err := gh.Issues.CreateComment(ctx, t.owner, t.repo, t.pr, &github.IssueComment{Body: &body}); err != nil {
		return fmt.Errorf("replying on #%d: %w", t.pr, err)
	}
	return nil
}

// statusCode is the HTTP status of a GitHub API error, or 0.
func statusCode(err error) int {
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		return er.Response.StatusCode
	}
	var rl *github.RateLimitError
	if errors.As(err, &rl) && rl.Response != nil {
		return rl.Response.StatusCode
	}
	var own *ghclient.RateLimitError
	if errors.As(err, &own) {
		return own.StatusCode
	}
	return 0
}

func apiMessage(err error) string {
	var rl *ghclient.RateLimitError
	if errors.As(err, &rl) {
		return rl.Error()
	}
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Message != "" {
		return er.Message
	}
	if code := statusCode(err); code != 0 {
		return http.StatusText(code)
	}
	return "the GitHub API could not be reached"
}
