package instrument

import (
	"testing"

	"github.com/culprit-dev/culprit/analyzer/trace"
)

const structModule = `package p

// Kind has named constants: a field of it is shown by name.
type Kind uint8

const (
	KindNone Kind = iota
	KindGap
)

type Node struct{ V int }

// Segment is 24 bytes, with padding between Open and Next.
type Segment struct {
	Start, Stop int32
	Padding     int16
	Kind        Kind
	Open        bool
	Next        *Node
}

// Labeled is 24 bytes: a string field is shown by its length, a blank
// field not at all.
type Labeled struct {
	Name  string
	Ratio float32
	_     int16
	Count uint16
}

// Span is 32 bytes, the most recorded, and holds a Segment.
type Span struct {
	Seg    Segment
	Weight float64
}

// Big is 40 bytes: too large to be recorded.
type Big struct{ A, B, C, D, E int64 }

// Point is an array of 16 bytes, shown by its elements; Row holds one.
type Point [2]float64

type Row struct {
	At   Point
	Mark Kind
}

type Pair[T any] struct{ A, B T }

// Swap's Pair[T] has a layout that depends on T.
func Swap[T any](p Pair[T]) Pair[T] {
	q := Pair[T]{p.B, p.A}
	return q
}

// Shift moves a segment's start, in a named result.
func Shift(s Segment, by int32) (out Segment) {
	out = s
	out.Start += by
	return
}

// Link is a segment pointing at a node, in a named result.
func Link(n *Node) (out Segment) {
	out = Segment{Start: 1, Next: n}
	return
}

// Grow moves a segment's end.
func Grow(s Segment, by int32) Segment {
	grown := s
	grown.Stop += by
	return grown
}
`

const structTest = `package p

import "testing"

func TestX(t *testing.T) {
	seg := Segment{Start: 8, Stop: 9, Padding: 2, Kind: KindGap, Open: true}
	linked := Segment{Start: -1, Next: &Node{V: 1}}
	var zero Segment
	z := zero
	lab := Labeled{Name: "abc", Ratio: 0.5, Count: 7}
	span := Span{Seg: seg, Weight: 1.5}
	big := Big{A: 1}
	pair := Swap(Pair[int]{A: 1, B: 2})
	anon := struct{ X, Y int }{3, 4}
	pt := Point{6, 5.5}
	row := Row{At: pt, Mark: KindGap}
	wide := [5]int64{1}
	var void [1 << 20]struct{} // elements of no size: none listed
	grown := Grow(seg, 3)
	shifted, linked2 := Shift(seg, 1), Link(&Node{})
	byKey := map[Segment]int{}
	byKey[seg] = 1
	if z.Open || lab.Count != 7 || span.Weight != 1.5 || big.A != 1 || pair.A != 2 || anon.X != 3 ||
		linked.Next == nil || grown.Stop != 12 || len(byKey) != 1 || shifted.Start != 9 || linked2.Next == nil ||
		pt[0] != 6 || row.Mark != KindGap || wide[0] != 1 || len(void) == 0 {
		t.Fatal("values")
	}
}

// TestAllocs: recording small structs allocates nothing.
func TestAllocs(t *testing.T) {
	seg := Segment{Start: 8, Next: &Node{}}
	var sink Segment
	var lsink Labeled
	if n := testing.AllocsPerRun(100, func() {
		sink = seg
		lsink = Labeled{Name: "x", Count: 1}
	}); n != 0 {
		t.Errorf("%v allocations per run", n)
	}
	_, _ = sink, lsink
}
`

// TestStructValues traces a program that writes small structs and checks
// how their values are shown: by type and fields, numbers as Format writes
// them, a field of a type with named constants by name, a pointer field
// by nil-ness, a string field by length, a nested struct by its fields, a
// small array by its elements; a struct or array over 32 bytes, and one
// whose layout depends on a type parameter, as "…". Trace.Def answers as
// while structs were opaque. Recording them allocates nothing.
func TestStructValues(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a traced test binary")
	}
	dir := writeTree(t, moduleP(structModule, structTest))
	tr := tracePassing(t, dir, "./p", "TestX")
	shown := written(tr, "example.com/m/p.TestX")
	wantShown(t, shown, map[string]string{
		"seg":        "Segment{Start: 8, Stop: 9, Padding: 2, Kind: p.KindGap, Open: true, Next: nil}",
		"linked":     "Segment{Start: -1, Stop: 0, Padding: 0, Kind: p.KindNone, Open: false, Next: non-nil}",
		"z":          "Segment{Start: 0, Stop: 0, Padding: 0, Kind: p.KindNone, Open: false, Next: nil}",
		"lab":        "Labeled{Name: len 3, Ratio: 0.5, Count: 7}",
		"span":       "Span{Seg: Segment{Start: 8, Stop: 9, Padding: 2, Kind: p.KindGap, Open: true, Next: nil}, Weight: 1.5}",
		"big":        "…",
		"pair":       "Pair[int]{A: 2, B: 1}",
		"anon":       "{X: 3, Y: 4}",
		"pt":         "Point{6, 5.5}",
		"row":        "Row{At: Point{6, 5.5}, Mark: p.KindGap}",
		"wide":       "…",
		"void":       "[1048576]struct{}{}",
		"grown":      "Segment{Start: 8, Stop: 12, Padding: 2, Kind: p.KindGap, Open: true, Next: nil}",
		"byKey[seg]": "1",
	})
	if q := written(tr, "example.com/m/p.Swap")["q"]; q != "…" {
		t.Errorf("Swap's q shown as %q, want …: its layout depends on T", q)
	}

	// Grow writes a field of grown between its definition and its read:
	// each shows what it wrote, and the read is still defined by
	// grown := s, as while structs were opaque (Value.Alike).
	if g := written(tr, "example.com/m/p.Grow"); g["grown"] != "Segment{Start: 8, Stop: 9, Padding: 2, Kind: p.KindGap, Open: true, Next: nil}" || g["grown.Stop"] != "12" {
		t.Errorf("Grow's writes shown as %v, want grown as s was and grown.Stop 12", g)
	}
	def, read := -1, -1
	for i, e := range tr.Events {
		s := tr.Site(e.Site)
		if s.Func != "example.com/m/p.Grow" {
			continue
		}
		for _, w := range e.Writes {
			if s.Operands[w.Slot].Text == "grown" {
				def = i
			}
		}
		for _, r := range e.Reads {
			if s.Operands[r.Slot].Text == "grown" && e.Kind == trace.EvReturn {
				read = i
				if d := tr.Def(i, r.Slot); d != def || def < 0 {
					t.Errorf("return grown is defined by event %d, want grown := s (%d)", d, def)
				}
			}
		}
	}
	if read < 0 {
		t.Error("no traced read of grown at return grown")
	}

	// A bare return hands back its named result, shown by its fields as
	// its last write of the whole result is: Link's agrees with
	// out = Segment{...} (the pointer is no part of it); Shift's has the
	// field written since (out.Start), and that write shows what out was.
	for fn, want := range map[string][2]string{
		"example.com/m/p.Link": {"Segment{Start: 1, Stop: 0, Padding: 0, Kind: p.KindNone, Open: false, Next: non-nil}",
			"Segment{Start: 1, Stop: 0, Padding: 0, Kind: p.KindNone, Open: false, Next: non-nil}"},
		"example.com/m/p.Shift": {"Segment{Start: 9, Stop: 9, Padding: 2, Kind: p.KindGap, Open: true, Next: nil}",
			"Segment{Start: 8, Stop: 9, Padding: 2, Kind: p.KindGap, Open: true, Next: nil}"},
	} {
		var ret, def trace.Value
		var typ trace.Type
		for _, e := range tr.Events {
			s := tr.Site(e.Site)
			if s.Func != fn {
				continue
			}
			for _, w := range e.Writes {
				if s.Operands[w.Slot].Text == "out" && e.Kind != trace.EvEntry {
					def, typ = w.Value, s.Operands[w.Slot].Type
				}
			}
			if e.Kind == trace.EvReturn && len(e.Values) == 1 {
				ret = e.Values[0]
			}
		}
		if got, gotDef := ret.Format(typ, nil), def.Format(typ, nil); got != want[0] || gotDef != want[1] || !ret.Alike(def) {
			t.Errorf("%s's bare return hands back %q, its last write of out %q; want %q and %q, alike for def-use",
				fn, got, gotDef, want[0], want[1])
		}
	}

	if tr := runTrace(t, dir, "./p", "TestAllocs"); !tr.Result.Passed {
		t.Errorf("TestAllocs failed under tracing:\n%s", tr.Result.Output)
	} else if w := written(tr, "example.com/m/p.TestAllocs.func"); w["sink"] == "" || w["lsink"] == "" {
		t.Errorf("TestAllocs's closure recorded the writes %v, want sink and lsink", w)
	}
}
