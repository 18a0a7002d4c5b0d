package semantic

import (
	"strings"
	"testing"

	"github.com/culprit-dev/culprit/analyzer/trace"

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

// Shadowed's not-taken branch writes only a block's own n.
func Shadowed(flag bool) int {
	n := 1
	if flag {
		n := 2
		n++
		_ = n
	}
	r := n * 10
	return r
}

type pair struct{ x, y int }

// Field's not-taken branch writes the field that is read after it.
func Field(flag bool) int {
	var s pair
	s.x = 1
	if flag {
		s.x = 5
	}
	r := s.x * 10
	return r
}

// FieldZero's not-taken branch writes the field, zero since s was
// declared, that is read after it.
func FieldZero(flag bool) int {
	var s pair
	if flag {
		s.y = 5
	}
	r := s.y * 10
	return r
}

// Named's not-taken branch writes only a block's own n, and its naked
// return hands back the result n.
func Named(flag bool) (n int) {
	n = 2
	if flag {
		n := 3
		n++
		_ = n
	}
	return
}

// NamedSet's not-taken branch writes the result n.
func NamedSet(flag bool) (n int) {
	n = 2
	if flag {
		n = 5
	}
	return
}
-- shadow/shadow_test.go --
package shadow

import "testing"

func TestNamed(t *testing.T) {
	if Named(false) != 4 {
		t.Error("named")
	}
}

func TestNamedSet(t *testing.T) {
	if NamedSet(false) != 5 {
		t.Error("named")
	}
}

func TestShadowed(t *testing.T) {
	if Shadowed(false) != 20 {
		t.Error("shadowed")
	}
}

func TestField(t *testing.T) {
	if Field(false) != 50 {
		t.Error("field")
	}
}

func TestFieldZero(t *testing.T) {
	if FieldZero(false) != 50 {
		t.Error("field")
	}
}

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
			a := New(tr, dir, Setup{})
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

// TestNotTakenWritesByObject checks that a branch whose not-taken side
// writes a variable of the same name in a block of its own is not a
// critical predicate of a later read of the outer variable, and that one
// whose not-taken side writes the field of a local struct that is read is
// one, whether the field was last written or has been zero since the
// declaration: the variable is the type checker's, not the name's.
func TestNotTakenWritesByObject(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs traced test binaries")
	}
	dir := writeTree(t, txtar.Parse([]byte(shadowModule)), "")
	for _, tc := range []struct {
		test, read string
		want       bool
	}{
		{"TestShadowed", "r := n * 10", false},
		{"TestField", "r := s.x * 10", true},
		{"TestFieldZero", "r := s.y * 10", true},
		{"TestNamed", "return", false},
		{"TestNamedSet", "return", true},
	} {
		t.Run(tc.test, func(t *testing.T) {
			tr := traceFailing(t, dir, "./shadow", tc.test)
			a := New(tr, dir, Setup{})
			read, branch := -1, -1
			for i := range tr.Events {
				switch tr.SiteOf(i).Text {
				case tc.read:
					read = i
				case "flag":
					if tr.Event(i).Kind == trace.EvBranch {
						branch = i
					}
				}
			}
			if read < 0 || branch < 0 {
				t.Fatalf("read event %d, branch event %d", read, branch)
			}
			found := map[int]bool{}
			a.indirect(read, found)
			if found[branch] != tc.want {
				t.Errorf("branch on flag critical for %q: %v, want %v (found %v)", tc.read, found[branch], tc.want, found)
			}
		})
	}
}

const fieldModule = `
-- go.mod --
module example.com/fields

go 1.22
-- kind/kind.go --
package kind

type C struct {
	Args []string
	N    int
}

func New() *C { return &C{Args: []string{"x"}} }

// Skip leaves c.Args as it was when in is empty.
func Skip(c *C, in []string) {
	if len(in) == 0 {
		return
	}
	c.Args = in
}

// Fill sets c.N only when flag is set.
func Fill(c *C, flag bool) {
	if flag {
		c.N = 1
	}
}
-- fields.go --
package fields

// Other has fields named like kind.C's.
type Other struct {
	Args []string
	N    int
}

func SkipOther(o *Other, in []string) {
	if len(in) == 0 {
		return
	}
	o.Args = in
}

func FillOther(o *Other, flag bool) {
	if flag {
		o.N = 1
	}
}
-- fields_test.go --
package fields

import (
	"testing"

	"example.com/fields/kind"
)

func TestArgs(t *testing.T) {
	c := kind.New()
	SkipOther(&Other{}, nil)
	kind.Skip(c, nil)
	n := len(c.Args)
	if n != 2 {
		t.Errorf("%d args", n)
	}
}

func TestN(t *testing.T) {
	c := new(kind.C)
	FillOther(&Other{}, false)
	kind.Fill(c, false)
	m := c.N
	if m != 1 {
		t.Errorf("n %d", m)
	}
}
`

// TestNotTakenWritesFieldByType checks that a branch in another frame
// whose skipped or not-taken code assigns the field a read selects is a
// critical predicate of the read, and that one assigning a field of the
// same name of another struct type is not: the field is the declaring
// type's, by the type checker, and keeps its identity from the package
// that declares it (kind) to the one that reads it.
func TestNotTakenWritesFieldByType(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs traced test binaries")
	}
	dir := writeTree(t, txtar.Parse([]byte(fieldModule)), "")
	for _, tc := range []struct {
		test, read, branch string
	}{
		// The early return skips c.Args = in (exitsBetween).
		{"TestArgs", "n := len(c.Args)", "len(in) == 0"},
		// The not-taken side assigns c.N, which nothing traced wrote
		// (unassignedBetween).
		{"TestN", "m := c.N", "flag"},
	} {
		t.Run(tc.test, func(t *testing.T) {
			tr := traceFailing(t, dir, ".", tc.test)
			a := New(tr, dir, Setup{})
			read, own, other := -1, -1, -1
			for i := range tr.Events {
				s := tr.SiteOf(i)
				switch {
				case s.Text == tc.read:
					read = i
				case s.Text == tc.branch && tr.Event(i).Kind == trace.EvBranch && strings.Contains(s.Func, "kind."):
					own = i
				case s.Text == tc.branch && tr.Event(i).Kind == trace.EvBranch:
					other = i
				}
			}
			if read < 0 || own < 0 || other < 0 {
				t.Fatalf("read event %d, branch events %d (kind.C's field) and %d (Other's)", read, own, other)
			}
			found := map[int]bool{}
			a.indirect(read, found)
			if !found[own] {
				t.Errorf("branch of %s not critical for %q (found %v)", tr.SiteOf(own).Func, tc.read, found)
			}
			if found[other] {
				t.Errorf("branch of %s, which assigns another type's field, critical for %q", tr.SiteOf(other).Func, tc.read)
			}
		})
	}
}
