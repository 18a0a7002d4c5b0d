package result

// Status is the verdict of an analysis.
type Status string

const (
	// Explained: reverting the root (with its auxiliary hunks) makes the
	// test pass, and the proof run showed it.
	Explained Status = "explained"
	// NotRegression: the failure is not the change's (it fails on base
	// too, the test is new, or head passes).
	NotRegression Status = "not-regression"
	// Flaky: head's outcomes are mixed and no regression is claimed.
	Flaky Status = "flaky"
	// FlakyRegression: head fails in some runs, base in none of enough
	// runs to rule out head's rate (Report.Flakiness has the numbers).
	FlakyRegression Status = "flaky-regression"
	// HeadBuildFails: head does not build, so the test cannot run.
	HeadBuildFails Status = "head-build-fails"
	// Unexplained: no reverted set was proven; Root is the best
	// dynamic-only answer, if any.
	Unexplained Status = "unexplained"
)

// Known reports whether s is one of the statuses this version writes.
func (s Status) Known() bool {
	switch s {
	case Explained, NotRegression, Flaky, FlakyRegression, HeadBuildFails, Unexplained:
		return true
	}
	return false
}

// Regression reports whether s is a verdict on a test that passes on base
// and fails on head, explained or not, flaky or not, or whose head no
// longer builds: the verdicts that --fail-on regressions (the CLI) and
// fail-on: regressions (the Action) turn into a failure.
func (s Status) Regression() bool {
	switch s {
	case Explained, Unexplained, FlakyRegression, HeadBuildFails:
		return true
	}
	return false
}
