package semantic

import (
	"testing"

	"golang.org/x/tools/txtar"
)

const shadowModule = `
-- go.mod --
module example.com/shadow

go 1.22
-- shadow/shadow.go --
package shadow

type T struct{ x int }

// Outer dereferences the nil parameter p after a block defined another,
// non-nil p.
func Outer(p *T, fix bool) int {
	n := 0
	if fix {
		p := &T{x: 1}
		n = p.x
	}
	return n + p.x
}

// Inner dereferences a nil p that shadows the non-nil parameter p.
func Inner(p *T) int {
	n := p.x
	if n > 0 {
		var p *T
		n += p.x
	}
	return n
}

// At indexes the nil parameter xs after a block defined another xs.
func At(xs []int, i int) int {
	if i > 0 {
		xs := []int{1, 2, 3}
		if xs[i] > 2 {
			return 0
		}
	}
	return xs[i]
}
-- shadow/shadow_test.go --
package shadow

import "testing"

func TestOuter(t *testing.T) {
	if Outer(nil, true) != 1 {
		t.Error("outer")
	}
}

func TestInner(t *testing.T) {
	if Inner(&T{x: 1}) != 1 {
		t.Error("inner")
	}
}

func TestAt(t *testing.T) {
	if At(nil, 1) != 2 {
		t.Error("at")
	}
}
`

// TestShadowedLocals checks that the variable a runtime panic's check
// reads is the one the source names there, when another local of the
// same function has the same name: the nil pointer dereferenced is the
// parameter, not the non-nil local of an earlier block, or the local of
// the block, not the parameter; the slice indexed is the parameter.
func TestShadowedLocals(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs traced test binaries")
	}
	dir := writeTree(t, txtar.Parse([]byte(shadowModule)), "")
	for _, tc := range []struct {
		test string
		pred predKind
		def  string // the text of the site defining the variable
	}{
		{"TestOuter", predNilDeref, "func Outer(p *T, fix bool) int {"},
		{"TestInner", predNilDeref, "var p *T"},
		{"TestAt", predImplicit, "func At(xs []int, i int) int {"},
	} {
		t.Run(tc.test, func(t *testing.T) {
			tr := traceFailing(t, dir, "./shadow", tc.test)
			a := New(tr, dir, Options{})
			tg, err := a.Failure()
			if err != nil {
				t.Fatal(err)
			}
			if tg.pred != tc.pred {
				t.Fatalf("target of kind %v, want %v", tg.pred, tc.pred)
			}
			var defs []int
			if tg.pred == predNilDeref {
				np, _ := a.nilDeref(tg.Event)
				if np.read >= 0 {
					t.Fatalf("nil pointer is read %d of the panic, want a local's definition", np.read)
				}
				defs = append(defs, np.def)
			} else {
				for _, d := range a.implicitLocals(tg.Event) {
					defs = append(defs, d[0])
				}
			}
			if len(defs) == 0 {
				t.Fatal("no definition of the variable the panic's check reads")
			}
			for _, d := range defs {
				if got := tr.SiteOf(d).Text; got != tc.def {
					t.Errorf("variable defined at %q, want %q", got, tc.def)
				}
			}
			checkInvariant(t, a, tg)
		})
	}
}
