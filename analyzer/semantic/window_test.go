package semantic

import (
	"testing"

	"golang.org/x/tools/txtar"
)

const chainModule = `
-- go.mod --
module example.com/chain

go 1.22
-- chain/chain.go --
package chain

// Mix folds n steps into one value: every step reads the last.
func Mix(n int) int {
	s := 1
	for i := 0; i < n; i++ {
		s = s + i
	}
	return s
}
-- chain/chain_test.go --
package chain

import "testing"

func TestMix(t *testing.T) {
	if got := Mix(12); got != 7 {
		t.Errorf("Mix = %d", got)
	}
}
`

// TestWindowBound traces a failure whose slice is a long chain of
// definitions: under a small bound the slice stops there, the cause
// keeps the definitions it read from beyond as observed and says it was
// cut; with the default bound the whole chain is encoded and nothing is
// cut.
func TestWindowBound(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a traced test binary")
	}
	dir := writeTree(t, txtar.Parse([]byte(chainModule)), "")
	tr := traceFailing(t, dir, "./chain", "TestMix")

	const bound = 16
	cut := New(tr, dir, Setup{Window: 4, MaxSlice: bound})
	tg, err := cut.Failure()
	if err != nil {
		t.Fatal(err)
	}
	c, err := cut.Cause(t.Context(), tg)
	if err != nil {
		t.Fatal(err)
	}
	st := cut.Effort()
	if !c.Cut || st.Cut != 1 {
		t.Errorf("cut = %v, Effort.Cut = %d; want a cut cause under a bound of %d events", c.Cut, st.Cut, bound)
	}
	if st.Slice > bound {
		t.Errorf("the slice took %d events, over the bound of %d", st.Slice, bound)
	}
	got := texts(cut, c)
	t.Logf("cut cause (%d statements, %d solver calls): %q", len(got), st.SolverCalls, got)
	for _, want := range []string{"s = s + i", "got != 7"} {
		if !containsText(got, want) {
			t.Errorf("cut cause lacks %q", want)
		}
	}
	// The events the cut left as observed are definitions outside the
	// window: the earliest statement of the cause is one of them, and
	// the loop's first iterations are not reached.
	first := cut.tr.Event(c.Events[0])
	if first.Index == 0 || len(first.Writes) == 0 {
		t.Errorf("the cause's earliest event %s defines nothing", cut.describe(c.Events[0]))
	}

	full := New(tr, dir, Setup{})
	tg, err = full.Failure()
	if err != nil {
		t.Fatal(err)
	}
	fc, err := full.Cause(t.Context(), tg)
	if err != nil {
		t.Fatal(err)
	}
	fst := full.Effort()
	if fc.Cut || fst.Cut != 0 {
		t.Errorf("with the default bound the cause was cut (Effort.Cut = %d)", fst.Cut)
	}
	if fst.Slice <= bound {
		t.Errorf("the whole slice has %d events; the test needs more than %d", fst.Slice, bound)
	}
	// The whole chain: every iteration's step, and the definition of s
	// before the loop, which the cut cause cannot reach.
	if n, m := countText(texts(full, fc), "s = s + i"), countText(got, "s = s + i"); n != 12 || m >= n {
		t.Errorf("steps in the cause: %d with the default bound (want 12), %d cut", n, m)
	}
	if !containsText(texts(full, fc), "s := 1") || containsText(got, "s := 1") {
		t.Errorf("s := 1 should be in the whole cause only")
	}
	full.Release()
	if fst2 := full.Effort(); fst2 != fst {
		t.Errorf("Effort after Release = %+v, want %+v", fst2, fst)
	}
}

func countText(list []string, sub string) int {
	n := 0
	for _, s := range list {
		if containsText([]string{s}, sub) {
			n++
		}
	}
	return n
}
