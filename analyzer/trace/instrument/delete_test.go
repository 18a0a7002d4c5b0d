package instrument

import (
	"testing"

	"github.com/culprit-dev/culprit/analyzer/trace"
)

// TestDeleteWritesTheEntry: delete(m, k) is an assignment that writes the
// entry m[k] it removes (the element's zero value, which a later read of
// m[k] gets), at the same map location as m[k] = v; and a range over a map
// reads the map before its first iteration, as a range over a slice does.
// The entries a map holds decide what len(m) and range m give, so these
// are the definitions a comparison of two runs follows back to a delete.
func TestDeleteWritesTheEntry(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a traced test binary")
	}
	dir := writeTree(t, moduleP(`package p

type fields map[string]int

func Drop(m fields, parts []string) int {
	for _, p := range parts {
		m[p] = 9
		delete(m, p)
	}
	n := 0
	for range m {
		n++
	}
	return n
}
`, `package p

import "testing"

func TestDrop(t *testing.T) {
	if Drop(fields{"a": 1, "b": 2}, []string{"a"}) != 1 {
		t.Fatal("drop")
	}
}
`))
	tr := tracePassing(t, dir, "./p", "TestDrop")
	var set, del, header *trace.Event
	for i := range tr.Events {
		e := &tr.Events[i]
		switch s := tr.Site(e.Site); {
		case s.Text == "m[p] = 9":
			set = e
		case s.Text == "delete(m, p)":
			del = e
		case s.Text == "for range m {" && e.Kind == trace.EvAssign:
			header = e
		}
	}
	if set == nil || del == nil || header == nil {
		t.Fatalf("events: m[p] = 9 %v, delete %v, range header %v; want all three", set != nil, del != nil, header != nil)
	}
	if del.Kind != trace.EvAssign || len(del.Writes) != 1 || del.Writes[0].Loc.Kind != trace.LocMap {
		t.Fatalf("delete event %+v: want an assignment writing one map entry", del)
	}
	w, sw := del.Writes[0], set.Writes[0]
	if w.Loc.Addr != sw.Loc.Addr || w.Loc.Key != sw.Loc.Key {
		t.Errorf("delete writes %+v, m[p] = 9 wrote %+v: want the same entry", w.Loc, sw.Loc)
	}
	if w.Value.Kind != trace.ValInt || w.Value.Bits != 0 {
		t.Errorf("delete writes %+v, want the zero int", w.Value)
	}
	s := tr.Site(del.Site)
	if o := s.Operands[w.Slot]; o.Text != "m[p]" || !o.Write {
		t.Errorf("the written operand is %+v, want m[p]", o)
	}
	if len(header.Reads) != 1 || header.Reads[0].Value.Kind != trace.ValPointer || header.Reads[0].Value.Bits != w.Loc.Addr {
		t.Errorf("the range header reads %+v, want the map at %#x", header.Reads, w.Loc.Addr)
	}
}
