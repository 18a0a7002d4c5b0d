package rt

import (
	"math"
	"reflect"
	"time"
	"unsafe"
)

// Two structs are recorded by what a reader tells them apart by rather
// than as opaque: a time.Time by its instant and zone, a reflect.Value by
// its kind, type and, where it cannot change under the Value, what it
// holds. Both recorders only read memory and call the standard library's
// accessors, which run no code of the program; neither allocates.

// Value kinds of the two (same numbering as trace.ValueKind, where a
// recorded reflect.Value is decoded as a trace.ValOpaque that describes
// it: a Value is still a handle on memory to the analyses).
const (
	vTime    = 11
	vReflect = 12
)

var (
	timeType  = typeOf[time.Time]()
	valueType = typeOf[reflect.Value]()
)

// The zone word of a time: the offset east of UTC in seconds (low 32
// bits), the length of the zone's name (bits 32-39, at most 255), and
// zoneLocal when the zone is time.Local before the program loaded it.
const zoneLocal = 1 << 40

// timeKnown says time.Time is laid out as the recorder reads it: its wall
// and ext words first.
var timeKnown = field(timeType, "wall", 0, reflect.Uint64) && field(timeType, "ext", 8, reflect.Int64)

// field reports whether struct type typ has a field name of kind k at
// offset off.
func field(typ reflect.Type, name string, off uintptr, k reflect.Kind) bool {
	f, ok := typ.FieldByName(name)
	return ok && len(f.Index) == 1 && f.Offset == off && f.Type.Kind() == k
}

// localLoc is time.Local as the program started with it; localName is the
// offset of time.Location's name field, -1 if the field is not where the
// recorder expects it.
var (
	localLoc  = time.Local
	localName = nameOffset()
)

// nameOffset finds time.Location's name field, which is "" until the
// location is loaded (time.Local is loaded on its first lookup).
func nameOffset() uintptr {
	f, ok := typeOf[time.Location]().FieldByName("name")
	if !ok || len(f.Index) != 1 || f.Type.Kind() != reflect.String {
		return ^uintptr(0)
	}
	return f.Offset
}

// time sets it to the time.Time at p: its two words as time.Time holds
// them (wall clock and monotonic reading, see time.Time's declaration),
// then the zone word and up to 8 bytes of the zone's name. Looking up the
// zone of time.Local would load it, reading $TZ, on the program's behalf
// and maybe before the program sets $TZ: a time in a Local the program
// has not loaded yet is recorded without its zone.
func (it *item) time(t uint64, p unsafe.Pointer) {
	w := (*[2]uint64)(p)
	tm := (*time.Time)(p)
	zone, name := uint64(zoneLocal), uint64(0)
	if l := tm.Location(); !(l == localLoc || l == time.Local) || localLoaded(l) {
		n, off := tm.Zone()
		zone = uint64(uint32(int32(off))) | uint64(min(len(n), 255))<<32
		name = prefixWord(n)
	}
	it.words(t, vTime, w[0], w[1], zone, name)
}

// localLoaded reports whether the location l, time.Local, has been loaded:
// its name is set once it has. The read is not synchronised with the
// loading; a name seen set is followed by a lookup, which waits for the
// loading to finish.
func localLoaded(l *time.Location) bool {
	if localName == ^uintptr(0) {
		return false
	}
	return len(*(*string)(unsafe.Add(unsafe.Pointer(l), localName))) > 0
}

// prefixWord packs the first 8 bytes of s into a word, the first byte
// lowest.
func prefixWord(s string) uint64 {
	var w uint64
	for i := 0; i < len(s) && i < 8; i++ {
		w |= uint64(s[i]) << (8 * i)
	}
	return w
}

// The header word of a reflect.Value: its reflect.Kind (bits 0-7), what
// follows the header (the flags below), the length of its type's name
// with package qualifiers dropped (bits 16-23, at most 255) and how many
// words of that name follow (bits 24-27).
const (
	rvNil    = 1 << 8  // a nil pointer, map, chan, func, interface or slice
	rvBits   = 1 << 9  // a word: the bool, integer or float64 bits held
	rvLen    = 1 << 10 // a word: the length of the slice or array
	rvString = 1 << 11 // three words: the string's length, hash and first bytes
	rvAddr   = 1 << 12 // addressable: what it holds is not recorded

	rvNameWords = 2 // words of the type's name kept
)

// reflectValue sets it to the reflect.Value at p: the header, the type's
// short name, then what the Value holds when it is not addressable. An
// addressable Value refers to memory the program may write through it or
// otherwise, so its contents are no value of the Value itself: a later
// read of the same Value would seem to disagree with its definition.
func (it *item) reflectValue(t uint64, p unsafe.Pointer) {
	rv := *(*reflect.Value)(p)
	if !rv.IsValid() {
		it.words(t, vReflect, 0)
		return
	}
	k := rv.Kind()
	var name [rvNameWords]uint64
	n, full := shortName(&name, rv.Type().String())
	h := uint64(k) | uint64(min(full, 255))<<16 | uint64((n+7)/8)<<24
	it.words(t, vReflect, h)
	it.add(name[:(n+7)/8]...)
	if rv.CanAddr() {
		it.w[1] |= rvAddr
		return
	}
	switch k {
	case reflect.Bool:
		it.w[1] |= rvBits
		it.add(b2u(rv.Bool()))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		it.w[1] |= rvBits
		it.add(uint64(rv.Int()))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		it.w[1] |= rvBits
		it.add(rv.Uint())
	case reflect.Float32, reflect.Float64:
		it.w[1] |= rvBits
		it.add(math.Float64bits(rv.Float()))
	case reflect.String:
		s := rv.String()
		it.w[1] |= rvString
		it.add(uint64(len(s)), strHash(s), prefixWord(s))
	case reflect.Slice:
		it.w[1] |= rvLen
		it.add(uint64(rv.Len()))
		if rv.IsNil() {
			it.w[1] |= rvNil
		}
	case reflect.Array:
		it.w[1] |= rvLen
		it.add(uint64(rv.Len()))
	case reflect.Pointer, reflect.Map, reflect.Chan, reflect.Func, reflect.Interface, reflect.UnsafePointer:
		if rv.IsNil() {
			it.w[1] |= rvNil
		}
	}
}

// shortName writes the start of typ's name into buf, package qualifiers
// dropped as the type's own package writes it ("*Config",
// "map[string]*T", as trace.ShortType does), and returns how many bytes
// it wrote and the length of the whole short name. The scan stops at 256
// bytes of typ (a longer name is a struct or func literal, whose start
// is all a reader needs); the length of a name cut there is given as 255,
// the most the header holds.
func shortName(buf *[rvNameWords]uint64, typ string) (n, full int) {
	cut := len(typ) > 256
	if cut {
		typ = typ[:256]
	}
	word := 0 // start of the current word, which may be qualified
	emit := func(s string) {
		for i := 0; i < len(s) && n < rvNameWords*8; i++ {
			buf[n/8] |= uint64(s[i]) << (8 * (n % 8))
			n++
		}
		full += len(s)
	}
	flush := func(end int) {
		w := typ[word:end]
		for i := len(w) - 1; i >= 0; i-- {
			if w[i] == '.' {
				w = w[i+1:]
				break
			}
		}
		emit(w)
	}
	for i := 0; i < len(typ); i++ {
		switch c := typ[i]; c {
		case '*', '[', ']', '(', ')', ',', ' ', '{', '}', ';':
			flush(i)
			emit(typ[i : i+1])
			word = i + 1
		}
	}
	flush(len(typ))
	if cut {
		full = 255
	}
	return n, full
}
