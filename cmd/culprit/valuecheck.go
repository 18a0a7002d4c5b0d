package main

import (
	"fmt"

	"github.com/culprit-dev/culprit/analyzer/gotest"
	"github.com/culprit-dev/culprit/analyzer/result"
)

// valueCheck is the check, on one report, that the values shown at the
// failed assertion are the values the program printed (gotest.CheckPrinted
// on the tree's root and the report's failure message).
type valueCheck struct {
	gotest.Printed
	where string // the failed assertion, file:line
}

// mark is the bench table's cell: "-" when nothing could be compared.
func (v valueCheck) mark() string {
	switch {
	case len(v.Mismatches) > 0:
		return fmt.Sprintf("%d/%d wrong", len(v.Mismatches), v.Checked)
	case v.Checked == 0:
		return "-"
	}
	return fmt.Sprintf("%d ok", v.Checked)
}

// checkValues checks doc's failed assertion against its failure message.
func checkValues(doc *result.Report) valueCheck {
	if doc.Tree == nil || doc.Failure.Message == "" {
		return valueCheck{}
	}
	st := doc.Tree.Target
	p, _ := gotest.CheckPrinted(st.Text, st.Values, doc.Failure.Message)
	return valueCheck{Printed: p, where: fmt.Sprintf("%s:%d", st.File, st.Line)}
}
