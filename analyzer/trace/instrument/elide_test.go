package instrument

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestElidedReads: the reads of a local that only its own frame writes,
// with every write recorded, are not recorded but rebuilt by the decoder
// with the values the program read; the reads of locals that something
// else may write (through a pointer, from a closure, by a return
// statement, by a type switch) or that may not run (right of &&) are
// recorded as before.
func TestElidedReads(t *testing.T) {
	dir := writeTree(t, map[string][]byte{
		"go.mod": []byte("module example.com/e\n\ngo 1.22\n"),
		"e/e.go": []byte(`package e

func Sum(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		s += i*2 + 1
	}
	return s
}

func Ptr(n int) int {
	p := n
	bump(&p)
	return p
}

func bump(q *int) { *q += 10 }

func Captured(n int) int {
	c := n
	inc := func() { c++ }
	inc()
	return c
}

func Named(n int) (r int) {
	r = n
	defer func() { r++ }()
	return r * 2
}

func Lazy(a, b int) bool {
	return a > 0 && b > 0
}

func Kind(x any) int {
	switch v := x.(type) {
	case int:
		return v + 1
	}
	return 0
}

func Swap(a, b int) (int, int) {
	a, b = b, a
	return a, b
}
`),
		"e/e_test.go": []byte(`package e

import "testing"

func TestE(t *testing.T) {
	x, y := Swap(1, 2)
	got := []int{Sum(3), Ptr(1), Captured(5), Named(4), Kind(6), x, y}
	want := []int{9, 11, 6, 9, 7, 2, 1}
	for k := range want {
		if got[k] != want[k] {
			t.Fatalf("%d: got %d, want %d", k, got[k], want[k])
		}
	}
	if !Lazy(1, 2) || Lazy(-1, 2) {
		t.Fatal("Lazy")
	}
}
`),
	})
	tr := tracePassing(t, dir, "./e", "TestE")
	// elided lists, by function, the read operands left unrecorded.
	elided := map[string][]string{}
	recorded := map[string][]string{}
	for _, s := range tr.Sites[1:] {
		fn := s.Func[strings.LastIndex(s.Func, ".")+1:]
		for _, op := range s.Operands {
			if op.Write {
				continue
			}
			if op.Elided {
				elided[fn] = append(elided[fn], op.Text)
			} else {
				recorded[fn] = append(recorded[fn], op.Text)
			}
		}
	}
	want := map[string]string{
		"Sum":  "i n i s i s", // the loop condition, the update, the op-assign's target and value, the return
		"Swap": "b a a b",
	}
	for fn, w := range want {
		if got := strings.Join(elided[fn], " "); got != w {
			t.Errorf("%s: elided reads %q, want %q", fn, got, w)
		}
	}
	// The parameter n is elided everywhere; p, c, r and v never are.
	for fn, v := range map[string]string{"Ptr": "p", "Captured": "c", "Named": "r", "Kind": "v"} {
		if got := strings.Join(elided[fn], " "); got != "n" && got != "" {
			t.Errorf("%s: elided reads %q, want none of %s, which something other than the frame's recorded writes may change", fn, got, v)
		}
		if !slices.Contains(recorded[fn], v) {
			t.Errorf("%s: %s is not among the recorded reads %v", fn, v, recorded[fn])
		}
	}
	// a > 0 runs always, b > 0 only when a > 0.
	if got := strings.Join(elided["Lazy"], " "); got != "a" {
		t.Errorf("Lazy: elided reads %q, want only the left operand's \"a\"", got)
	}

	// The rebuilt reads carry the values read: Sum(3) reads i = 0, 1, 2, 3
	// in its condition and s = 0, 1, 4, 9 as its op-assign's target and
	// result; Swap's reads see the values before the assignment.
	var conds, targets, swaps []string
	for i := range tr.Events {
		e := &tr.Events[i]
		s := tr.SiteOf(i)
		for _, r := range e.Reads {
			op := s.Operands[r.Slot]
			v := fmt.Sprint(r.Value.Int())
			switch {
			case s.Text == "i < n" && op.Text == "i":
				conds = append(conds, v)
			case s.Text == "s += i*2 + 1" && op.Text == "s" && r.Slot == 0:
				targets = append(targets, v)
			case s.Text == "a, b = b, a":
				swaps = append(swaps, op.Text+"="+v)
			}
			if op.Elided && r.Loc.Frame != e.Frame || r.Loc.Obj != op.Obj {
				t.Errorf("%s: read of %s has location %+v, want frame %d object %d", s.Text, op.Text, r.Loc, e.Frame, op.Obj)
			}
		}
	}
	for name, c := range map[string][2]string{
		"i in i < n":  {strings.Join(conds, " "), "0 1 2 3"},
		"s in s += …": {strings.Join(targets, " "), "0 1 4"},
		"a, b = b, a": {strings.Join(swaps, " "), "b=2 a=1"},
	} {
		if c[0] != c[1] {
			t.Errorf("reads of %s: %q, want %q", name, c[0], c[1])
		}
	}
}
