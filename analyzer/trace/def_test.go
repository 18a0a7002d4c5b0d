package trace

import (
	"slices"
	"testing"
)

// TestDefOfField checks that a field's definition is the latest write of
// the field itself, unless the whole variable was written after it.
func TestDefOfField(t *testing.T) {
	x := Loc{Kind: LocLocal, Frame: 1, Obj: 1}
	xa := x
	xa.Path = ".A"
	one := Value{Kind: ValInt, Bits: 1}
	item := func(loc Loc) []Item { return []Item{{Slot: 0, Value: one, Loc: loc}} }
	events := []Event{
		{Kind: EvAssign, Frame: 1, Writes: item(x)},  // x = T{A: 1}: the whole ...
		{Kind: EvAssign, Frame: 1, Writes: item(xa)}, // ... and its field
		{Kind: EvBranch, Frame: 1, Reads: item(xa)},  // x.A == 1
		{Kind: EvAssign, Frame: 1, Writes: item(x)},  // x = f(): the whole only
		{Kind: EvBranch, Frame: 1, Reads: item(xa)},  // x.A == 1
	}
	for i := range events {
		events[i].Index = i
	}
	tr := &Trace{Events: events}
	if d := tr.Def(2, 0); d != 1 {
		t.Errorf("def of x.A after the literal = %d, want 1", d)
	}
	if d := tr.Def(4, 0); d != -1 {
		t.Errorf("def of x.A after a whole write = %d, want -1 (an input)", d)
	}
	for in, want := range map[string]string{".A": "", ".A.B": ".A", ".A[2]": ".A", "[1].C": "[1]"} {
		if got := parentPath(in); got != want {
			t.Errorf("parentPath(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestEnclosingDef: a part that Def leaves undefined is defined by the
// latest write of a whole holding it, a variable written after its field
// or a struct written in memory around the address read, unless the part
// itself was written after that whole.
func TestEnclosingDef(t *testing.T) {
	x := Loc{Kind: LocLocal, Frame: 1, Obj: 1}
	xa := x
	xa.Path = ".A"
	at := func(addr uint64) Loc { return Loc{Kind: LocAddr, Addr: addr} }
	one := Value{Kind: ValInt, Bits: 1}
	seg := Value{Kind: ValOpaque, Len: 24, Cap: structMark, Prefix: string(make([]byte, 24))}
	item := func(loc Loc, v Value) []Item { return []Item{{Slot: 0, Value: v, Loc: loc}} }
	events := []Event{
		{Kind: EvAssign, Frame: 1, Writes: item(xa, one)},         // x.A = 1
		{Kind: EvAssign, Frame: 1, Writes: item(x, seg)},          // x = f(): the whole
		{Kind: EvBranch, Frame: 1, Reads: item(xa, one)},          // x.A == 1
		{Kind: EvEntry, Frame: 2, Writes: item(at(0x1000), seg)},  // func g(s Seg): s at 0x1000
		{Kind: EvBranch, Frame: 3, Reads: item(at(0x1010), one)},  // p.Pad == 1, p = &s
		{Kind: EvBranch, Frame: 3, Reads: item(at(0x1018), one)},  // past s's end
		{Kind: EvAssign, Frame: 3, Writes: item(at(0x1010), one)}, // p.Pad = 1, an untraced write after
		{Kind: EvBranch, Frame: 3, Reads: item(at(0x1010), Value{Kind: ValInt, Bits: 2})},
	}
	for i := range events {
		events[i].Index = i
	}
	tr := &Trace{Events: events}
	for _, c := range []struct{ ev, want int }{{2, 1}, {4, 3}, {5, -1}, {7, -1}} {
		if d := tr.Def(c.ev, 0); d != -1 {
			t.Errorf("Def of event %d's read = %d, want -1", c.ev, d)
		}
		if d := tr.EnclosingDef(c.ev, 0); d != c.want {
			t.Errorf("EnclosingDef of event %d's read = %d, want %d", c.ev, d, c.want)
		}
	}
}

// TestExtCallsIn: the untraced calls within a statement are found by
// position, in the order they start (sites starting together by ID), and
// none outside it or in another file.
func TestExtCallsIn(t *testing.T) {
	at := func(file string, l, c, el, ec int) Pos {
		return Pos{File: file, Line: l, Col: c, EndLine: el, EndCol: ec}
	}
	stmt := at("p.go", 5, 2, 5, 40)
	tr := &Trace{Sites: []Site{
		{ID: 0, Kind: SiteStmt, Pos: stmt},
		{ID: 1, Kind: SiteCallExt, Pos: at("p.go", 5, 20, 5, 30)}, // an argument's call
		{ID: 2, Kind: SiteCallExt, Pos: at("p.go", 5, 2, 5, 40)},  // the statement's call
		{ID: 3, Kind: SiteCallExt, Pos: at("p.go", 5, 2, 5, 12)},  // a.b() of a.b().c(): starts with it
		{ID: 4, Kind: SiteCallExt, Pos: at("p.go", 6, 2, 6, 9)},   // the next statement
		{ID: 5, Kind: SiteCallExt, Pos: at("q.go", 5, 20, 5, 30)}, // another file
		{ID: 6, Kind: SiteCall, Pos: at("p.go", 5, 22, 5, 28)},    // a traced call
	}}
	got := tr.ExtCallsIn(stmt)
	if want := []SiteID{2, 3, 1}; !slices.Equal(got, want) {
		t.Errorf("ExtCallsIn = %v, want %v", got, want)
	}
	if !stmt.Encloses(stmt) || stmt.Encloses(at("p.go", 5, 2, 5, 41)) || stmt.Encloses(at("q.go", 5, 3, 5, 4)) {
		t.Error("Encloses: a range holds itself, not one that ends later nor one in another file")
	}
}
