package report

import (
	"strings"
	"testing"

	"github.com/culprit-dev/culprit/analyzer/result"
)

// TestTracedFailureWording: a failure message taken from the traced run is
// not called the first failure.
func TestTracedFailureWording(t *testing.T) {
	r := explainedWithTree()
	r.Failure = result.Failure{Signature: "calc/calc_test.go:7", Message: "F(3, 1, 2) = 4, want 5", Traced: true}
	md := Markdown(r)
	if !strings.Contains(md, "Failure in the traced run on head") || strings.Contains(md, "First failure on head") {
		t.Errorf("the traced run's failure is not named as such:\n%s", md)
	}
}
