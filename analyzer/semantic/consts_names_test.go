package semantic

import (
	"testing"

	"golang.org/x/tools/txtar"
)

const namedModule = `
-- go.mod --
module example.com/kinds

go 1.22
-- kinds/kinds.go --
package kinds

import "reflect"

// Color is a color.
type Color int

const (
	Red Color = iota
	Green
	Blue
)

// After is the color after c.
func After(c Color) Color {
	return c + 2
}

// KindOf is x's kind.
func KindOf(x any) reflect.Kind {
	k := reflect.TypeOf(x).Kind()
	return k
}
-- kinds/kinds_test.go --
package kinds

import (
	"reflect"
	"testing"
)

func TestAfter(t *testing.T) {
	k := KindOf(struct{}{})
	c := After(Red)
	if k != reflect.Ptr && c != Green {
		t.Errorf("After(Red) = %v, kind %v", c, k)
	}
}
`

// TestValuesByConstantName: a value of a named integer type whose
// package declares constants of it is shown by the constant's name, the
// module's own (kinds.Blue) and the standard library's (reflect.Struct),
// where the test printed 2 and "struct".
func TestValuesByConstantName(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a traced test binary")
	}
	dir := writeTree(t, txtar.Parse([]byte(namedModule)), "")
	tr := traceFailing(t, dir, "./kinds", "TestAfter")
	a := New(tr, dir, Setup{})
	tg, err := a.Failure()
	if err != nil {
		t.Fatal(err)
	}
	c, err := a.Cause(t.Context(), tg)
	if err != nil {
		t.Fatal(err)
	}
	shown := map[string]string{}
	for _, i := range c.Events {
		for k, v := range a.statement(i, nil).Values {
			shown[k] = v
		}
	}
	want := map[string]string{"c": "kinds.Blue", "k": "reflect.Struct"}
	for k, v := range want {
		if shown[k] != v {
			t.Errorf("%s shown as %q, want %q (all: %v)", k, shown[k], v, shown)
		}
	}
}
