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
)

// Item roles and runtime location kinds.
const (
	roleRead  = 0
	roleWrite = 1
	roleValue = 2

	locAddr = 2
	locMap  = 3
)

// tag packs an item header: value kind, role, location kind, operand slot
// and the number of payload words that follow.
func tag(kind, role, loc, slot, n uint64) uint64 {
	return kind | role<<8 | loc<<12 | (slot&0xffff)<<16 | n<<32
}

type val struct {
	k uint64
	n int
	w [3]uint64
}

func encode[T any](v T) val {
	switch x := any(v).(type) {
	case int:
		return val{k: vInt, n: 1, w: [3]uint64{uint64(x)}}
	case int64:
		return val{k: vInt, n: 1, w: [3]uint64{uint64(x)}}
	case int32:
		return val{k: vInt, n: 1, w: [3]uint64{uint64(x)}}
	case uint8:
		return val{k: vUint, n: 1, w: [3]uint64{uint64(x)}}
	case uint64:
		return val{k: vUint, n: 1, w: [3]uint64{x}}
	case bool:
		return val{k: vBool, n: 1, w: [3]uint64{b2u(x)}}
	case string:
		return encString(x)
	case float64:
		return val{k: vFloat, n: 1, w: [3]uint64{math.Float64bits(x)}}
	case uint:
		return val{k: vUint, n: 1, w: [3]uint64{uint64(x)}}
	case int8:
		return val{k: vInt, n: 1, w: [3]uint64{uint64(x)}}
	case int16:
		return val{k: vInt, n: 1, w: [3]uint64{uint64(x)}}
	case uint16:
		return val{k: vUint, n: 1, w: [3]uint64{uint64(x)}}
	case uint32:
		return val{k: vUint, n: 1, w: [3]uint64{uint64(x)}}
	case uintptr:
		return val{k: vUint, n: 1, w: [3]uint64{uint64(x)}}
	}
	return encodeSlow(v)
}

// encodeSlow encodes any other value through reflection. It is kept out of
// line: taking v's address moves v to the heap, which must not happen on
// encode's fast paths.
//
//go:noinline
func encodeSlow[T any](v T) val {
	return encodeReflect(reflect.ValueOf(&v).Elem())
}

func encodeReflect(rv reflect.Value) val {
	switch rv.Kind() {
	case reflect.Bool:
		return val{k: vBool, n: 1, w: [3]uint64{b2u(rv.Bool())}}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return val{k: vInt, n: 1, w: [3]uint64{uint64(rv.Int())}}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return val{k: vUint, n: 1, w: [3]uint64{rv.Uint()}}
	case reflect.Float32, reflect.Float64:
		return val{k: vFloat, n: 1, w: [3]uint64{math.Float64bits(rv.Float())}}
	case reflect.Complex64, reflect.Complex128:
		c := rv.Complex()
		return val{k: vComplex, n: 2, w: [3]uint64{math.Float64bits(real(c)), math.Float64bits(imag(c))}}
	case reflect.String:
		return encString(rv.String())
	case reflect.Pointer, reflect.UnsafePointer, reflect.Map, reflect.Chan, reflect.Func:
		return val{k: vPointer, n: 1, w: [3]uint64{uint64(rv.Pointer())}}
	case reflect.Slice:
		return val{k: vSlice, n: 3, w: [3]uint64{uint64(rv.Pointer()), uint64(rv.Len()), uint64(rv.Cap())}}
	case reflect.Interface:
		if rv.CanAddr() {
			p := (*[2]uintptr)(unsafe.Pointer(rv.UnsafeAddr()))
			return val{k: vIface, n: 2, w: [3]uint64{uint64(p[0]), uint64(p[1])}}
		}
	}
	return val{k: vOpaque}
}

// prefixLen is how many leading bytes of a string are kept.
const prefixLen = 8

func encString(s string) val {
	var pre uint64
	for i := 0; i < len(s) && i < prefixLen; i++ {
		pre |= uint64(s[i]) << (8 * i)
	}
	return val{k: vString, n: 3, w: [3]uint64{uint64(len(s)), strHash(s), pre}}
}

// strHash is FNV-1a over the string; long strings are sampled (first and
// last 512 bytes) to bound the cost per read.
func strHash(s string) uint64 {
	h := uint64(14695981039346656037)
	if len(s) > 1024 {
		s = s[:512] + s[len(s)-512:]
	}
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

func (f *F) pushVal(role, loc, slot uint64, v val, extra int) {
	if int(f.n)+1+v.n+extra > bufWords {
		f.ovf = true
		return
	}
	f.buf[f.n] = tag(v.k, role, loc, slot, uint64(v.n+extra))
	copy(f.buf[f.n+1:], v.w[:v.n])
	f.n += uint32(1 + v.n)
}

func (f *F) pushWord(w uint64) {
	f.buf[f.n] = w
	f.n++
}

// V pushes the read of operand slot and returns v.
func V[T any](f *F, slot int, v T) T {
	f.pushVal(roleRead, 0, uint64(slot), encode(v), 0)
	return v
}

// VA pushes the read of operand slot at address p and returns v.
func VA[T any](f *F, slot int, v T, p *T) T {
	rec(f, roleRead, slot, v, p)
	return v
}

// VM pushes the read of map entry m[k] (value v) and returns v.
func VM[K comparable, E any](f *F, slot int, v E, m map[K]E, k K) E {
	recMap(f, roleRead, slot, v, m, k)
	return v
}

// W pushes the value written to operand slot.
func W[T any](f *F, slot int, v T) { f.pushVal(roleWrite, 0, uint64(slot), encode(v), 0) }

// WA pushes the value written to operand slot at address p.
func WA[T any](f *F, slot int, v T, p *T) { rec(f, roleWrite, slot, v, p) }

// WM pushes the value written to map entry m[k].
func WM[K comparable, E any](f *F, slot int, v E, m map[K]E, k K) {
	recMap(f, roleWrite, slot, v, m, k)
}

// W1 pushes the single value written to operand slot, emits the assignment
// event of site and returns v (for assignments in statement headers).
func W1[T any](f *F, site uint32, slot int, v T) T {
	W(f, slot, v)
	emit(f, KAssign, site, false)
	return v
}

// Val pushes an event value (a result, argument or outcome) at index k.
func Val[T any](f *F, k int, v T) T {
	f.pushVal(roleValue, 0, uint64(k), encode(v), 0)
	return v
}

// RL pushes the last result k of the return statement at site and marks
// the frame as returning normally.
func RL[T any](f *F, site uint32, k int, v T) T {
	Val(f, k, v)
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
	e := encode(v)
	f.pushVal(role, locAddr, uint64(slot), e, 1)
	if !f.ovf {
		f.pushWord(uint64(uintptr(unsafe.Pointer(p))))
	}
}

func recMap[K comparable, E any](f *F, role uint64, slot int, v E, m map[K]E, k K) {
	e, ke := encode(v), encode(k)
	f.pushVal(role, locMap, uint64(slot), e, 2+ke.n)
	if f.ovf {
		return
	}
	f.pushWord(uint64(uintptr(*(*unsafe.Pointer)(unsafe.Pointer(&m)))))
	f.pushWord(tag(ke.k, 0, 0, 0, uint64(ke.n)))
	for i := 0; i < ke.n; i++ {
		f.pushWord(ke.w[i])
	}
}
