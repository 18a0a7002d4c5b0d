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
