package main

import (
	"fmt"

	"github.com/culprit-dev/culprit/analyzer/result"
	"github.com/culprit-dev/culprit/analyzer/trial"
)

// failOn names the verdicts that end culprit with exitVerdict (--fail-on),
// so that a script can stop on a failing test or a regression without
// reading the report. The values are the Action's fail-on input's; the
// default, errors, is the Action's comment mode's: only an error fails.
type failOn string

const (
	// failOnTestFailures: the test failed on head in the analysis's runs,
	// whatever culprit found.
	failOnTestFailures failOn = "test-failures"
	// failOnRegressions: the test passes on base and fails on head
	// (explained or not, flaky or not), or head no longer builds.
	failOnRegressions failOn = "regressions"
	// failOnErrors: no verdict fails; only an error does (exit code 1).
	failOnErrors failOn = "errors"
)

func (f *failOn) String() string { return string(*f) }

func (f *failOn) Set(s string) error {
	switch v := failOn(s); v {
	case failOnTestFailures, failOnRegressions, failOnErrors:
		*f = v
		return nil
	}
	return fmt.Errorf("want test-failures, regressions or errors")
}

// check returns a verdictFails when r's verdict is one f names.
func (f failOn) check(r *result.Report) error {
	switch {
	case f == failOnRegressions && r.Status.Regression():
		return &verdictFails{failOn: f, why: fmt.Sprintf("%s is a regression (%s)", r.Test.Name, r.Status)}
	case f == failOnTestFailures && failedOnHead(r):
		return &verdictFails{failOn: f, why: fmt.Sprintf("%s failed on head (%s)", r.Test.Name, r.Status)}
	}
	return nil
}

// failedOnHead reports whether any of the report's runs of head (its
// evidence) did not pass. A test that passed in every run of head, or
// never ran (base and head the same tree), did not fail.
func failedOnHead(r *result.Report) bool {
	for _, run := range r.Evidence {
		if run.Side == result.SideHead && run.Outcome != string(trial.Pass) {
			return true
		}
	}
	return false
}
