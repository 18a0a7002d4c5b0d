package rt

import "unsafe"

// vStruct is a struct recorded by its bytes (decoded as a trace.ValOpaque
// whose fields a report can show, see trace.Layout).
const vStruct = 13

// maxStructSize is the largest struct recorded by its bytes (as
// trace.MaxStructSize); its item is the tag, the size word, four words of
// bytes and an address, within an item's ten words.
const maxStructSize = 32

// rawStruct sets it to the struct of size bytes at p: the size, then its
// bytes, the last word zero-filled. Only the struct's own bytes are read:
// a struct's size need not be a multiple of 8, and reading whole words
// could reach into the next object. The fields are not looked at here,
// which would take reflection, allocating; the instrumenter knows them.
func (it *item) rawStruct(t uint64, size uintptr, p unsafe.Pointer) {
	var w [maxStructSize / 8]uint64
	copy(unsafe.Slice((*byte)(unsafe.Pointer(&w)), size), unsafe.Slice((*byte)(p), size))
	it.words(t, vStruct, uint64(size))
	it.add(w[:(size+7)/8]...)
}
