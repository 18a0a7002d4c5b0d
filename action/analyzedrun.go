package action

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/culprit-dev/culprit/action/pr"
)

// analyzedRun is what the comment mode holds true about the analyze run
// whose report it posts. Each field comes from the workflow_run event (written
// by GitHub), the run's name (written by the default branch's workflow from
// the dispatch inputs) or the API; the report's own context, written by a
// run of the pull request's code, may only agree with them.
type analyzedRun struct {
	number   int    // the pull request
	head     string // the commit the run analyzed
	workflow string // the analyzing workflow's name
	tests    string // the tests the run was asked for; "" every failing test
	url      string // the run's page
}

// dispatchTitle is the name the example workflow gives a dispatched run:
// "culprit #42", then " @ <head-sha>" when the dispatch pinned the commit,
// then " [TestA TestB]" when it named tests.
var dispatchTitle = regexp.MustCompile(`#([0-9]+)(?: @ ([0-9a-f]{40}))?(?: \[([^\]]*)\])?$`)

// analyzedRun works out, from the event, where the report may be posted.
// Without a workflow_run event (a comment-mode step in a job of its own
// making) the pr-number input or the report names the pull request.
// Every case ends with the API's word that the pull request's head is the
// analyzed commit.
func (ru *run) analyzedRun(ctx context.Context, client func(int) *pr.Client, rc *runContext) (*analyzedRun, error) {
	if rc == nil {
		rc = &runContext{}
	}
	wr, ok := ru.gc.Event["workflow_run"].(map[string]any)
	if !ok {
		t := &analyzedRun{number: ru.cfg.PRNumber, head: rc.Head, workflow: ru.gc.Workflow, tests: rc.Tests}
		if t.number == 0 {
			t.number = rc.PR
		}
		if t.number == 0 {
			return nil, fmt.Errorf("%w: no pull request number in the report context, the pr-number input or the event", errNoPR)
		}
		return t, nil
	}
	t := &analyzedRun{workflow: str(wr, "name"), url: str(wr, "html_url")}
	var headRepo string
	switch ev := str(wr, "event"); ev {
	case "workflow_dispatch":
		if err := t.fromDispatch(wr, rc); err != nil {
			return nil, err
		}
	default:
		t.head, t.tests = str(wr, "head_sha"), rc.Tests
		headRepo = str(wr, "head_repository", "full_name")
		if t.head == "" {
			return nil, errors.New("the workflow_run event has no head_sha; refusing to comment")
		}
		if err := t.fromEventPRs(wr, rc); err != nil {
			return nil, err
		}
	}
	if ru.cfg.PRNumber != 0 && ru.cfg.PRNumber != t.number {
		return nil, fmt.Errorf("the pr-number input is #%d but the analyzed run was for #%d; refusing to comment", ru.cfg.PRNumber, t.number)
	}
	if rc.Head != "" && rc.Head != t.head {
		return nil, fmt.Errorf("the report is about commit %s but the run analyzed %s; refusing to comment", short(rc.Head), short(t.head))
	}
	p, err := client(t.number).Get(ctx)
	if err != nil {
		return nil, err
	}
	if p.HeadSHA != t.head {
		return nil, fmt.Errorf("pull request #%d is at %s but the analyzed run was at %s; refusing to comment (the PR moved on, or the report names another PR)", t.number, short(p.HeadSHA), short(t.head))
	}
	if headRepo != "" && p.HeadRepo != "" && !strings.EqualFold(headRepo, p.HeadRepo) {
		return nil, fmt.Errorf("pull request #%d comes from %s but the analyzed run's branch is in %s; refusing to comment", t.number, p.HeadRepo, headRepo)
	}
	return t, nil
}

// fromEventPRs takes the pull request of a pull_request run from the event.
// The event lists the pull requests of the run's branch, except for a
// fork's, where the list is empty: then the report's number stands, and
// the caller checks it against the API (head commit and head repository).
func (t *analyzedRun) fromEventPRs(wr map[string]any, rc *runContext) error {
	var listed []int
	prs, _ := wr["pull_requests"].([]any)
	for _, v := range prs {
		if p, ok := v.(map[string]any); ok {
			if n := jsonInt(p["number"]); n > 0 {
				listed = append(listed, n)
			}
		}
	}
	switch {
	case len(listed) == 0 && rc.PR == 0:
		return fmt.Errorf("%w: the event lists no pull request and the report names none", errNoPR)
	case len(listed) == 0:
		t.number = rc.PR
	case rc.PR == 0:
		t.number = listed[0]
	case slices.Contains(listed, rc.PR):
		t.number = rc.PR
	default:
		return fmt.Errorf("the report names pull request #%d but the event lists %v; refusing to comment", rc.PR, listed)
	}
	return nil
}

// fromDispatch reads a dispatched run's pull request, pinned commit and
// tests from its name. A dispatched run ran on the default branch, so the
// event's head_sha is not the pull request's.
func (t *analyzedRun) fromDispatch(wr map[string]any, rc *runContext) error {
	m := dispatchTitle.FindStringSubmatch(str(wr, "display_title"))
	n := 0
	if m != nil {
		n, _ = strconv.Atoi(m[1])
	}
	if n <= 0 {
		return errors.New("the dispatched run's name does not end in #<pr-number>; set run-name as the example workflow does; refusing to comment")
	}
	if rc.PR != 0 && rc.PR != n {
		return fmt.Errorf("the report names pull request #%d but the run was dispatched for #%d; refusing to comment", rc.PR, n)
	}
	t.number, t.head, t.tests = n, m[2], strings.TrimSpace(m[3])
	if t.head == "" {
		// Dispatched without head-sha: the analysis took the head it
		// found, and the API check below still binds it to today's head.
		t.head = rc.Head
	}
	if t.head == "" {
		return errors.New("the report of a dispatched run names no head commit; refusing to comment")
	}
	return nil
}
