package trace

import (
	"encoding/binary"
	"math"
	"slices"
	"strconv"
	"strings"
)

// decodeItem decodes the value of an item with the given tag whose payload
// starts at w, and returns the payload words after the value.
func decodeItem(tag uint64, w []uint64) (Value, []uint64) {
	k := ValueKind(tag & 0xf)
	if k == ValIface && tag&tagHashed != 0 {
		// The bytes of the small value the interface holds follow its
		// words, as a struct's (Value.unbox completes it).
		if len(w) < 3 || len(w) < 2+structWords(w[2:]) {
			return Value{}, nil
		}
		n := 2 + structWords(w[2:])
		sv := structValue(w[2:n])
		v := Value{Kind: ValIface, Bits: w[0], Hash: w[1], Nil: w[0] == 0}
		if sv.isStruct() {
			v.Len, v.Cap, v.Prefix = sv.Len, structMark, boxedMark+sv.Prefix
		}
		return v, w[n:]
	}
	if k == ValSlice && tag&tagHashed != 0 {
		if len(w) < 4 {
			return Value{}, nil
		}
		v, _ := decodeValue(k, w[:3])
		v.Hash, w = w[3], w[4:]
		if tag&tagElems != 0 {
			n := 0
			if len(w) > 0 {
				n = int(w[0] >> 60)
			}
			if len(w) < 1+n {
				return Value{}, nil
			}
			v.Prefix, w = elemsMark+elemsText(w[0], w[1:1+n]), w[1+n:]
		}
		return v, w
	}
	if tag&tagInline == 0 {
		return decodeValue(k, w)
	}
	x := tag >> 32
	v := Value{Kind: k, Bits: x}
	switch k {
	case ValInt:
		v.Bits = uint64(int64(int32(x)))
	case ValFloat:
		v.Bits = x << 32
	case ValPointer:
		v.Nil = x == 0
	}
	return v, w
}

func decodeValue(k ValueKind, w []uint64) (Value, []uint64) {
	need := 0
	switch k {
	case ValBool, ValInt, ValUint, ValFloat, ValPointer:
		need = 1
	case ValComplex, ValIface:
		need = 2
	case ValString, ValSlice:
		need = 3
	case valBytes:
		need = 5
	case ValTime:
		need = 4
	case valError:
		need = 5
	case valReflect:
		need = reflectWords(w)
	case valStruct:
		need = structWords(w)
	}
	if len(w) < need {
		return Value{}, nil
	}
	v := Value{Kind: k}
	switch k {
	case ValTime:
		v.Bits, v.Len, v.Cap, v.Hash = w[0], int64(w[1]), int64(w[2]), wordsHash(w[:need])
		v.Prefix = prefixOf(w[3], min(8, int(w[2]>>32&0xff)))
	case valReflect:
		v = reflectValue(w[:need])
	case valStruct:
		v = structValue(w[:need])
	case ValBool, ValInt, ValUint, ValFloat:
		v.Bits = w[0]
	case ValPointer:
		v.Bits, v.Nil = w[0], w[0] == 0
	case ValComplex:
		v.Bits, v.Hash = w[0], w[1]
	case ValIface:
		v.Bits, v.Hash, v.Nil = w[0], w[1], w[0] == 0
	case valError:
		// The message is recorded as a string is.
		msg, _ := decodeValue(ValString, w[2:5])
		v.Kind, v.Bits, v.Hash, v.Nil = ValIface, w[0], w[1], w[0] == 0
		v.Len, v.Cap, v.Prefix = msg.Len, int64(msg.Hash), "\x00"+msg.Prefix
	case ValString:
		v.Len, v.Hash = int64(w[0]), w[1]
		v.Prefix = prefixOf(w[2], int(min(8, v.Len)))
	case ValSlice:
		v.Bits, v.Len, v.Cap, v.Nil = w[0], int64(w[1]), int64(w[2]), w[0] == 0
	case valBytes:
		v.Kind, v.Bits, v.Len, v.Cap, v.Nil = ValSlice, w[0], int64(w[1]), int64(w[2]), w[0] == 0
		v.Hash, v.Prefix = w[3], prefixOf(w[4], int(min(8, v.Len)))
	}
	return v, w[need:]
}

// The zone word of a ValTime (its Cap), as package instrument/rt records
// it: the offset east of UTC in seconds in the low 32 bits, the zone
// name's length in bits 32-39, and zoneLocal for a time in time.Local
// before the program loaded it (no zone recorded).
const zoneLocal = 1 << 40

// The header of a recorded reflect.Value, as package instrument/rt writes
// it: the reflect.Kind in bits 0-7, the flags below, the length of the
// type's name (package qualifiers dropped) in bits 16-23 and the number
// of words of it recorded in bits 24-27, which the value's words follow.
// The decoded value's Cap is the header with reflectMark added.
const (
	rvNil       = 1 << 8  // nil pointer, map, chan, func, interface or slice
	rvBits      = 1 << 9  // one word: the bool, integer or float64 bits held
	rvLen       = 1 << 10 // one word: the slice's or array's length
	rvString    = 1 << 11 // three words: the string's length, hash and first bytes
	rvAddr      = 1 << 12 // addressable: what it holds was not recorded
	reflectMark = 1 << 32 // a ValOpaque that describes a reflect.Value
)

// reflectWords is the number of payload words of the reflect.Value whose
// header is w[0].
func reflectWords(w []uint64) int {
	if len(w) == 0 {
		return 1
	}
	h := w[0]
	n := 1 + int(h>>24&0xf)
	if h&(rvBits|rvLen) != 0 {
		n++
	}
	if h&rvString != 0 {
		n += 3
	}
	return n
}

// reflectValue decodes the payload w of a reflect.Value into a ValOpaque
// that describes it: Cap its header, Prefix its type's name, then, for a
// string, a NUL and the string's first bytes; Bits the bool or number it
// holds, Len the string's, slice's or array's length; Nil; Hash of it
// all. It stays opaque to the analyses: a Value can refer to memory the
// program writes through it, and holds more than its description.
func reflectValue(w []uint64) Value {
	h := w[0]
	v := Value{Kind: ValOpaque, Cap: int64(h | reflectMark), Nil: h&rvNil != 0, Hash: wordsHash(w)}
	names := int(h >> 24 & 0xf)
	var name []byte
	for _, x := range w[1 : 1+names] {
		name = binary.LittleEndian.AppendUint64(name, x)
	}
	v.Prefix = string(name[:min(len(name), int(h>>16&0xff))])
	rest := w[1+names:]
	switch {
	case h&rvString != 0:
		v.Len = int64(rest[0])
		v.Prefix += "\x00" + prefixOf(rest[2], min(8, int(v.Len)))
	case h&rvLen != 0:
		v.Len = int64(rest[0])
	case h&rvBits != 0:
		v.Bits = rest[0]
	}
	return v
}

// valStruct is a struct recorded by its bytes, as package instrument/rt
// writes it: its size, then its bytes in words, the last one zero-filled.
// It is decoded as a ValOpaque whose Cap is structMark.
const (
	valBytes   ValueKind = 14 // a []byte: a ValSlice with Hash and Prefix as a string's
	valStruct  ValueKind = 13
	valError   ValueKind = 15 // an error with its message: a ValIface with Len, Cap and Prefix as a string's
	structMark           = 1 << 33
)

// structWords is the number of payload words of the struct whose size is
// w[0].
func structWords(w []uint64) int {
	if len(w) == 0 || w[0] > MaxStructSize {
		return 1
	}
	return 1 + int(w[0]+7)/8
}

// structValue decodes the payload w of a struct recorded by its bytes: Len
// its size, Prefix its bytes. A malformed size leaves it opaque.
func structValue(w []uint64) Value {
	if w[0] > MaxStructSize {
		return Value{Kind: ValOpaque}
	}
	var b []byte
	for _, x := range w[1:] {
		b = binary.LittleEndian.AppendUint64(b, x)
	}
	return Value{Kind: ValOpaque, Cap: structMark, Len: int64(w[0]), Prefix: string(b[:w[0]])}
}

// isStruct reports whether v is a struct recorded by its bytes.
func (v Value) isStruct() bool { return v.Kind == ValOpaque && v.Cap == structMark }

// Alike reports whether v and w are one value for def-use: equal, or both
// structs. A struct's fields are recorded to be shown; the analyses do not
// compare them yet (a read after a field write, or after a write by code
// the tracer does not enter, is defined by the struct's last write, as
// when no struct was recorded by its fields). Two []byte values are one
// when their headers are: the bytes may have changed through the array
// in between, which does not make the variable's value another one.
func (v Value) Alike(w Value) bool {
	if v.Kind == ValSlice && w.Kind == ValSlice {
		v.Hash, v.Prefix, w.Hash, w.Prefix = 0, "", 0, ""
	}
	return v == w || v.Kind == ValOpaque && w.Kind == ValOpaque && (v.isStruct() || v == Value{Kind: ValOpaque}) && (w.isStruct() || w == Value{Kind: ValOpaque})
}

// masked is the struct v as a location of a type laid out as l holds it:
// what a reader is shown of its fields (a bool's or number's bytes, a
// string's or slice's length, whether a pointer-like field or a slice is
// nil, as a word 1 or 0), the other bytes zero. Padding is whatever the
// memory held before the compiler stored the fields, and a pointer is an
// address no report shows: neither is part of the value. Without a
// layout of v's size v is opaque, as an unknown struct always was. Values
// other than such structs are returned as they are.
func (v Value) masked(l *Layout) Value {
	if !v.isStruct() {
		return v
	}
	if l == nil || int64(l.Size) != v.Len {
		return Value{Kind: ValOpaque}
	}
	b := make([]byte, len(v.Prefix))
	all := maskFields(b, v.Prefix, l, 0)
	v.Prefix = string(b)
	v.Bits = shownPart
	if all {
		v.Bits = shownAll
	}
	return v
}

// A struct masked by its layout has Bits shownAll when what a reader is
// shown of it is all of it, else shownPart; one decoded but not masked
// (a result value, recorded with its pointers and padding) has Bits 0.
const (
	shownAll  = 1
	shownPart = 2
)

// SameStruct compares two structs recorded by their bytes and masked by
// their layouts (Value.masked): known to differ when what a reader is
// shown of them differs, and known alike when it is the same and is all of
// them. known is false otherwise: two strings of one length, or two
// non-nil pointers, may still differ, and a struct not masked holds
// addresses and padding that differ from run to run.
func SameStruct(a, b Value) (eq, known bool) {
	if !a.isStruct() || !b.isStruct() || a.Len != b.Len || a.Bits == 0 || b.Bits == 0 {
		return false, false
	}
	if a.Prefix != b.Prefix {
		return false, true
	}
	all := a.Bits == shownAll && b.Bits == shownAll
	return all, all
}

// maskFields writes what is shown of the fields of layout l, placed at
// off in src, to dst, and reports whether that is all of them: each field
// a bool or a number, or a struct or array of such fields, so that two
// values with the same masked bytes are equal.
func maskFields(dst []byte, src string, l *Layout, off int) (all bool) {
	all = true
	for _, f := range l.Fields {
		at := off + f.Offset
		if f.Type.Layout != nil {
			all = maskFields(dst, src, f.Type.Layout, at) && all
			continue
		}
		if at+fieldSize(f.Type) > len(src) {
			all = false
			continue
		}
		switch f.Type.Kind {
		case TypeBool, TypeInt, TypeUint, TypeFloat, TypeComplex:
			copy(dst[at:], src[at:at+fieldSize(f.Type)])
			continue
		case TypeString:
			copy(dst[at+8:], src[at+8:at+16])
		case TypeSlice:
			copy(dst[at+8:], src[at+8:at+16])
			fallthrough
		case TypePointer, TypeMap, TypeChan, TypeFunc, TypeInterface:
			if src[at:at+8] != "\x00\x00\x00\x00\x00\x00\x00\x00" {
				dst[at] = 1
			}
		}
		all = false
	}
	return all
}

// fieldSize is how many bytes of a field of type t are read to show it:
// a bool's or number's width, a string's or slice's two words, a
// pointer-like field's first word (its pointer, an interface's type
// word); zero for others, which are not shown.
func fieldSize(t Type) int {
	switch t.Kind {
	case TypeBool:
		return 1
	case TypeInt, TypeUint, TypeFloat, TypeComplex:
		return t.Bits / 8
	case TypeString, TypeSlice:
		return 16
	case TypePointer, TypeMap, TypeChan, TypeFunc, TypeInterface:
		return 8
	}
	return 0
}

// prefixOf is the first n bytes packed into w, the first byte lowest.
func prefixOf(w uint64, n int) string {
	var p [8]byte
	binary.LittleEndian.PutUint64(p[:], w)
	return string(p[:n])
}

// wordsHash is FNV-1a over the words.
func wordsHash(ws []uint64) uint64 {
	h := uint64(14695981039346656037)
	for _, w := range ws {
		for i := 0; i < 8; i++ {
			h ^= w >> (8 * i) & 0xff
			h *= 1099511628211
		}
	}
	return h
}

// Float returns a ValFloat value as a float64.
func (v Value) Float() float64 { return math.Float64frombits(v.Bits) }

// maskBareReturns masks the struct values of each bare return of named
// results by the results' layouts (see masked), as items are masked by
// their operands' when decoded: a bare return's values are no items. The
// results are the entry's last writes, one per value.
func maskBareReturns(t *Trace) {
	for i := range t.Events {
		e := &t.Events[i]
		if e.Kind != EvReturn || len(e.Reads) > 0 || len(t.Sites[e.Site].Exprs) > 0 ||
			!slices.ContainsFunc(e.Values, Value.isStruct) {
			continue
		}
		entry := t.Frames[e.Frame].Entry
		if entry < 0 || t.Events[entry].Kind != EvEntry || len(t.Events[entry].Writes) < len(e.Values) {
			continue
		}
		ws := slices.Clone(t.Events[entry].Writes)
		slices.SortFunc(ws, func(a, b Item) int { return a.Slot - b.Slot })
		ws = ws[len(ws)-len(e.Values):]
		ops := t.Sites[t.Events[entry].Site].Operands
		for k, w := range ws {
			var l *Layout
			if w.Slot < len(ops) {
				l = ops[w.Slot].Type.Layout
			}
			e.Values[k] = e.Values[k].masked(l)
		}
	}
}

// boxedMark separates, in the Prefix of an interface value recorded with
// the small struct or array it holds (Len its size, Cap structMark), the
// dynamic type's name, the layout the runtime wrote for it in the types
// file and the value's bytes, masked by that layout (Value.masked) so that
// two alike values have the same Prefix.
const boxedMark = "\x01"

// boxed returns the dynamic type's name, its value's masked bytes and its
// layout when v is an interface recorded with the small value it holds.
func (v Value) boxed() (name, b string, l *Layout, ok bool) {
	if v.Kind != ValIface || v.Cap != structMark {
		return "", "", nil, false
	}
	parts := strings.SplitN(v.Prefix, boxedMark, 3)
	if len(parts) != 3 {
		return "", "", nil, false
	}
	l = parseLayout(parts[1])
	return parts[0], parts[2], l, l != nil && int64(l.Size) == v.Len && len(parts[2]) == l.Size
}

// SameBoxed compares two interface values recorded with the small values
// they hold: alike when their types and what a reader is shown of their
// fields are. known is false unless both are such values.
func SameBoxed(a, b Value) (eq, known bool) {
	if a.Kind != ValIface || b.Kind != ValIface || a.Cap != structMark || b.Cap != structMark ||
		strings.Count(a.Prefix, boxedMark) < 2 || strings.Count(b.Prefix, boxedMark) < 2 {
		return false, false
	}
	return a.Prefix == b.Prefix, true
}

// unbox completes, once the dynamic type is named, an interface value
// recorded with the small value it holds: its Prefix becomes the name, the
// layout and the masked bytes (boxedMark). Without a layout it is left
// with its name alone.
func (v *Value) unbox(name, layout string) {
	b, ok := strings.CutPrefix(v.Prefix, boxedMark)
	if !ok {
		v.Prefix = name + v.Prefix
		return
	}
	l := parseLayout(layout)
	m := Value{Kind: ValOpaque, Cap: structMark, Len: v.Len, Prefix: b}.masked(l)
	if !m.isStruct() || len(b) != l.Size {
		v.Prefix, v.Len, v.Cap = name, 0, 0
		return
	}
	v.Prefix = name + boxedMark + layout + boxedMark + m.Prefix
}

// parseLayout reads a layout the runtime wrote in the types file:
// "size;name,offset,kind;…" (instrument/rt boxedLayout). Nil when
// malformed.
func parseLayout(s string) *Layout {
	parts := strings.Split(s, ";")
	size, err := strconv.Atoi(parts[0])
	if err != nil || size <= 0 || size > MaxStructSize {
		return nil
	}
	l := &Layout{Size: size}
	for _, p := range parts[1:] {
		f := strings.Split(p, ",")
		if len(f) != 3 || f[2] == "" {
			return nil
		}
		off, err := strconv.Atoi(f[1])
		if err != nil {
			return nil
		}
		var t Type
		bits, _ := strconv.Atoi(f[2][1:])
		switch f[2][0] {
		case 'b':
			t = Type{Kind: TypeBool}
		case 'i':
			t = Type{Kind: TypeInt, Bits: bits}
		case 'u':
			t = Type{Kind: TypeUint, Bits: bits}
		case 'f':
			t = Type{Kind: TypeFloat, Bits: bits}
		case 'c':
			t = Type{Kind: TypeComplex, Bits: bits}
		case 's':
			t = Type{Kind: TypeString}
		case 'l':
			t = Type{Kind: TypeSlice}
		case 'p':
			t = Type{Kind: TypePointer}
		default:
			return nil
		}
		l.Fields = append(l.Fields, Field{Name: f[0], Offset: off, Type: t})
	}
	return l
}

// elemsMark starts the Prefix of a slice recorded with its elements, then
// their text. The two are longer than the eight bytes a []byte's Prefix
// holds at most, so the two never meet (Value.elems).
const elemsMark = "\x00elems\x00"

// elemsText writes the elements a small slice was recorded with (package
// instrument/rt: a header word with their count, class and, for strings,
// lengths; a word each) as Go prints them with %q for strings and %v for
// numbers: [1 2 3], ["a" "bc"], a long string cut after its first bytes.
func elemsText(head uint64, ws []uint64) string {
	class := head >> 56 & 0xf
	parts := make([]string, len(ws))
	for i, x := range ws {
		switch class {
		case 0:
			parts[i] = strconv.FormatInt(int64(x), 10)
		case 1:
			parts[i] = strconv.FormatUint(x, 10)
		case 2:
			parts[i] = strconv.FormatFloat(math.Float64frombits(x), 'g', -1, 64)
		default:
			n := int(head >> (16 * i) & 0xffff)
			parts[i] = strconv.Quote(prefixOf(x, min(8, n)))
			if n > 8 {
				parts[i] += "…"
			}
		}
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// elems is the text of the elements v was recorded with, when it was.
func (v Value) elems() (string, bool) {
	if v.Kind != ValSlice || len(v.Prefix) <= 8 {
		return "", false
	}
	return strings.CutPrefix(v.Prefix, elemsMark)
}
