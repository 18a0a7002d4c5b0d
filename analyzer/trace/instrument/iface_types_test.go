package instrument

import "testing"

const ifaceModule = `package p

import (
	"errors"
	"fmt"
)

type NotFound struct{ Name string }

// Point is held by an interface through a pointer to a copy; Ref, whose
// one field is a pointer, in the interface's data word itself.
type Point [2]float64

type Ref struct{ p *int }

func (e *NotFound) Error() string { return "no " + e.Name }

// Find fails with a sentinel for an empty name and a *NotFound otherwise.
func Find(name string) error {
	if name == "" {
		return errors.New("empty name")
	}
	return &NotFound{Name: name}
}

// Wrap wraps err with where it came from.
func Wrap(err error) error { return fmt.Errorf("find: %w", err) }
`

const ifaceTest = `package p

import (
	"errors"
	"io/fs"
	"reflect"
	"testing"
)

func TestX(t *testing.T) {
	empty := Find("")
	missing := Find("x")
	again := Find("y")
	wrapped := Wrap(empty)
	var plain any = errors.New("ok")
	var path error = &fs.PathError{Op: "open"}
	var boxed any = NotFound{Name: "v"}
	var pt any = Point{6, 5.5}
	var ref any = Ref{}
	kind := reflect.TypeOf(map[string]int{})
	var elem any = kind.Elem()
	var none error
	nothing := none
	if empty == nil || missing == nil || again == nil || wrapped == nil || plain == nil || path == nil || boxed == nil || pt == nil || ref == nil || kind == nil || elem == nil || nothing != nil {
		t.Fatal("values")
	}
}
`

// TestInterfaceDynamicTypes: a non-nil interface value is shown with the
// name of the dynamic type it held, in an error interface (an itab) as in
// an empty one, and the same type twice is named alike. An error made by
// errors.New or fmt.Errorf is shown with its message, cut after its first
// bytes; another error type's Error method is never called. A small struct
// or array held through a pointer to a copy is shown by its fields; one
// held in the interface's data word (one pointer field) by its type. A
// reflect.Type, in its own interface or an empty one, is shown by the
// name of the type it describes.
func TestInterfaceDynamicTypes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a traced test binary")
	}
	dir := writeTree(t, moduleP(ifaceModule, ifaceTest))
	tr := tracePassing(t, dir, "./p", "TestX")
	shown := written(tr, "example.com/m/p.TestX")
	wantShown(t, shown, map[string]string{
		"empty":   `non-nil *errors.errorString "empty na"… (len 10)`,
		"wrapped": `non-nil *fmt.wrapError "find: em"… (len 16)`,
		"plain":   `non-nil *errors.errorString "ok"`,
		"missing": "non-nil *p.NotFound",
		"again":   "non-nil *p.NotFound",
		"path":    "non-nil *fs.PathError",
		"boxed":   "NotFound{Name: len 1}",
		"pt":      "Point{6, 5.5}",
		"ref":     "non-nil p.Ref",
		"kind":    `reflect.Type "map[stri"… (len 14)`,
		"elem":    `reflect.Type "int"`,
		"nothing": "nil",
	})
}
