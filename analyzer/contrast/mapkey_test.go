package contrast

import (
	"testing"

	"github.com/culprit-dev/culprit/analyzer/trace"
)

// TestKeyOnlyMapRangeAlignsByKey traces one program twice. Its loop over
// a map binds the key alone, so an iteration records no read of its entry;
// map order differs from run to run, and each iteration must still align
// with the one of the same key in the other run.
func TestKeyOnlyMapRangeAlignsByKey(t *testing.T) {
	dir := writeFiles(t, moduleP(`package p

func Sum() int {
	m := map[int]bool{}
	for i := 0; i < 32; i++ {
		m[i*7] = true
	}
	s := 0
	for k := range m {
		s += k % 5
	}
	return s
}
`, `package p

import "testing"

func TestSum(t *testing.T) {
	if Sum() < 0 {
		t.Fatal("negative")
	}
}
`))
	a, b := traceTest(t, dir, "./p", "TestSum"), traceTest(t, dir, "./p", "TestSum")
	c, err := Compare(Runs{Failing: a, Passing: b, FailingDir: dir, PassingDir: dir, Prefix: "."})
	if err != nil {
		t.Fatal(err)
	}
	keyOf := func(tr *trace.Trace, i int) (int64, bool) {
		e := tr.Event(i)
		if e.Kind != trace.EvBranch || tr.SiteOf(i).Kind != trace.SiteRange || len(e.Writes) != 1 {
			return 0, false
		}
		return int64(e.Writes[0].Value.Bits), true
	}
	n := 0
	for i := range a.Events {
		k, ok := keyOf(a, i)
		if !ok {
			continue
		}
		n++
		j := c.Counterpart(Failing, i)
		if j < 0 {
			t.Errorf("the iteration of key %d has no counterpart", k)
			continue
		}
		if k2, _ := keyOf(b, j); k2 != k {
			t.Errorf("the iteration of key %d aligns with the one of key %d", k, k2)
		}
	}
	if n != 32 {
		t.Errorf("%d iterations over the map recorded, want 32", n)
	}
}

func TestRangeKeyText(t *testing.T) {
	for header, want := range map[string]string{
		"for t := range chroma.StandardTypes {": "t",
		"for k, v := range m {":                 "k",
		"for s.k, s.v = range m {":              "s.k",
		"for _, v := range m {":                 "",
		"for range m {":                         "",
		"for ranges := range byName {":          "ranges",
	} {
		if got := rangeKeyText(header); got != want {
			t.Errorf("rangeKeyText(%q) = %q, want %q", header, got, want)
		}
	}
}
