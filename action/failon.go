package action

import (
	"errors"
	"fmt"
)

// FailOn says which outcomes fail the step (the fail-on input), so that a
// workflow whose test step continues on error still ends red.
type FailOn string

const (
	// FailOnTestFailures fails the step whenever a test failed on head,
	// whatever culprit found: the default of the analyzing modes.
	FailOnTestFailures FailOn = "test-failures"
	// FailOnRegressions fails it only when a test passes on base and
	// fails on head (explained or not, flaky or not) or head no longer
	// builds; a test failing on both sides, or flaky on both, does not.
	FailOnRegressions FailOn = "regressions"
	// FailOnErrors fails it only when culprit itself could not finish:
	// the default of the comment mode, whose job is to post.
	FailOnErrors FailOn = "errors"
)

// errVerdictFails is returned by a run whose verdict fails the step under
// fail-on; the status output keeps the verdict.
var errVerdictFails = errors.New("the verdict fails the step")

// parseFailOn reads the fail-on input; empty takes the mode's default.
func parseFailOn(s string, mode Task) (FailOn, error) {
	switch f := FailOn(s); f {
	case "":
		if mode == Comment {
			return FailOnErrors, nil
		}
		return FailOnTestFailures, nil
	case FailOnTestFailures, FailOnRegressions, FailOnErrors:
		return f, nil
	}
	return "", fmt.Errorf("input fail-on: %q is not one of test-failures, regressions, errors", s)
}

// verdictFails says why an analysis fails the step under f; "" when it
// does not.
func (f FailOn) verdictFails(an *analysis) string {
	switch f {
	case FailOnTestFailures:
		if len(an.Reports) > 0 || an.Skipped > 0 || (an.Status != "" && an.Status != StatusNoFailingTests) {
			return "tests failed on the pull request's head"
		}
	case FailOnRegressions:
		for _, r := range an.Reports {
			if r.Status.Regression() {
				return fmt.Sprintf("%s is a regression (%s)", r.Test.Name, r.Status)
			}
		}
	}
	return ""
}
