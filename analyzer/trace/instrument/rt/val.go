package rt

import (
	"math"
	"reflect"
	"unsafe"
)

// Value kinds (same numbering as trace.ValueKind).
const (
	vBool    = 1
	vInt     = 2
	vUint    = 3
	vFloat   = 4
	vComplex = 5
	vString  = 6
	vPointer = 7
	vSlice   = 8
	vIface   = 9
	vOpaque  = 10
	// vTime and vReflect are in opaque.go, vStruct in structs.go.
	// vBytes is a []byte: a slice's three words, then its content's hash
	// and first bytes, as a string's (decoded as a ValSlice).
	vBytes = 14
	// vError is an interface holding an error whose message is known,
	// or a reflect.Type (errtext.go): its two words, then the message's
	// or the type name's length, hash and first bytes (decoded as a
	// ValIface).
	vError = 15
)

// Item roles and runtime location kinds.
const (
	roleRead  = 0
	roleWrite = 1
	roleValue = 2

	locAddr = 2
	locMap  = 3
)

// An item is a tag word followed by its payload words. The tag's low 32
// bits hold the value kind (bits 0-3), the role (4-5), the location kind
// (6-7), the number of payload words (8-11), the inline flag (12), the
// hashed flag (13), the elements flag (14) and the operand slot (16-31).
// An inline value lives in the tag's high 32 bits and takes no payload
// word: a bool, an integer that fits in 32 bits (sign- or zero-extended by
// its kind), or a float whose low 32 bits are zero. The payload holds the
// value's words unless inline, then the location's: an address, or a map
// pointer followed by the key as an item of its own.
const (
	inline = 1 << 12
	nShift = 8
	// hashed marks a slice of booleans, numbers or strings recorded
	// with a hash of its elements after its three words (sampled, see
	// wordHash and stringsHash), so that two slices of one length tell
	// their contents apart; and an interface recorded with the bytes of
	// the small value it holds after its two words (boxedLayout).
	hashed = 1 << 13
	// elems marks a hashed slice of at most shownElems numbers of eight
	// bytes or strings recorded with its elements after the hash: a
	// header word (count in bits 60-63, class in 56-59: 0 signed, 1
	// unsigned, 2 float, 3 string; each string's length in 16 bits from
	// bit 0), then a word per element, a string's first bytes.
	elems      = 1 << 14
	shownElems = 3
)

// tag packs an item's kind, role, location kind and operand slot.
func tag(kind, role, loc, slot uint64) uint64 {
	return kind | role<<4 | loc<<6 | (slot&0xffff)<<16
}

// putInt appends an integer item with tag t (kind unset). The payload word
// is written in any case: words beyond n are scratch. putInt, putUint and
// putFloat are written out separately: folded into one shared helper, the
// extra call takes the recorders of basic.go over the inlining budget.
func (f *F) putInt(t uint64, v int64) {
	n := f.n
	if n+1 >= bufWords {
		f.ovf = 1 << 39
		return
	}
	w, k := t|vInt|1<<nShift, uint32(2)
	if int64(int32(v)) == v {
		w, k = t|vInt|inline|uint64(v)<<32, 1
	}
	f.buf[n], f.buf[n+1] = w, uint64(v)
	f.n = n + k
}

// putUint appends an unsigned integer item with tag t (kind unset).
func (f *F) putUint(t uint64, v uint64) {
	n := f.n
	if n+1 >= bufWords {
		f.ovf = 1 << 39
		return
	}
	w, k := t|vUint|1<<nShift, uint32(2)
	if v>>32 == 0 {
		w, k = t|vUint|inline|v<<32, 1
	}
	f.buf[n], f.buf[n+1] = w, v
	f.n = n + k
}

// putFloat appends a float item (its float64 bits b) with tag t.
func (f *F) putFloat(t uint64, b uint64) {
	n := f.n
	if n+1 >= bufWords {
		f.ovf = 1 << 39
		return
	}
	w, k := t|vFloat|1<<nShift, uint32(2)
	if b<<32 == 0 {
		w, k = t|vFloat|inline|b, 1
	}
	f.buf[n], f.buf[n+1] = w, b
	f.n = n + k
}

// putBool appends a bool item with tag t.
func (f *F) putBool(t uint64, b bool) {
	f.put1(t | vBool | inline | b2u(b)<<32)
}

// item is an item under construction: the tag and up to nine payload
// words (a value takes at most 6, its address or map pointer one more).
type item struct {
	n int
	w [10]uint64
}

// encodeAt sets it to the value of type typ at p with tag t (kind unset):
// the tag word, and the value's payload words unless the value fits
// inline. It is not generic: the generic recorders, instantiated for every
// shape of value the instrumented code reads, only pass it the value's type
// and address, which keeps each instantiation a few instructions long (the
// compiler's work on them was most of an instrumented build). p is only
// read, so the value stays on the caller's stack.
func encodeAt(it *item, t uint64, typ reflect.Type, p unsafe.Pointer) {
	switch typ.Kind() {
	case reflect.Int:
		it.int(t, int64(*(*int)(p)))
	case reflect.Int64:
		it.int(t, *(*int64)(p))
	case reflect.Int32:
		it.int(t, int64(*(*int32)(p)))
	case reflect.Int16:
		it.int(t, int64(*(*int16)(p)))
	case reflect.Int8:
		it.int(t, int64(*(*int8)(p)))
	case reflect.Uint:
		it.uint(t, uint64(*(*uint)(p)))
	case reflect.Uint64:
		it.uint(t, *(*uint64)(p))
	case reflect.Uint32:
		it.uint(t, uint64(*(*uint32)(p)))
	case reflect.Uint16:
		it.uint(t, uint64(*(*uint16)(p)))
	case reflect.Uint8:
		it.uint(t, uint64(*(*uint8)(p)))
	case reflect.Uintptr:
		it.uint(t, uint64(*(*uintptr)(p)))
	case reflect.Bool:
		it.n, it.w[0] = 1, t|vBool|inline|b2u(*(*bool)(p))<<32
	case reflect.String:
		it.str(t, *(*string)(p))
	case reflect.Float64:
		it.float(t, math.Float64bits(*(*float64)(p)))
	case reflect.Float32:
		it.float(t, math.Float64bits(float64(*(*float32)(p))))
	case reflect.Complex128:
		c := *(*complex128)(p)
		it.words(t, vComplex, math.Float64bits(real(c)), math.Float64bits(imag(c)))
	case reflect.Complex64:
		c := *(*complex64)(p)
		it.words(t, vComplex, math.Float64bits(float64(real(c))), math.Float64bits(float64(imag(c))))
	case reflect.Pointer, reflect.UnsafePointer, reflect.Map, reflect.Chan:
		it.words(t, vPointer, uint64(*(*uintptr)(p)))
	case reflect.Func:
		// A func value points at its closure, whose first word is the
		// code pointer: the address reflect gives for a func.
		var code uintptr
		if c := *(*unsafe.Pointer)(p); c != nil {
			code = *(*uintptr)(c)
		}
		it.words(t, vPointer, uint64(code))
	case reflect.Slice:
		it.slice(t, typ, p)
	case reflect.Interface:
		it.iface(t, typ, p)
	case reflect.Struct:
		switch {
		case typ == timeType && timeKnown:
			it.time(t, p)
		case typ == valueType:
			it.reflectValue(t, p)
		case typ.Size() <= maxStructSize:
			it.rawStruct(t, typ.Size(), p)
		default:
			it.words(t, vOpaque)
		}
	case reflect.Array:
		if typ.Size() <= maxStructSize {
			it.rawStruct(t, typ.Size(), p)
		} else {
			it.words(t, vOpaque)
		}
	default:
		it.words(t, vOpaque)
	}
}

// iface sets it to the interface of type typ at p: its two words, and the
// message of an error that has one or the name of a reflect.Type
// (heldText), or the bytes of a small value it holds (boxedLayout).
func (it *item) iface(t uint64, typ reflect.Type, p unsafe.Pointer) {
	h := (*[2]uintptr)(p)
	itab := typ.NumMethod() > 0
	boxed := nameType(*(*unsafe.Pointer)(p), itab)
	data := (*[2]unsafe.Pointer)(p)[1]
	if msg, ok := heldText(*(*unsafe.Pointer)(p), itab, data); ok {
		it.words(t, vError, uint64(h[0]), uint64(h[1]), uint64(len(msg)), strHash(msg), prefixWord(msg))
		return
	}
	if boxed > 0 && data != nil {
		// A small value held by a pointer to a copy: its bytes
		// follow, as a struct's (rawStruct).
		var w [maxStructSize / 8]uint64
		copy(unsafe.Slice((*byte)(unsafe.Pointer(&w)), boxed), unsafe.Slice((*byte)(data), boxed))
		it.words(t|hashed, vIface, uint64(h[0]), uint64(h[1]), uint64(boxed))
		it.add(w[:(boxed+7)/8]...)
		return
	}
	it.words(t, vIface, uint64(h[0]), uint64(h[1]))
}

// typeOf is T's type, without allocating: a nil *T fits an interface as it
// is.
func typeOf[T any]() reflect.Type { return reflect.TypeOf((*T)(nil)).Elem() }

// encode sets it to the value v with tag t (kind unset). A value of
// interface type whose dynamic value is a boolean, number or string is
// that value (a map[any]any keyed by strings has string keys); any other
// is its two words.
func encode[T any](it *item, t uint64, v T) {
	typ := typeOf[T]()
	if typ.Kind() == reflect.Interface && encodeDynamic(it, t, any(v)) {
		return
	}
	encodeAt(it, t, typ, unsafe.Pointer(&v))
}

// encodeDynamic encodes e's dynamic value when it is a boolean, number or
// string, and reports whether it did. Those values are stored apart from
// the interface, whose data word points at them.
func encodeDynamic(it *item, t uint64, e any) bool {
	switch e.(type) {
	case int, int64, int32, int16, int8, uint, uint64, uint32, uint16, uint8, uintptr, bool, string, float64:
		encodeAt(it, t, reflect.TypeOf(e), (*[2]unsafe.Pointer)(unsafe.Pointer(&e))[1])
		return true
	}
	return false
}

func (it *item) int(t uint64, v int64) {
	if int64(int32(v)) == v {
		it.n, it.w[0] = 1, t|vInt|inline|uint64(v)<<32
	} else {
		it.n, it.w[0], it.w[1] = 2, t|vInt|1<<nShift, uint64(v)
	}
}

func (it *item) uint(t uint64, v uint64) {
	if v>>32 == 0 {
		it.n, it.w[0] = 1, t|vUint|inline|v<<32
	} else {
		it.n, it.w[0], it.w[1] = 2, t|vUint|1<<nShift, v
	}
}

func (it *item) float(t uint64, b uint64) {
	if b<<32 == 0 {
		it.n, it.w[0] = 1, t|vFloat|inline|b
	} else {
		it.n, it.w[0], it.w[1] = 2, t|vFloat|1<<nShift, b
	}
}

// words sets it to a value of kind k with payload w.
func (it *item) words(t, k uint64, w ...uint64) {
	it.n, it.w[0] = 1+len(w), t|k|uint64(len(w))<<nShift
	copy(it.w[1:], w)
}

// add appends payload words that describe the location.
func (it *item) add(w ...uint64) {
	it.w[0] += uint64(len(w)) << nShift
	it.n += copy(it.w[it.n:], w)
}

func (it *item) str(t uint64, s string) {
	it.words(t, vString, uint64(len(s)), strHash(s), prefixWord(s))
}

// strHash is FNV-1a over the string; long strings are sampled (first and
// last 512 bytes) to bound the cost per read.
func strHash(s string) uint64 {
	h := uint64(14695981039346656037)
	if len(s) > 1024 {
		return fnv(fnv(h, s[:512]), s[len(s)-512:])
	}
	return fnv(h, s)
}

// fnv continues the FNV-1a hash h over s.
func fnv(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// putItem appends it.
func (f *F) putItem(it *item) {
	n := uint32(it.n)
	if f.n+n > bufWords {
		f.ovf = 1 << 39
		return
	}
	copy(f.buf[f.n:], it.w[:n])
	f.n += n
}

// putItems appends it and then more, or neither.
func (f *F) putItems(it, more *item) {
	n := uint32(it.n + more.n)
	if f.n+n > bufWords {
		f.ovf = 1 << 39
		return
	}
	copy(f.buf[f.n:], it.w[:it.n])
	copy(f.buf[f.n+uint32(it.n):], more.w[:more.n])
	f.n += n
}

// put appends the item of value v with tag t (kind unset). The kinds of
// hot loops go straight into the frame's buffer.
func put[T any](f *F, t uint64, v T) {
	switch x := any(v).(type) {
	case int:
		f.putInt(t, int64(x))
	case bool:
		f.putBool(t, x)
	case int64:
		f.putInt(t, x)
	case uint8:
		f.putUint(t, uint64(x))
	default:
		var it item
		encode(&it, t, v)
		f.putItem(&it)
	}
}

// The generic recorders below (V to RL) are never inlined. Instrumented
// code calls them around nearly every operand, and inlining each call
// multiplied the size of the functions the compiler then optimises: the
// instrumented build is most of a semantic analysis's time on a real
// module (kong's package compiled in 3.8 s instead of 4.8 s). Integers and
// booleans, the values of hot loops, have inlined recorders of their own
// (basic.go).

// V pushes the read of operand slot and returns v.
//
//go:noinline
func V[T any](f *F, slot int, v T) T {
	put(f, tag(0, roleRead, 0, uint64(slot)), v)
	return v
}

// VA pushes the read of operand slot at address p and returns v.
//
//go:noinline
func VA[T any](f *F, slot int, v T, p *T) T {
	rec(f, roleRead, slot, v, p)
	return v
}

// VM pushes the read of map entry m[k] (value v) and returns v.
//
//go:noinline
func VM[K comparable, E any](f *F, slot int, v E, m map[K]E, k K) E {
	recMap(f, roleRead, slot, v, m, k)
	return v
}

// Hold stores m, the map a range ranges over, in *h for the iterations'
// RM, and returns it.
func Hold[M any](h *any, m M) M {
	*h = m
	return m
}

// RM pushes the element v at key k of the map held in m (Hold) as a read
// of that map entry. It runs in an iteration of the range, so the map is
// not nil: the interface's data word is the map.
//
//go:noinline
func RM[K comparable, E any](f *F, slot int, m any, k K, v E) {
	p := (*[2]unsafe.Pointer)(unsafe.Pointer(&m))[1]
	recMap(f, roleRead, slot, v, *(*map[K]E)(unsafe.Pointer(&p)), k)
}

// W pushes the value written to operand slot.
//
//go:noinline
func W[T any](f *F, slot int, v T) { put(f, tag(0, roleWrite, 0, uint64(slot)), v) }

// WA pushes the value written to operand slot at address p.
//
//go:noinline
func WA[T any](f *F, slot int, v T, p *T) { rec(f, roleWrite, slot, v, p) }

// WM pushes the value written to map entry m[k].
//
//go:noinline
func WM[K comparable, E any](f *F, slot int, v E, m map[K]E, k K) {
	recMap(f, roleWrite, slot, v, m, k)
}

// Del pushes the removal of map entry m[k] by delete as a write of the
// element type's zero value, which is what a later m[k] reads.
//
//go:noinline
func Del[K comparable, E any](f *F, slot int, m map[K]E, k K) {
	var zero E
	recMap(f, roleWrite, slot, zero, m, k)
}

// WV records v as written at slot without ending the event, and returns
// it: the values of a parallel assignment before its last one (W1).
//
//go:noinline
func WV[T any](f *F, slot int, v T) T {
	put(f, tag(0, roleWrite, 0, uint64(slot)), v)
	return v
}

// W1 pushes the single value written to operand slot, emits the assignment
// event of site and returns v (for assignments in statement headers).
//
//go:noinline
func W1[T any](f *F, site uint32, slot int, v T) T {
	put(f, tag(0, roleWrite, 0, uint64(slot)), v)
	emit(f, KAssign, site, false)
	return v
}

// Val pushes an event value (a result, argument or outcome) at index k.
//
//go:noinline
func Val[T any](f *F, k int, v T) T {
	put(f, tag(0, roleValue, 0, uint64(k)), v)
	return v
}

// RL pushes the last result k of the return statement at site and marks
// the frame as returning normally.
//
//go:noinline
func RL[T any](f *F, site uint32, k int, v T) T {
	put(f, tag(0, roleValue, 0, uint64(k)), v)
	f.R = site
	return v
}

// Ok returns true; it sequences pushes inside a boolean expression.
func Ok[T any](T) bool { return true }

// EOk emits an event and returns true.
func EOk(f *F, kind int, site uint32) bool {
	emit(f, uint64(kind), site, false)
	return true
}

func rec[T any](f *F, role uint64, slot int, v T, p *T) {
	var it item
	encode(&it, tag(0, role, locAddr, uint64(slot)), v)
	it.add(uint64(uintptr(unsafe.Pointer(p))))
	f.putItem(&it)
}

// recMap appends the item of map entry m[k] with value v: the value's
// words, the map pointer, then the key as an item of its own, which the
// tag counts as payload too. The key is appended from its own item: the
// largest value and key do not fit one (a reflect.Value keyed by one
// takes 15 words).
func recMap[K comparable, E any](f *F, role uint64, slot int, v E, m map[K]E, k K) {
	var it, key item
	encode(&it, tag(0, role, locMap, uint64(slot)), v)
	encode(&key, 0, k)
	it.add(uint64(uintptr(*(*unsafe.Pointer)(unsafe.Pointer(&m)))))
	it.w[0] += uint64(key.n) << nShift
	f.putItems(&it, &key)
}
