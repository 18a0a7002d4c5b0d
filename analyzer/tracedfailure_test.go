package analyzer

import (
	"testing"

	"github.com/culprit-dev/culprit/analyzer/result"
)

// TestTracedFailure: when the first failing run printed another instance
// of the failed assertion than the traced one (goroutines ran the table's
// rows in another order), the report gives the traced run's message for
// the instance the tree shows; a consistent first message, or a traced
// run without a consistent one, leaves the first.
func TestTracedFailure(t *testing.T) {
	tree := &result.Node{Target: result.Statement{File: "p/sanitize_test.go", Line: 12,
		Text:   `t.Errorf("test %d failed; output %s", ii, out)`,
		Values: map[string]string{"ii": "2", "out": `"b"`}}}
	first := result.Failure{Signature: "p/sanitize_test.go:12", Message: "test 0 failed; output a"}
	traced := "=== RUN   TestX\n" +
		"    sanitize_test.go:12: test 0 failed; output a\n" +
		"    sanitize_test.go:12: test 2 failed; output b\n" +
		"--- FAIL: TestX (0.00s)\n"
	got := tracedFailure(first, tree, traced)
	want := result.Failure{Signature: "p/sanitize_test.go:12", Message: "test 2 failed; output b", Traced: true}
	if got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if got := tracedFailure(result.Failure{Message: "test 2 failed; output b"}, tree, traced); got.Traced {
		t.Errorf("a consistent first message was replaced: %+v", got)
	}
	if got := tracedFailure(first, tree, "    sanitize_test.go:12: test 1 failed; output c\n"); got != first {
		t.Errorf("no consistent traced message, yet %+v", got)
	}
	if got := tracedFailure(first, nil, traced); got != first {
		t.Errorf("no tree, yet %+v", got)
	}
}
