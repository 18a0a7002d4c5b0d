package rt

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
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
	typesSeen sync.Map // first words already named, to the size nameType returned
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
// w points at an itab, whose second word is the type. It returns the size
// of a dynamic value to record beside the interface's words (boxedSize),
// 0 for none; such a type's line gives its layout after a tab.
func nameType(w unsafe.Pointer, itab bool) uintptr {
	if typesOut == nil || w == nil {
		return 0
	}
	if size, seen := typesSeen.Load(w); seen {
		return size.(uintptr)
	}
	typ := dynType(w, itab)
	// An empty interface with that type and no data: reflect reads only
	// the type word.
	var e any
	(*[2]unsafe.Pointer)(unsafe.Pointer(&e))[0] = typ
	rt := reflect.TypeOf(e)
	layout := boxedLayout(rt)
	size := uintptr(0)
	if layout != "" {
		size = rt.Size()
	}
	if _, seen := typesSeen.LoadOrStore(w, size); seen {
		return size
	}
	line := strconv.FormatUint(uint64(uintptr(w)), 16) + " " + rt.String()
	if layout != "" {
		line += "\t" + layout
	}
	typesOut.WriteString(line + "\n") // one write: lines of concurrent callers do not mix
	return size
}

// dynType is the dynamic type of an interface value whose first word is
// w: w itself, or in a non-empty interface (itab) the itab's second word.
func dynType(w unsafe.Pointer, itab bool) unsafe.Pointer {
	if itab {
		return *(*unsafe.Pointer)(unsafe.Add(w, unsafe.Sizeof(uintptr(0))))
	}
	return w
}

// boxedLayout describes the fields of a small struct or array type that an
// interface holds by a pointer to a copy (a value of at most
// maxStructSize bytes that is not pointer-shaped), for its bytes to be
// recorded with the interface: "size;name,offset,kind;…", the kind a
// letter and a width in bits (b1, i64, u8, f32, c128), s a string, l a
// slice, p anything shown as nil or non-nil. "" for another type, or one
// with a field of another kind (a nested struct).
func boxedLayout(t reflect.Type) string {
	if t.Size() == 0 || t.Size() > maxStructSize || direct(t) {
		return ""
	}
	var b strings.Builder
	b.WriteString(strconv.Itoa(int(t.Size())))
	field := func(name string, off uintptr, ft reflect.Type) bool {
		k := kindCode(ft)
		if k == "" {
			return false
		}
		b.WriteString(";" + name + "," + strconv.Itoa(int(off)) + "," + k)
		return true
	}
	switch t.Kind() {
	case reflect.Struct:
		for i := range t.NumField() {
			if f := t.Field(i); !field(f.Name, f.Offset, f.Type) {
				return ""
			}
		}
	case reflect.Array:
		for i := range t.Len() {
			if !field("", uintptr(i)*t.Elem().Size(), t.Elem()) {
				return ""
			}
		}
	default:
		return ""
	}
	return b.String()
}

// kindCode is how boxedLayout writes a field's kind, "" for one it does
// not show.
func kindCode(t reflect.Type) string {
	bits := strconv.Itoa(int(t.Size()) * 8)
	switch k := t.Kind(); {
	case k == reflect.Bool:
		return "b8"
	case k >= reflect.Int && k <= reflect.Int64:
		return "i" + bits
	case k >= reflect.Uint && k <= reflect.Uintptr:
		return "u" + bits
	case k == reflect.Float32 || k == reflect.Float64:
		return "f" + bits
	case k == reflect.Complex64 || k == reflect.Complex128:
		return "c" + bits
	case k == reflect.String:
		return "s"
	case k == reflect.Slice:
		return "l"
	case k == reflect.Pointer || k == reflect.UnsafePointer || k == reflect.Map || k == reflect.Chan || k == reflect.Func || k == reflect.Interface:
		return "p"
	}
	return ""
}

// direct reports whether an interface holds a value of type t in its data
// word itself (a pointer-shaped type) rather than a pointer to a copy.
func direct(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.UnsafePointer, reflect.Map, reflect.Chan, reflect.Func:
		return true
	case reflect.Struct:
		return t.NumField() == 1 && direct(t.Field(0).Type)
	case reflect.Array:
		return t.Len() == 1 && direct(t.Elem())
	}
	return false
}
