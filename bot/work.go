package bot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
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

// runCommand answers a "/culprit" comment: permission check, the pull
// request's head, 👀, dispatch. The permission is the commenter's, never
// the pull request author's: a command from someone with write access is
// how a maintainer runs a fork's code (see needsApproval).
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
	// The head now is the code the commenter asked about; what is pushed
	// after it is not theirs to vouch for.
	pr, err := readPullRequest(ctx, gh, t)
	if err != nil {
		return err
	}
	if _, _, err := gh.Reactions.CreateIssueCommentReaction(ctx, t.owner, t.repo, t.commentID, "eyes"); err != nil {
		// The reaction is only an acknowledgement; the dispatch matters more.
		log.Warn("adding the eyes reaction", "err", err)
	}
	if err := s.dispatch(ctx, gh, t, t.pr, t.cmd.Tests, pr.headSHA); err != nil {
		return errors.Join(err, s.reply(ctx, gh, t, dispatchFailureMessage(err, s.cfg.Workflow)))
	}
	log.Info("explanation dispatched", "author", t.author, "tests", t.cmd.Tests, "sha", pr.headSHA)
	return nil
}

// runFailure dispatches an explanation of a failed run, once per head SHA
// (several workflows failing on one commit start one explanation), pinned
// to the commit that failed. A fork's pull request by someone GitHub holds
// back is left to a maintainer's /culprit.
func (s *Server) runFailure(ctx context.Context, gh *github.Client, t *task, log *slog.Logger) error {
	key := t.fullName() + "@" + t.headSHA
	if !s.shas.add(key) {
		log.Info("explanation already dispatched for this head", "sha", t.headSHA)
		return nil
	}
	pr, found, err := failedRunPullRequest(ctx, gh, t, log)
	if err != nil {
		s.shas.remove(key)
		return err
	}
	if !found {
		// The head stays remembered: its other failed runs find the same.
		return nil
	}
	if needsApproval(pr) {
		// The head stays remembered: the answer is the same for its other
		// failed runs.
		log.Info("failed run not explained: a fork's pull request by a first-time contributor runs only on a /culprit from someone with write access",
			"sha", t.headSHA, "author", pr.author, "association", pr.association)
		return nil
	}
	if err := s.dispatch(ctx, gh, t, pr.number, nil, t.headSHA); err != nil {
		s.shas.remove(key) // let the next failed run of this head try again
		return err
	}
	log.Info("explanation dispatched", "pr", pr.number, "sha", t.headSHA, "run", t.runID)
	return nil
}

// failedRunPullRequest reads the pull request of a failed run: the one
// the run names, or, for a fork's, the one open pull request whose head
// is the run's (forkPullRequests). found is false, and the reason
// logged, when there is none or more than one.
func failedRunPullRequest(ctx context.Context, gh *github.Client, t *task, log *slog.Logger) (pr pullRequest, found bool, err error) {
	if t.fork == nil {
		pr, err := readPullRequest(ctx, gh, t)
		return pr, err == nil, err
	}
	matches, err := forkPullRequests(ctx, gh, t)
	if err != nil {
		return pullRequest{}, false, err
	}
	if len(matches) != 1 {
		numbers := make([]int, len(matches))
		for i, m := range matches {
			numbers[i] = m.number
		}
		log.Info("failed run of a fork not explained: not exactly one open pull request has its head",
			"head", t.fork.repo+":"+t.fork.branch, "sha", t.headSHA, "pull_requests", numbers)
		return pullRequest{}, false, nil
	}
	return matches[0], true, nil
}

// permission returns the author's permission on the repository; someone who
// is not a collaborator at all (404) has none.
func permission(ctx context.Context, gh *github.Client, t *task) (string, error) {
	p, _, err := gh.Repositories.GetPermissionLevel(ctx, t.owner, t.repo, t.author)
	if ghclient.Status(err) == http.StatusNotFound {
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

// dispatch starts the culprit workflow for pull request pr on the base
// repository's default branch (the workflow's own definition is trusted
// there, never the pull request's copy of it), pinned to the head commit
// head.
func (s *Server) dispatch(ctx context.Context, gh *github.Client, t *task, pr int, tests []string, head string) error {
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
			"pr-number": strconv.Itoa(pr),
			"tests":     strings.Join(tests, " "),
			"head-sha":  head,
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
	switch ghclient.Status(err) {
	case http.StatusNotFound:
		return fmt.Sprintf("culprit could not start: the workflow `.github/workflows/%s` was not found on the default branch `%s`. Add it (see the culprit README for an example) and run `/culprit` again.", workflow, ref)
	case http.StatusUnprocessableEntity:
		if slices.Equal(unexpectedInputs(err), []string{"head-sha"}) {
			// A workflow older than the pin. Dispatching without it would
			// run whatever the pull request's head is by then.
			return fmt.Sprintf("culprit could not start `%s`: the workflow on `%s` has no `head-sha` input (GitHub: %s). "+
				"culprit pins each analysis to the pull request's head commit at the time of `/culprit` and starts none without the pin: "+
				"add a `head-sha` input to the workflow's `on: workflow_dispatch` (see the example workflow in the culprit README) and run `/culprit` again.",
				workflow, ref, apiMessage(err))
		}
		return fmt.Sprintf("culprit could not start `%s`: GitHub refused the dispatch (%s). The workflow needs an `on: workflow_dispatch` trigger with the inputs `pr-number`, `tests` and `head-sha`.", workflow, apiMessage(err))
	case http.StatusForbidden:
		return fmt.Sprintf("culprit could not start `%s`: the app is not allowed to (%s). It needs the Actions: write permission.", workflow, apiMessage(err))
	default:
		return fmt.Sprintf("culprit could not start `%s`: %s. Try `/culprit` again later.", workflow, apiMessage(err))
	}
}

// unexpectedInputs are the inputs GitHub refused a dispatch for, which
// the workflow does not declare: its 422 says `Unexpected inputs provided:
// ["head-sha"]`. Nil for any other error, or a message in another form,
// which then gets the general answer to a 422.
func unexpectedInputs(err error) []string {
	if ghclient.Status(err) != http.StatusUnprocessableEntity {
		return nil
	}
	_, list, ok := strings.Cut(ghclient.Message(err), "Unexpected inputs provided:")
	var names []string
	if !ok || json.Unmarshal([]byte(list), &names) != nil {
		return nil
	}
	return names
}

func (s *Server) reply(ctx context.Context, gh *github.Client, t *task, body string) error {
	if _, _, err := gh.Issues.CreateComment(ctx, t.owner, t.repo, t.pr, &github.IssueComment{Body: &body}); err != nil {
		return fmt.Errorf("replying on #%d: %w", t.pr, err)
	}
	return nil
}

// apiMessage says what GitHub answered, for the pull request's readers.
func apiMessage(err error) string {
	if m := ghclient.Message(err); m != "" {
		return m
	}
	if code := ghclient.Status(err); code != 0 {
		return http.StatusText(code)
	}
	return "the GitHub API could not be reached"
}
