package instrument

import (
	"testing"

	"github.com/culprit-dev/culprit/analyzer/trace"
)

// TestConstructOperandNames checks the identities the site table gives
// the identifiers of index, selector and star reads (Operand.Names), as
// the analysis reads them back from the table's JSON: a shadowed name
// denotes the variable the type checker resolves, with the Obj of that
// variable's own writes; globals and address-taken locals get none, and
// plain identifiers and writes carry no names at all.
func TestConstructOperandNames(t *testing.T) {
	dir := writeTree(t, map[string][]byte{
		"go.mod": []byte("module example.com/p\n\ngo 1.22\n"),
		"p/p.go": []byte(`package p

type T struct{ x int }

var g = []int{1}

func F(p *T, xs []int, i int) int {
	s := 0
	if p == nil {
		p := &T{x: 1}
		s += p.x
	}
	q := &i
	return s + p.x + xs[*q] + g[i]
}
`),
		"p/p_test.go": []byte(`package p

import "testing"

func TestF(t *testing.T) {
	if F(&T{x: 2}, []int{3}, 0) != 6 {
		t.Error("F")
	}
}
`),
	})
	b := buildModule(t, dir, "TestF")
	// The Obj of each write of a local, by the text of its site.
	writes := map[string]map[string]int{}
	reads := map[string]trace.Operand{}
	for _, s := range b.Sites() {
		if s.Func != "example.com/p/p.F" {
			continue
		}
		for _, o := range s.Operands {
			if o.Write {
				if o.Names != nil {
					t.Errorf("write %s of %q has names %v", o.Text, s.Text, o.Names)
				}
				if writes[s.Text] == nil {
					writes[s.Text] = map[string]int{}
				}
				writes[s.Text][o.Text] = o.Obj
				continue
			}
			reads[s.Text+" | "+o.Text] = o
		}
	}
	param := writes["func F(p *T, xs []int, i int) int {"]
	inner := writes["p := &T{x: 1}"]["p"]
	q := writes["q := &i"]["q"]
	if param["p"] == 0 || inner == 0 || q == 0 || param["p"] == inner {
		t.Fatalf("writes of p, p (inner), q have Obj %d, %d, %d", param["p"], inner, q)
	}
	ret := "return s + p.x + xs[*q] + g[i]"
	for _, tc := range []struct {
		read string
		want map[string]int
	}{
		{"s += p.x | p.x", map[string]int{"p": inner}},
		{ret + " | p.x", map[string]int{"p": param["p"]}},
		{ret + " | xs[*q]", map[string]int{"xs": param["xs"], "q": q}},
		{ret + " | g[i]", nil}, // a global indexed by an address-taken local
		{ret + " | s", nil},    // a plain identifier
	} {
		o, ok := reads[tc.read]
		if !ok {
			t.Errorf("no read %q among %v", tc.read, reads)
			continue
		}
		if len(o.Names) != len(tc.want) {
			t.Errorf("read %q has names %v, want %v", tc.read, o.Names, tc.want)
			continue
		}
		for name, obj := range tc.want {
			if o.Names[name] != obj || obj == 0 {
				t.Errorf("read %q has names %v, want %v", tc.read, o.Names, tc.want)
			}
		}
	}
}

// TestConstructOperandField checks the field identities of the site
// table (Operand.Field): the field a location's last selector selects has
// one id whatever the variable, the path to it (promoted through an
// embedded struct, through a pointer, below an index), the generic
// instance or the package that selects it; a field of the same name in
// another type has another id, and a location in no field has none.
func TestConstructOperandField(t *testing.T) {
	dir := writeTree(t, map[string][]byte{
		"go.mod": []byte("module example.com/p\n\ngo 1.22\n"),
		"p/p.go": []byte(`package p

import "example.com/p/q"

type U struct{ X int }

type E struct{ q.T }

type G[V any] struct{ v V }

func F(t q.T, pt *q.T, e E, u U, i int) int {
	t.X = 1
	pt.Xs[i] = 2
	e.X = 3
	u.X = 4
	(*pt).X = 5
	var a G[int]
	var b G[string]
	a.v = 6
	b.v = "7"
	n := len(b.v)
	return t.X + e.X + u.X + a.v + n
}
`),
		"q/q.go": []byte(`package q

type T struct {
	X  int
	Xs []int
}

func Set(t *T) { t.X = 8 }
`),
		"p/p_test.go": []byte(`package p

import (
	"testing"

	"example.com/p/q"
)

func TestF(t *testing.T) {
	pt := &q.T{Xs: []int{0}}
	q.Set(pt)
	if F(q.T{}, pt, E{}, U{}, 0) != 0 {
		t.Error("F")
	}
}
`),
	})
	b := buildModule(t, dir, "TestF")
	field := map[string]int{} // by "site | operand"
	for _, s := range b.Sites() {
		for _, o := range s.Operands {
			field[s.Text+" | "+o.Text] = o.Field
		}
	}
	get := func(k string) int {
		t.Helper()
		f, ok := field[k]
		if !ok {
			t.Fatalf("no operand %q", k)
		}
		return f
	}
	tx := get("t.X = 8 | t.X")
	if tx == 0 {
		t.Fatal("q.T.X has no field id")
	}
	for _, k := range []string{"t.X = 1 | t.X", "e.X = 3 | e.X", "(*pt).X = 5 | (*pt).X"} {
		if f := get(k); f != tx {
			t.Errorf("%q has field %d, want q.T.X's %d", k, f, tx)
		}
	}
	if xs := get("pt.Xs[i] = 2 | pt.Xs[i]"); xs == 0 || xs == tx {
		t.Errorf("pt.Xs[i] has field %d, want q.T.Xs's, not 0 or q.T.X's %d", xs, tx)
	}
	if ux := get("u.X = 4 | u.X"); ux == 0 || ux == tx {
		t.Errorf("u.X has field %d, want U.X's, not 0 or q.T.X's %d", ux, tx)
	}
	if av, bv := get("a.v = 6 | a.v"), get(`b.v = "7" | b.v`); av == 0 || av != bv || av != get("n := len(b.v) | b.v") {
		t.Errorf("G[int].v and G[string].v have fields %d and %d, want one id", av, bv)
	}
	if f := get("n := len(b.v) | n"); f != 0 {
		t.Errorf("the local n has field %d", f)
	}
}
