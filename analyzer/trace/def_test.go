package trace

import "testing"

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
