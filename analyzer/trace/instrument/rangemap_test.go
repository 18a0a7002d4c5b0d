package instrument

import (
	"testing"

	"github.com/culprit-dev/culprit/analyzer/trace"
)

// Each iteration of a range over a map reads the entry it binds: the
// read has the identity of the map entry, so its definition is the last
// write of m[k], also when the key is blank, the map is a call's result
// or a named map type, and the loop sits in a closure.
func TestRangeMapReadsEntries(t *testing.T) {
	dir := writeTree(t, map[string][]byte{
		"go.mod": []byte("module example.com/m\n\ngo 1.22\n"),
		"p/p.go": []byte(`package p

type Hash map[string]string

func Clone(src Hash) Hash {
	out := Hash{}
	for k, v := range src {
		out[k] = v
	}
	return out
}

func Total(m map[int]int) (n int) {
	func() {
		for _, v := range m {
			n += v
		}
	}()
	return n
}
`),
		"p/p_test.go": []byte(`package p

import "testing"

func TestClone(t *testing.T) {
	h := Hash{}
	h["a"] = "x"
	for _, v := range Clone(h) {
		if v != "y" {
			t.Errorf("got %q", v)
		}
	}
	if Total(map[int]int{7: 3}) != 4 {
		t.Error("total")
	}
}
`),
	})
	tr := runTrace(t, dir, "./p", "TestClone")
	// The last write of each map entry, by location.
	writes := map[trace.Loc]int{}
	var got []string
	for i := range tr.Events {
		e := &tr.Events[i]
		for _, w := range e.Writes {
			if w.Loc.Kind == trace.LocMap {
				writes[w.Loc] = i
			}
		}
		s := tr.Site(e.Site)
		if s.Kind != trace.SiteRange {
			continue
		}
		for _, rd := range e.Reads {
			if rd.Loc.Kind != trace.LocMap {
				continue
			}
			d, ok := writes[rd.Loc]
			from := "no write"
			if ok {
				from = tr.Site(tr.Events[d].Site).Pos.String()
			}
			got = append(got, s.Operands[rd.Slot].Text+"="+rd.Value.String()+" from "+from)
		}
	}
	want := []string{
		`src[k]="x" from p/p_test.go:7:2`,
		`Clone(h)[…]="x" from p/p.go:8:3`,
		`m[…]=3 from no write`,
	}
	if len(got) != len(want) {
		t.Fatalf("entry reads %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("entry read %d: %q, want %q", i, got[i], want[i])
		}
	}
}
