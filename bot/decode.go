package bot

import (
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/google/go-github/v60/github"
)

type taskKind int

const (
	// taskCommand answers a "/culprit" comment.
	taskCommand taskKind = iota + 1
	// taskFailure explains a failed workflow run of an opted-in repository.
	taskFailure
)

// task is the work one delivery asks for: everything the worker needs,
// decoded once from the payload, so workers never look at raw events.
type task struct {
	kind           taskKind
	installationID int64
	owner, repo    string
	defaultBranch  string // the dispatch ref: workflows run from the base repository
	pr             int

	// taskCommand
	commentID int64
	author    string
	cmd       command
	cmdErr    error // a malformed command line: the author gets the usage

	// taskFailure
	headSHA string
	runID   int64
	// fork is the head of a fork's pull request, whose failed run names
	// no pull request (pr is 0): the task finds it (pull.go).
	fork *forkHead
}

// forkHead is where a fork's failed run ran: the fork's full name, its
// owner and the branch.
type forkHead struct {
	repo, owner, branch string
}

func (t *task) fullName() string { return t.owner + "/" + t.repo }

// commentKey names the comment a command came from, which one delivery
// carries, whatever its id; "" for other tasks.
func (t *task) commentKey() string {
	if t.kind != taskCommand {
		return ""
	}
	return t.fullName() + "/" + strconv.FormatInt(t.commentID, 10)
}

// errPayload marks a delivery whose body is not the event it claims to be.
var errPayload = errors.New("malformed payload")

// decodeEvent turns a verified delivery into a task. It returns a nil task
// and the reason when the delivery needs no work, and an error wrapping
// errPayload when the payload cannot be decoded. workflow is the culprit
// workflow's file name, whose own runs are never explained (no loop).
func decodeEvent(event string, payload []byte, workflow string) (*task, string, error) {
	if event != "issue_comment" && event != "workflow_run" {
		return nil, "event " + event + " not handled", nil
	}
	parsed, err := github.ParseWebHook(event, payload)
	if err != nil {
		return nil, "", fmt.Errorf("%w: %s: %w", errPayload, event, err)
	}
	switch ev := parsed.(type) {
	case *github.IssueCommentEvent:
		return decodeComment(ev)
	case *github.WorkflowRunEvent:
		return decodeWorkflowRun(ev, workflow)
	default:
		// ParseWebHook returns the type named by the event, checked above.
		panic(fmt.Sprintf("decodeEvent: %s decoded as %T", event, parsed))
	}
}

func decodeComment(ev *github.IssueCommentEvent) (*task, string, error) {
	if a := ev.GetAction(); a != "created" {
		return nil, "comment " + a, nil
	}
	if ev.Issue == nil || ev.Comment == nil {
		return nil, "", fmt.Errorf("%w: issue_comment without issue or comment", errPayload)
	}
	if !ev.Issue.IsPullRequest() {
		return nil, "comment on an issue, not a pull request", nil
	}
	if isBot(ev.Comment.GetUser()) {
		return nil, "comment by a bot", nil
	}
	cmd, ok, cmdErr := parseCommand(ev.Comment.GetBody())
	if !ok {
		return nil, "no /culprit command", nil
	}
	t, err := baseTask(ev.Repo, ev.Installation)
	if err != nil {
		return nil, "", err
	}
	t.kind = taskCommand
	t.pr = ev.Issue.GetNumber()
	t.commentID = ev.Comment.GetID()
	t.author = ev.Comment.GetUser().GetLogin()
	t.cmd, t.cmdErr = cmd, cmdErr
	if t.pr <= 0 || t.commentID == 0 || t.author == "" {
		return nil, "", fmt.Errorf("%w: comment without number, id or author", errPayload)
	}
	return t, "", nil
}

func decodeWorkflowRun(ev *github.WorkflowRunEvent, workflow string) (*task, string, error) {
	if a := ev.GetAction(); a != "completed" {
		return nil, "workflow run " + a, nil
	}
	run := ev.GetWorkflowRun()
	if c := run.GetConclusion(); c != "failure" {
		return nil, "workflow run concluded " + c, nil
	}
	if path.Base(ev.GetWorkflow().GetPath()) == workflow {
		return nil, "run of the culprit workflow itself", nil
	}
	t, err := baseTask(ev.Repo, ev.Installation)
	if err != nil {
		return nil, "", err
	}
	t.kind = taskFailure
	t.headSHA = run.GetHeadSHA()
	t.runID = run.GetID()
	if t.headSHA == "" {
		return nil, "", fmt.Errorf("%w: workflow run without head SHA", errPayload)
	}
	if pr := runPullRequest(run, ev.Repo.GetID()); pr != nil {
		t.pr = pr.GetNumber()
		if t.pr <= 0 {
			return nil, "", fmt.Errorf("%w: workflow run with a pull request without number", errPayload)
		}
		return t, "", nil
	}
	t.fork = runFork(run, t.fullName())
	if t.fork == nil {
		return nil, "workflow run not for a pull request of this repository", nil
	}
	return t, "", nil
}

// runFork is the head of run when it ran in another repository than
// fullName, a fork: GitHub leaves a fork's pull request out of
// workflow_run.pull_requests, so that is all a failed run of one says. A
// run of the repository's own branch that lists no pull request is not
// for one; a fork since deleted (no head repository) leaves nothing to
// find the pull request by.
func runFork(run *github.WorkflowRun, fullName string) *forkHead {
	head := run.GetHeadRepository()
	f := &forkHead{repo: head.GetFullName(), owner: head.GetOwner().GetLogin(), branch: run.GetHeadBranch()}
	if head == nil || f.repo == "" || f.owner == "" || f.branch == "" || strings.EqualFold(f.repo, fullName) {
		return nil
	}
	return f
}

// runPullRequest picks the run's pull request into this repository; a run
// can list pull requests of other repositories that share the head branch.
func runPullRequest(run *github.WorkflowRun, repoID int64) *github.PullRequest {
	for _, pr := range run.PullRequests {
		if pr.GetBase().GetRepo().GetID() == repoID {
			return pr
		}
	}
	return nil
}

func baseTask(repo *github.Repository, inst *github.Installation) (*task, error) {
	t := &task{
		installationID: inst.GetID(),
		owner:          repo.GetOwner().GetLogin(),
		repo:           repo.GetName(),
		defaultBranch:  repo.GetDefaultBranch(),
	}
	if t.owner == "" || t.repo == "" {
		return nil, fmt.Errorf("%w: repository without owner or name", errPayload)
	}
	return t, nil
}

// isBot reports whether u is an App or bot account; their comments are
// never commands, so bots answering each other cannot loop.
func isBot(u *github.User) bool {
	return u.GetType() == "Bot" || strings.HasSuffix(u.GetLogin(), "[bot]")
}
