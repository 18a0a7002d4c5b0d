package analyzer

import (
	"slices"

	"github.com/culprit-dev/culprit/analyzer/trial"
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
