package rt

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"sync"
	"unsafe"
)

// An interface value is recorded as its two words, and the first (the
// dynamic type, or the itab that holds it) means nothing outside the
// process. The first time a run records an interface whose first word is
// new, the dynamic type's name goes to the trace directory's types file,
// a line "<word in hex> <type>", so that the decoder can say what the
// interface held (*fs.PathError rather than non-nil).

// TypesFile names the types file in the trace directory.
const TypesFile = "types.txt"

var (
	typesOut  *os.File
	typesSeen sync.Map // first words already named
)

// openTypes creates the types file in dir; without it no names are kept.
func openTypes(dir string) {
	f, err := os.OpenFile(filepath.Join(dir, TypesFile), os.O_WRONLY|os.O_CREATE|os.O_TRUNC|os.O_APPEND, 0o644)
	if err == nil {
		typesOut = f
	}
}

// nameType writes the name of the dynamic type of an interface value
// whose first word is w, once per word. In a non-empty interface (itab)
// w points at an itab, whose second word is the type.
func nameType(w unsafe.Pointer, itab bool) {
	if typesOut == nil || w == nil {
		return
	}
	if _, seen := typesSeen.LoadOrStore(w, struct{}{}); seen {
		return
	}
	typ := w
	if itab {
		typ = *(*unsafe.Pointer)(unsafe.Add(w, unsafe.Sizeof(uintptr(0))))
	}
	// An empty interface with that type and no data: reflect reads only
	// the type word.
	var e any
	(*[2]unsafe.Pointer)(unsafe.Pointer(&e))[0] = typ
	line := strconv.FormatUint(uint64(uintptr(w)), 16) + " " + reflect.TypeOf(e).String() + "\n"
	typesOut.WriteString(line) // one write: lines of concurrent callers do not mix
}
