package action

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/culprit-dev/culprit/action/pr"
	"github.com/culprit-dev/culprit/internal/proc"
	"github.com/sethvargo/go-githubactions"
)

// Target is what one run analyzes: two revisions and, when there is one,
// the pull request to post to.
type Target struct {
	Owner, Repo string
	PR          int    // 0 when the event has no pull request (push)
	Base        string // the merge base of the PR's base and head
	Head        string
	Event       string
}

// errNoPR is returned when the event names no pull request and no revisions
// were given.
var errNoPR = errors.New("no pull request")

// prFetcher fetches a pull request by number.
type prFetcher func(ctx context.Context, number int) (*pr.PullRequest, error)

// resolveTarget works out base and head from the inputs and the event:
// pull_request uses the PR's head and the merge base with its base;
// workflow_dispatch reads the PR named by pr-number from the checkout (see
// mergeParents) or else fetches it; push compares with
// the commit before the push. Explicit base and head inputs win.
func resolveTarget(ctx context.Context, cfg *Config, gc *githubactions.GitHubContext, fetch prFetcher, log *githubactions.Action) (*Target, error) {
	t := &Target{Event: gc.EventName}
	t.Owner, t.Repo = gc.Repo()
	var base, head string
	switch gc.EventName {
	case "pull_request", "pull_request_target":
		if gc.EventName == "pull_request_target" {
			log.Warningf("culprit runs the pull request's tests; under pull_request_target that means untrusted code with a write token. Use the fork-safe pattern (pull_request + workflow_run) instead.")
		}
		p, _ := gc.Event["pull_request"].(map[string]any)
		if p == nil {
			return nil, fmt.Errorf("%w: the %s event payload has no pull_request", errNoPR, gc.EventName)
		}
		t.PR = jsonInt(p["number"])
		base, head = str(p, "base", "sha"), str(p, "head", "sha")
	case "workflow_dispatch", "issue_comment":
		n := cfg.PRNumber
		if in, ok := gc.Event["inputs"].(map[string]any); ok && n == 0 {
			n = jsonInt(in["pr-number"])
		}
		if gc.EventName == "issue_comment" {
			var err error
			if n, err = commentedPR(gc, n, log); err != nil {
				return nil, err
			}
		}
		if n == 0 && (cfg.Base == "" || cfg.Head == "") {
			return nil, fmt.Errorf("%w: %s needs the pr-number input (or base and head)", errNoPR, gc.EventName)
		}
		if n != 0 {
			t.PR = n
			if base, head = mergeParents(ctx, cfg.Dir, n); head == "" {
				p, err := fetch(ctx, n)
				if err != nil {
					return nil, err
				}
				base, head = p.BaseSHA, p.HeadSHA
			}
			if err := checkPin(gc, n, head); err != nil {
				return nil, err
			}
		}
	case "push":
		base, _ = gc.Event["before"].(string)
		head, _ = gc.Event["after"].(string)
		if head == "" {
			head = gc.SHA
		}
		if strings.Trim(base, "0") == "" && cfg.Base == "" {
			return nil, errors.New("this push created the branch: there is no earlier commit to compare with; set the base input")
		}
		t.PR = cfg.PRNumber
		if cfg.Base != "" {
			base = cfg.Base
		}
		if cfg.Head != "" {
			head = cfg.Head
		}
		t.Base, t.Head = base, head
		return t, nil
	default:
		if cfg.Base == "" || cfg.Head == "" {
			return nil, fmt.Errorf("%w: the %q event carries no pull request; use pull_request, workflow_dispatch with pr-number, or set base and head", errNoPR, gc.EventName)
		}
		t.PR = cfg.PRNumber
	}
	if cfg.Base != "" {
		base = cfg.Base
	}
	if cfg.Head != "" {
		head = cfg.Head
	}
	if base == "" || head == "" {
		return nil, fmt.Errorf("%w: could not tell base and head from the %s event", errNoPR, gc.EventName)
	}
	if cfg.Base != "" {
		// An explicit base is taken as given.
		t.Base, t.Head = base, head
		return t, nil
	}
	mb, err := mergeBase(ctx, cfg.Dir, base, head)
	if err != nil {
		return nil, err
	}
	t.Base, t.Head = mb, head
	return t, nil
}

// commentedPR is the pull request an issue_comment run analyzes: the
// pr-number input, else the pull request commented on. Such a run starts
// from the default branch's workflow with its token, so running the pull
// request's code there is what the fork-safe pattern avoids: it is allowed,
// with a warning, and a comment on an issue is an error that says so.
func commentedPR(gc *githubactions.GitHubContext, n int, log *githubactions.Action) (int, error) {
	issue, _ := gc.Event["issue"].(map[string]any)
	_, onPR := issue["pull_request"].(map[string]any)
	if n == 0 && !onPR {
		return 0, fmt.Errorf("%w: this issue_comment event is on issue #%d, which is not a pull request; set pr-number, or run culprit on pull_request or workflow_dispatch (the culprit bot dispatches the workflow for /culprit comments)", errNoPR, jsonInt(issue["number"]))
	}
	if n == 0 {
		n = jsonInt(issue["number"])
	}
	log.Warningf("culprit runs pull request #%d's tests in an issue_comment run, which starts from the default branch with its token; prefer the culprit bot, which dispatches a read-only analysis (docs/bot.md)", n)
	return n, nil
}

// checkPin holds a dispatched analysis to the commit it was asked about:
// the head-sha input (the pull request's head when /culprit was written)
// must be the head the checkout or the API gives now. A pull request that
// moved on since is not analyzed in its place.
func checkPin(gc *githubactions.GitHubContext, n int, head string) error {
	pin := strings.TrimSpace(str(gc.Event, "inputs", "head-sha"))
	switch {
	case pin == "":
		return nil
	case !fullSHA.MatchString(pin):
		return fmt.Errorf("%w: the head-sha input %q is not a full commit SHA", errBadInput, pin)
	case pin != head:
		return fmt.Errorf("pull request #%d is now at %s, not at %s, the commit this analysis was asked for; not analyzing another commit in its place (ask again on the new head)", n, short(head), short(pin))
	}
	return nil
}

var fullSHA = regexp.MustCompile(`^[0-9a-f]{40}$`)

// mergeParents returns the base and head of pull request n when the
// checkout holds GitHub's merge commit of it, as actions/checkout leaves it
// (refs/remotes/pull/<n>/merge) when asked for refs/pull/<n>/merge: its
// first parent is the base branch and its second the PR's head. This is
// what lets a dispatched analyze job run without pull-requests: read.
// Both are "" when there is no such ref.
func mergeParents(ctx context.Context, dir string, n int) (base, head string) {
	ref := fmt.Sprintf("refs/remotes/pull/%d/merge", n)
	out, err := git(ctx, dir, "rev-parse", ref+"^1^{commit}", ref+"^2^{commit}")
	if err != nil {
		return "", ""
	}
	f := strings.Fields(out)
	if len(f) != 2 {
		return "", ""
	}
	return f[0], f[1]
}

// mergeBase is the commit the PR branched from, fetching the two commits
// first when the checkout lacks them (a shallow clone).
func mergeBase(ctx context.Context, dir, base, head string) (string, error) {
	for _, rev := range []string{base, head} {
		if _, err := git(ctx, dir, "cat-file", "-e", rev+"^{commit}"); err != nil {
			if _, ferr := git(ctx, dir, "fetch", "--no-tags", "--quiet", "origin", rev); ferr != nil {
				return "", fmt.Errorf("commit %s is not in the checkout (use actions/checkout with fetch-depth: 0): %w", rev, ferr)
			}
		}
	}
	out, err := git(ctx, dir, "merge-base", base, head)
	if err != nil {
		return "", fmt.Errorf("finding the merge base of %s and %s (use actions/checkout with fetch-depth: 0): %w", short(base), short(head), err)
	}
	return strings.TrimSpace(out), nil
}

// git is proc.Git with the whole command line in its error (proc names
// only git's subcommand): the job log then shows which revision a fetch
// or a merge-base was given.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	out, err := proc.Git(ctx, dir, args...)
	var ge *proc.GitError
	if errors.As(err, &ge) {
		return "", fmt.Errorf("git %s: exit %d: %s", strings.Join(args, " "), ge.ExitCode, ge.Stderr)
	}
	return string(out), err
}

// str walks nested JSON objects and returns the string at the end.
func str(m map[string]any, keys ...string) string {
	for i, k := range keys {
		v, ok := m[k]
		if !ok {
			return ""
		}
		if i == len(keys)-1 {
			s, _ := v.(string)
			return s
		}
		if m, ok = v.(map[string]any); !ok {
			return ""
		}
	}
	return ""
}

// jsonInt reads a number from a decoded JSON value (float64 in payloads, a
// string in workflow_dispatch inputs).
func jsonInt(v any) int {
	switch v := v.(type) {
	case float64:
		return int(v)
	case string:
		n, _ := strconv.Atoi(strings.TrimPrefix(strings.TrimSpace(v), "#"))
		return n
	}
	return 0
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}
