package instrument

import (
	"strings"
	"testing"

	"github.com/culprit-dev/culprit/analyzer/trace"
)

// TestMovesDefineCopies: elements that append copies into a new array,
// that append(s, t...) copies from t and that copy copies are defined by
// the writes of the elements they were copied from, through any number of
// copies; without the moves those reads would be inputs.
func TestMovesDefineCopies(t *testing.T) {
	dir := writeTree(t, map[string][]byte{
		"go.mod": []byte("module example.com/m\n\ngo 1.22\n"),
		"m/m.go": []byte(`package m

func Grow() int {
	s := make([]int, 0, 1)
	s = append(s, 7)
	s = append(s, 8)
	d := make([]int, 2)
	copy(d, s)
	t := append([]int(nil), d...)
	return t[0]*10 + t[1]
}
`),
		"m/m_test.go": []byte(`package m

import "testing"

func TestM(t *testing.T) {
	if got := Grow(); got != 78 {
		t.Fatalf("Grow() = %d", got)
	}
}
`),
	})
	tr := tracePassing(t, dir, "./m", "TestM")
	ret := -1
	moves := 0
	for i := range tr.Events {
		moves += len(tr.Events[i].Moves)
		if s := tr.SiteOf(i); s.Kind == trace.SiteReturn && strings.HasPrefix(s.Text, "return t[0]") {
			ret = i
		}
	}
	if ret < 0 {
		t.Fatal("no event of the return statement")
	}
	// append growing into a new array, copy, and append(nil, d...).
	if moves != 3 {
		t.Errorf("%d moves recorded, want 3", moves)
	}
	site := tr.SiteOf(ret)
	want := map[string]string{"t[0]": "s = append(s, 7)", "t[1]": "s = append(s, 8)"}
	for _, it := range tr.Events[ret].Reads {
		op := site.Operands[it.Slot]
		w, ok := want[op.Text]
		if !ok {
			continue
		}
		delete(want, op.Text)
		d, item := tr.DefWrite(ret, it.Slot)
		if d < 0 {
			t.Errorf("read of %s = %d has no definition", op.Text, it.Value.Int())
			continue
		}
		if got := tr.SiteOf(d).Text; !strings.Contains(got, strings.TrimPrefix(w, "s = ")) {
			t.Errorf("read of %s defined at %q, want the element written by %q", op.Text, got, w)
		}
		if item.Value != it.Value {
			t.Errorf("read of %s = %v defined by a write of %v", op.Text, it.Value, item.Value)
		}
		if tr.Def(ret, it.Slot) != d {
			t.Errorf("Def and DefWrite disagree on %s", op.Text)
		}
	}
	if len(want) > 0 {
		t.Errorf("reads not found in the return event: %v", want)
	}
}
