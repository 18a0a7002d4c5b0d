package rt

import (
	"reflect"
	"unsafe"
)

// wordClass is the class (elems) of elements of kind k when they are
// numbers of eight bytes, which a small slice is recorded with.
func wordClass(k reflect.Kind) (uint64, bool) {
	switch k {
	case reflect.Int, reflect.Int64:
		return 0, true
	case reflect.Uint, reflect.Uint64, reflect.Uintptr:
		return 1, true
	case reflect.Float64:
		return 2, true
	}
	return 0, false
}

// flat reports whether elements of kind k are plain bits: a slice of them
// is hashed by its memory.
func flat(k reflect.Kind) bool {
	return k == reflect.Bool || k >= reflect.Int && k <= reflect.Uint64 || k == reflect.Float32 || k == reflect.Float64 ||
		k == reflect.Complex64 || k == reflect.Complex128
}

// slice sets it to the slice of type typ at p: its three words, and for a
// []byte its content's hash and first bytes, for other plain elements or
// strings a hash of them (hashed), and for a few numbers of eight bytes or
// strings the elements themselves (elems).
func (it *item) slice(t uint64, typ reflect.Type, p unsafe.Pointer) {
	h := (*[3]uintptr)(p)
	if typ.Elem().Kind() == reflect.Uint8 {
		bs := *(*[]byte)(p)
		b := unsafe.String(unsafe.SliceData(bs), len(bs))
		it.words(t, vBytes, uint64(h[0]), uint64(h[1]), uint64(h[2]), strHash(b), prefixWord(b))
		return
	}
	if n := h[1] * typ.Elem().Size(); n > 0 && flat(typ.Elem().Kind()) {
		b := unsafe.String((*byte)((*[3]unsafe.Pointer)(p)[0]), n)
		class, ok := wordClass(typ.Elem().Kind())
		if !ok || h[1] > shownElems {
			it.words(t|hashed, vSlice, uint64(h[0]), uint64(h[1]), uint64(h[2]), wordHash(b))
			return
		}
		it.words(t|hashed|elems, vSlice, uint64(h[0]), uint64(h[1]), uint64(h[2]), wordHash(b), uint64(h[1])<<60|class<<56)
		it.add(unsafe.Slice((*uint64)((*[3]unsafe.Pointer)(p)[0]), h[1])...)
		return
	}
	if h[1] > 0 && typ.Elem().Kind() == reflect.String {
		ss := unsafe.Slice((*string)((*[3]unsafe.Pointer)(p)[0]), h[1])
		if h[1] > shownElems {
			it.words(t|hashed, vSlice, uint64(h[0]), uint64(h[1]), uint64(h[2]), stringsHash(ss))
			return
		}
		head := uint64(h[1])<<60 | 3<<56
		var firsts [shownElems]uint64
		for i, s := range ss {
			head |= uint64(min(len(s), 0xffff)) << (16 * i)
			firsts[i] = prefixWord(s)
		}
		it.words(t|hashed|elems, vSlice, uint64(h[0]), uint64(h[1]), uint64(h[2]), stringsHash(ss), head)
		it.add(firsts[:h[1]]...)
		return
	}
	it.words(t, vSlice, uint64(h[0]), uint64(h[1]), uint64(h[2]))
}

// stringsHash hashes a slice of strings by its length and its first and
// last hashedStrings elements, each by its length and first hashedPrefix
// bytes: a slice of arguments or names that differs from another of the
// same length in an element is told apart, at a bounded cost.
func stringsHash(ss []string) uint64 {
	h := fold(wordSeed, uint64(len(ss)))
	for i, s := range ss {
		if i == hashedStrings && len(ss) > 2*hashedStrings {
			i = len(ss) - hashedStrings
			for _, s := range ss[i:] {
				h = fold(wordHash(s[:min(len(s), hashedPrefix)]), h^uint64(len(s)))
			}
			return h
		}
		h = fold(wordHash(s[:min(len(s), hashedPrefix)]), h^uint64(len(s)))
	}
	return h
}

// Bounds of stringsHash: elements hashed at each end, bytes of each.
const (
	hashedStrings = 4
	hashedPrefix  = 16
)

// wordHash hashes the bytes of s a word at a time, the first and last
// 64 of them past 128: a slice read in a loop's condition is hashed on
// every iteration, so this is a cheaper kin of strHash, which samples a
// kilobyte. Two long slices that differ only in their middle hash alike.
func wordHash(s string) uint64 {
	if len(s) > 128 {
		return fold(wordHash(s[:64]), wordHash(s[len(s)-64:])^uint64(len(s)))
	}
	h := fold(wordSeed, uint64(len(s)))
	p := unsafe.StringData(s)
	n := len(s) / 8
	for i := 0; i < n; i++ {
		h = fold(h, *(*uint64)(unsafe.Add(unsafe.Pointer(p), 8*i)))
	}
	var last uint64
	for i := 8 * n; i < len(s); i++ {
		last = last<<8 | uint64(s[i])
	}
	return fold(h, last)
}

// wordSeed starts a wordHash.
const wordSeed = 0x9e3779b97f4a7c15

// fold folds word w into hash h.
func fold(h, w uint64) uint64 {
	h ^= w
	h *= 0xff51afd7ed558ccd
	return h ^ h>>32
}
