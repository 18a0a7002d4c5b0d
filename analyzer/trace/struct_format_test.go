package trace

import (
	"encoding/binary"
	"math"
	"testing"
)

// segment is the layout of
//
//	type Segment struct {
//		Start int16; Kind Kind; Open bool; Ratio float32
//		Next *Node; Name string
//	}
//
// 32 bytes: Start at 0, Kind (uint8, with constants) at 2, Open at 3,
// Ratio at 4, Next at 8, Name at 16.
var segment = &Layout{Size: 32, Fields: []Field{
	{Name: "Start", Offset: 0, Type: Type{Kind: TypeInt, Bits: 16}},
	{Name: "Kind", Offset: 2, Type: Type{Kind: TypeUint, Bits: 8, Consts: &Consts{Values: []uint64{1}, Names: []string{"p.KindGap"}}}},
	{Name: "Open", Offset: 3, Type: Type{Kind: TypeBool}},
	{Name: "Ratio", Offset: 4, Type: Type{Kind: TypeFloat, Bits: 32}},
	{Name: "Next", Offset: 8, Type: Type{Kind: TypePointer}},
	{Name: "Name", Offset: 16, Type: Type{Kind: TypeString}},
}}

// recordSegment is the payload the recorder writes for a Segment.
func recordSegment(start int16, kind uint8, open bool, ratio float32, next, name, nameLen uint64) []uint64 {
	var b [32]byte
	binary.LittleEndian.PutUint16(b[0:], uint16(start))
	b[2] = kind
	if open {
		b[3] = 1
	}
	binary.LittleEndian.PutUint32(b[4:], math.Float32bits(ratio))
	binary.LittleEndian.PutUint64(b[8:], next)
	binary.LittleEndian.PutUint64(b[16:], name)
	binary.LittleEndian.PutUint64(b[24:], nameLen)
	w := []uint64{32}
	for i := 0; i < 32; i += 8 {
		w = append(w, binary.LittleEndian.Uint64(b[i:]))
	}
	return w
}

func TestStructFormat(t *testing.T) {
	typ := Type{Kind: TypeStruct, Name: "example.com/m/p.Segment", Layout: segment}
	decode := func(w []uint64) Value {
		t.Helper()
		v, rest := decodeValue(valStruct, w)
		if len(rest) != 0 {
			t.Fatalf("decoding %v left %v", w, rest)
		}
		return v
	}
	v := decode(recordSegment(-3, 1, true, 0.5, 0xc000012345, 0xc000099999, 3)).masked(segment)
	if got, want := v.Format(typ, nil), "Segment{Start: -3, Kind: p.KindGap, Open: true, Ratio: 0.5, Next: non-nil, Name: len 3}"; got != want {
		t.Errorf("Format = %q, want %q", got, want)
	}
	// The same value at other addresses is the same value.
	if w := decode(recordSegment(-3, 1, true, 0.5, 0xc000054321, 0xc000011111, 3)).masked(segment); w != v {
		t.Errorf("the same Segment at other addresses decodes as %+v, was %+v", w, v)
	}
	zero := decode(recordSegment(0, 0, false, 0, 0, 0, 0)).masked(segment)
	if got, want := zero.Format(typ, nil), "Segment{Start: 0, Kind: 0, Open: false, Ratio: 0, Next: nil, Name: len 0}"; got != want {
		t.Errorf("Format = %q, want %q", got, want)
	}
	// An anonymous struct type has no name to show.
	if got, want := zero.Format(Type{Kind: TypeStruct, Name: "struct{Start int16}", Layout: segment}, nil), "{Start: 0, Kind: 0, Open: false, Ratio: 0, Next: nil, Name: len 0}"; got != want {
		t.Errorf("Format = %q, want %q", got, want)
	}

	// Without a layout, or with one of another size, a struct stays
	// opaque, as it was before its bytes were recorded.
	raw := decode(recordSegment(1, 0, false, 0, 0, 0, 0))
	other := &Layout{Size: 24, Fields: segment.Fields}
	for _, l := range []*Layout{nil, other} {
		if m := raw.masked(l); m != (Value{Kind: ValOpaque}) {
			t.Errorf("masked by %+v = %+v, want an opaque value", l, m)
		}
	}
	if got := raw.Format(Type{Kind: TypeStruct, Name: "p.Segment", Layout: other}, nil); got != "…" {
		t.Errorf("Format with a layout of another size = %q, want …", got)
	}
	if got := raw.Format(Type{Kind: TypeStruct, Name: "p.Segment"}, nil); got != "…" {
		t.Errorf("Format without a layout = %q, want …", got)
	}
	// A size over the most recorded is malformed.
	if v, _ := decodeValue(valStruct, []uint64{40, 1, 2, 3, 4, 5}); v != (Value{Kind: ValOpaque}) {
		t.Errorf("a 40-byte struct decodes as %+v", v)
	}
}

func TestDifferingFields(t *testing.T) {
	for _, tc := range []struct {
		name                     string
		failing, passing         string
		wantFailing, wantPassing string
	}{
		{"one field differs", "Segment{Start: 10, Stop: 9}", "Segment{Start: 8, Stop: 9}", "Segment{Start: 10}", "{Start: 8}"},
		{"nested", "Span{Seg: Segment{Start: 10, Stop: 9}, Weight: 1}", "Span{Seg: Segment{Start: 8, Stop: 9}, Weight: 1}",
			"Span{Seg: Segment{Start: 10, Stop: 9}}", "{Seg: Segment{Start: 8, Stop: 9}}"},
		{"equal", "Segment{Start: 8}", "Segment{Start: 8}", "Segment{Start: 8}", "Segment{Start: 8}"},
		{"other types", "A{X: 1}", "B{X: 2}", "A{X: 1}", "B{X: 2}"},
		{"not structs", "3", "4", "3", "4"},
		{"a string", `"a{b: c}"`, `"a{b: d}"`, `"a{b: c}"`, `"a{b: d}"`},
		{"one opaque", "Segment{Start: 8}", "…", "Segment{Start: 8}", "…"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, p := DifferingFields(tc.failing, tc.passing)
			if f != tc.wantFailing || p != tc.wantPassing {
				t.Errorf("DifferingFields(%q, %q) = %q, %q; want %q, %q", tc.failing, tc.passing, f, p, tc.wantFailing, tc.wantPassing)
			}
		})
	}
}

// TestBytesDecodeAndAlike: a []byte is decoded as a slice with its
// content's hash and first bytes, shown by them, and is one value for
// def-use with any []byte of the same header, whatever its content.
func TestBytesDecodeAndAlike(t *testing.T) {
	v, rest := decodeValue(valBytes, []uint64{0x1000, 3, 8, 77, 'a' | 'b'<<8 | 'c'<<16, 9})
	if len(rest) != 1 || v.Kind != ValSlice || v.Len != 3 || v.Cap != 8 || v.Hash != 77 || v.Prefix != "abc" {
		t.Fatalf("decoded %+v, rest %v", v, rest)
	}
	if got := v.Format(Type{}, nil); got != `[]byte("abc")` {
		t.Errorf("shown as %s", got)
	}
	other := v
	other.Hash, other.Prefix = 78, "abd"
	if !v.Alike(other) {
		t.Error("a []byte written through its array is another value for def-use")
	}
	other.Len = 4
	if v.Alike(other) {
		t.Error("[]byte values of different lengths are alike")
	}
}

// TestBoxedValues: an interface recorded with the small value it holds is
// shown by the fields the types file lays out, and two are alike when
// their types and the shown fields are, whatever their padding and
// pointers' addresses.
func TestBoxedValues(t *testing.T) {
	const layout = "24;X,0,f64;Open,8,b8;Next,16,p"
	step := func(x float64, open bool, pad byte, next uint64) Value {
		b := make([]byte, 24)
		binary.LittleEndian.PutUint64(b, math.Float64bits(x))
		if open {
			b[8] = 1
		}
		b[9] = pad // padding: not part of the value
		binary.LittleEndian.PutUint64(b[16:], next)
		v := Value{Kind: ValIface, Bits: 1, Hash: 2, Len: 24, Cap: structMark, Prefix: boxedMark + string(b)}
		v.unbox("p.Step", layout)
		return v
	}
	if got := step(1.5, true, 0, 0xc000).Format(Type{Name: "any"}, nil); got != "Step{X: 1.5, Open: true, Next: non-nil}" {
		t.Errorf("Format = %q", got)
	}
	plain := Value{Kind: ValIface, Bits: 1, Hash: 2}
	plain.unbox("p.Step", "")
	for _, tc := range []struct {
		a, b      Value
		eq, known bool
	}{
		{step(1.5, true, 0, 0xc000), step(1.5, true, 7, 0xd000), true, true},
		{step(1.5, true, 0, 0xc000), step(2, true, 0, 0xc000), false, true},
		{step(1.5, true, 0, 0xc000), step(1.5, true, 0, 0), false, true},
		{step(1.5, true, 0, 0), plain, false, false},
	} {
		if eq, known := SameBoxed(tc.a, tc.b); eq != tc.eq || known != tc.known {
			t.Errorf("SameBoxed = %v, %v; want %v, %v", eq, known, tc.eq, tc.known)
		}
	}
	// A layout that does not fit the bytes leaves the name alone.
	bad := Value{Kind: ValIface, Bits: 1, Hash: 2, Len: 24, Cap: structMark, Prefix: boxedMark + string(make([]byte, 24))}
	bad.unbox("p.Step", "16;X,0,f64")
	if got := bad.Format(Type{}, nil); got != "non-nil p.Step" {
		t.Errorf("a value whose layout does not fit shows %q, want non-nil p.Step", got)
	}
	for _, l := range []string{"", "40;X,0,f64", "8;X,0", "8;X,z,i64", "8;X,0,q8"} {
		if parseLayout(l) != nil {
			t.Errorf("parseLayout(%q) is not nil", l)
		}
	}
}

// TestSameStruct: two structs compare by what a reader is shown of them.
// Shown bytes that differ make them known to differ; the same bytes make
// them alike only when the layout shows all of the value (no pointer,
// whose target may differ, and no string, of which only the length is
// shown).
func TestSameStruct(t *testing.T) {
	decode := func(w []uint64, l *Layout) Value {
		t.Helper()
		v, _ := decodeValue(valStruct, w)
		return v.masked(l)
	}
	a := decode(recordSegment(-3, 1, true, 0.5, 0xc000012345, 0xc000099999, 3), segment)
	b := decode(recordSegment(-3, 1, true, 0.5, 0xc000054321, 0xc000011111, 3), segment)
	c := decode(recordSegment(-3, 1, true, 0.75, 0xc000054321, 0xc000011111, 3), segment)
	if eq, known := SameStruct(a, b); eq || known {
		t.Errorf("segments alike in what is shown, with a pointer and a string: SameStruct = %v, %v; want unknown", eq, known)
	}
	if eq, known := SameStruct(a, c); eq || !known {
		t.Errorf("segments of other ratios: SameStruct = %v, %v; want known to differ", eq, known)
	}
	// The first 8 bytes alone (Start, Kind, Open, Ratio) are all shown.
	numbers := &Layout{Size: 8, Fields: segment.Fields[:4]}
	head := func(w []uint64) []uint64 { return []uint64{8, w[1]} }
	x := decode(head(recordSegment(-3, 1, true, 0.5, 0, 0, 0)), numbers)
	y := decode(head(recordSegment(-3, 1, true, 0.5, 1, 1, 1)), numbers)
	z := decode(head(recordSegment(-3, 2, true, 0.5, 0, 0, 0)), numbers)
	if eq, known := SameStruct(x, y); !eq || !known {
		t.Errorf("equal structs of numbers: SameStruct = %v, %v; want alike", eq, known)
	}
	if eq, known := SameStruct(x, z); eq || !known {
		t.Errorf("structs of numbers of other kinds: SameStruct = %v, %v; want known to differ", eq, known)
	}
	if eq, known := SameStruct(x, Value{Kind: ValOpaque}); eq || known {
		t.Errorf("a struct against an unrecorded value: SameStruct = %v, %v; want unknown", eq, known)
	}
	// A struct decoded but not masked holds its pointers' addresses:
	// bytes that differ prove nothing.
	raw := func(next uint64) Value {
		v, _ := decodeValue(valStruct, recordSegment(-3, 1, true, 0.5, next, 0xc000011111, 3))
		return v
	}
	if eq, known := SameStruct(raw(0xc000012345), raw(0xc000054321)); eq || known {
		t.Errorf("unmasked segments at other addresses: SameStruct = %v, %v; want unknown", eq, known)
	}
	// Nested: a struct field whose own fields are all numbers is shown
	// whole; the segment, with a pointer and a string, is not.
	nested := &Layout{Size: 8, Fields: []Field{{Name: "In", Offset: 0, Type: Type{Kind: TypeStruct, Layout: numbers}}}}
	if v := decode(head(recordSegment(-3, 1, true, 0.5, 0, 0, 0)), nested); v.Bits != shownAll || a.Bits != shownPart {
		t.Errorf("masked: nested numbers Bits %d, segment Bits %d; want %d, %d", v.Bits, a.Bits, shownAll, shownPart)
	}
}
