package trace

import "testing"

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
	reads := map[string]Operand{}
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
