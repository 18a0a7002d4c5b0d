package semantic

import (
	"errors"
	"testing"

	"golang.org/x/tools/txtar"
)

const loopModule = `
-- go.mod --
module example.com/loop

go 1.22
-- loop/loop.go --
package loop

import "strings"

func Sum(xs []int) int {
	s := 0
	for _, x := range xs {
		if x > 1 {
			s += x * 2
		}
	}
	return s
}

func Name(n string) string {
	return strings.ToUpper(n) + "!"
}
-- loop/loop_test.go --
package loop

import "testing"

func TestSum(t *testing.T) {
	if Name("a") != "A!" {
		t.Fatal("name")
	}
	got := Sum([]int{1, 2, 3})
	if got != 12 {
		t.Errorf("Sum = %d, want 12", got)
	}
}
`

// TestLoopTrace runs the analysis on a real trace with a loop, slice
// elements and an uninstrumented call: it must derive a cause whose
// formula the run satisfies, without lying about what it approximated.
func TestLoopTrace(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a traced test binary")
	}
	dir := writeTree(t, txtar.Parse([]byte(loopModule)), "")
	ctx := t.Context()
	a := New(traceFailing(t, dir, "./loop", "TestSum"), dir, Setup{})
	tg, err := a.Failure()
	if err != nil {
		t.Fatal(err)
	}
	checkInvariant(t, a, tg)
	c, err := a.Cause(ctx, tg)
	if err != nil {
		t.Fatal(err)
	}
	got := texts(a, c)
	t.Logf("cause: %q", got)
	for _, want := range []string{"s += x * 2", "range xs", "return s", "got != 12"} {
		if !containsText(got, want) {
			t.Errorf("cause lacks %q", want)
		}
	}
	if containsText(got, "Name") {
		t.Errorf("cause has the unrelated Name check")
	}
	preds := a.CriticalPredicates(c)
	for _, p := range preds {
		pc, err := a.Cause(ctx, p)
		switch {
		case errors.Is(err, ErrNoCause):
			// Degrade, never lie: the range's iteration count depends on
			// len(xs), which no event recorded as a read.
			t.Logf("critical predicate %s = %s: %v", a.describe(p.Event), p.Outcome, err)
		case err != nil:
			t.Errorf("cause of %s: %v", a.describe(p.Event), err)
		default:
			checkInvariant(t, a, p)
			t.Logf("critical predicate %s = %s: cause %q", a.describe(p.Event), p.Outcome, texts(a, pc))
		}
	}
	t.Logf("effort: %+v", a.Effort())
}
