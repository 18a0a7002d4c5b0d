package rt

import "unsafe"

// roleMove marks a move item: the payload is the source address, the
// destination address and the length in bytes of memory copied as it is
// (append growing into a new array, append(s, t...), copy). A read of the
// copied memory is defined by whatever defined the source.
const roleMove = 3

// putMove pushes the move of n bytes from src to dst.
func (f *F) putMove(src, dst unsafe.Pointer, n uintptr) {
	if n == 0 || src == dst {
		return
	}
	k := f.n
	if k+3 >= bufWords {
		f.ovf = 1 << 39
		return
	}
	f.buf[k] = roleMove<<4 | 3<<nShift
	f.buf[k+1], f.buf[k+2], f.buf[k+3] = uint64(uintptr(src)), uint64(uintptr(dst)), uint64(n)
	f.n = k + 4
}

// putElems pushes the move of the first n elements of src to dst.
func putElems[E any](f *F, src, dst []E, n int) {
	var e E
	f.putMove(unsafe.Pointer(unsafe.SliceData(src)), unsafe.Pointer(unsafe.SliceData(dst)), uintptr(n)*unsafe.Sizeof(e))
}

// grew pushes the move of old's elements into s when append put them in a
// new array.
func grew[S ~[]E, E any](f *F, old, s S) {
	if len(old) > 0 && len(s) >= len(old) {
		putElems(f, []E(old), []E(s), len(old))
	}
}

// AP records the n elements that append added at the end of s as written
// at their addresses, in operand slots slot to slot+n-1, emits the
// assignment event of site and returns s. old is the slice appended to:
// when append grew it into a new array, the move of its elements goes
// with the event. The arguments' reads, pushed while they were evaluated,
// go with the event too.
func AP[S ~[]E, E any](f *F, site uint32, slot, n int, old, s S) S {
	grew(f, old, s)
	for k := 0; k < n; k++ {
		i := len(s) - n + k
		WA(f, slot+k, s[i], &s[i])
	}
	emit(f, KAssign, site, false)
	return s
}

// APS records append(old, t...), whose result is s: the move of old's
// elements when the array grew, and the move of t's elements after them.
// The moves go with the enclosing statement's event.
func APS[S ~[]E, T ~[]E, E any](f *F, old S, t T, s S) S {
	grew(f, old, s)
	if len(t) > 0 && len(s) >= len(old)+len(t) {
		putElems(f, []E(t), []E(s[len(old):]), len(t))
	}
	return s
}

// CP is copy(dst, src) recording the move of the elements copied; the
// move goes with the enclosing statement's event.
func CP[D ~[]E, S ~[]E, E any](f *F, dst D, src S) int {
	n := copy(dst, src)
	if n > 0 {
		putElems(f, []E(src), []E(dst), n)
	}
	return n
}
