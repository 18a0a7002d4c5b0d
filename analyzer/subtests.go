package analyzer

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/culprit-dev/culprit/analyzer/gotest"
	"github.com/culprit-dev/culprit/analyzer/trial"
	"github.com/culprit-dev/culprit/diffhunks"
)

// SubtestChoice says which failing leaf subtest of the named test is
// explained. A table-driven test regresses row by row: the rows the change
// added may fail on any variant that reverts the code they test, so the
// whole test is not what regressed, its rows are.
type SubtestChoice struct {
	// Leaf is the subtest to explain; "" when the named test is explained
	// as it is (it has no failing subtests, or is a leaf itself).
	Leaf string
	// Same are the other regressed subtests that fail with Leaf's
	// signature: one explanation covers them.
	Same []string
	// Other are regressed subtests with another signature, not explained
	// by this analysis.
	Other []string
	// New are failing subtests that base does not have: new in the change,
	// so not regressions.
	New []string
}

// chooseSubtest picks the subtest to explain from the classification runs:
// a leaf that failed in every head run and passed in every base run.
// Leaves that fail on base too are neither explained nor listed.
func chooseSubtest(headRuns, baseRuns []trial.Result) SubtestChoice {
	var c SubtestChoice
	if len(headRuns) == 0 || len(baseRuns) == 0 {
		return c
	}
	var regressed []trial.Subtest
	for _, st := range headRuns[0].Subtests {
		if st.Outcome != trial.Fail && st.Outcome != trial.Crash {
			continue
		}
		switch {
		case !everyRun(headRuns, st.Name, failing):
			// Mixed on head: the classification already judged the
			// whole test deterministic, so leave this leaf alone.
		case !onBase(baseRuns[0], st.Name):
			c.New = append(c.New, st.Name)
		case everyRun(baseRuns, st.Name, func(o trial.Outcome) bool { return o == trial.Pass }):
			regressed = append(regressed, st)
		}
	}
	if len(regressed) == 0 {
		return c
	}
	c.Leaf = regressed[0].Name
	for _, st := range regressed[1:] {
		if st.Signature == regressed[0].Signature {
			c.Same = append(c.Same, st.Name)
		} else {
			c.Other = append(c.Other, st.Name)
		}
	}
	return c
}

// onBase reports whether the subtest ran (and was not skipped) on base.
func onBase(run trial.Result, name string) bool {
	i := slices.IndexFunc(run.Subtests, func(st trial.Subtest) bool { return st.Name == name })
	return i >= 0 && run.Subtests[i].Outcome != trial.NoTests
}

// everyRun reports whether the subtest ran in every run with an outcome
// that ok accepts.
func everyRun(runs []trial.Result, name string, ok func(trial.Outcome) bool) bool {
	for _, r := range runs {
		i := slices.IndexFunc(r.Subtests, func(st trial.Subtest) bool { return st.Name == name })
		if i < 0 || !ok(r.Subtests[i].Outcome) {
			return false
		}
	}
	return true
}

// NoSuchSubtestError says that the named subtest did not run on head
// although its top-level test did: no subtest there has that name. Without
// it a typo in a subtest name gave a verdict on a test that never ran ("new
// in this change" when the parent failed on a check of its own).
type NoSuchSubtestError struct {
	Name string // the subtest as named
	// Ran are the leaf subtests of its top-level test that ran on head,
	// in start order.
	Ran []string
}

// maxListed is how many subtests the error's text lists.
const maxListed = 20

func (e *NoSuchSubtestError) Error() string {
	top := gotest.TopLevel(e.Name)
	if len(e.Ran) == 0 {
		return fmt.Sprintf("no subtest matches %s on head: %s ran no subtests", e.Name, top)
	}
	ran := strings.Join(e.Ran[:min(len(e.Ran), maxListed)], ", ")
	if n := len(e.Ran) - maxListed; n > 0 {
		ran += fmt.Sprintf(" and %d more", n)
	}
	return fmt.Sprintf("no subtest matches %s on head; the subtests of %s that ran: %s", e.Name, top, ran)
}

// Unwrap makes the error an ErrNoSuchTest.
func (e *NoSuchSubtestError) Unwrap() error { return ErrNoSuchTest }

// missingSubtest turns err, the classification's word that the named test
// did not run on head, into a NoSuchSubtestError when the named test is a
// subtest whose top-level test does run: that test runs once more, alone,
// to list its subtests. Any other case keeps err.
func missingSubtest(ctx context.Context, req Request, head string, set *diffhunks.Set, mod module, err error) error {
	name, top := req.Test.Name, gotest.TopLevel(req.Test.Name)
	if req.Mode != trial.ModeGo || top == name {
		return err
	}
	req.Test.Name = top
	r, rerr := newRunner(ctx, req, head, set, mod)
	if rerr != nil {
		return err
	}
	defer r.Close()
	res, rerr := r.Run(ctx, nil)
	if rerr != nil || res.Outcome == trial.NoTests || res.Outcome == trial.BuildError || res.Outcome == trial.Timeout {
		return err
	}
	ns := &NoSuchSubtestError{Name: name}
	for _, st := range res.Subtests {
		ns.Ran = append(ns.Ran, st.Name)
	}
	return ns
}
