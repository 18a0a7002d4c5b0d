package diffhunks

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFunc(t *testing.T) {
	base := `package p

type T struct{}

type G[K any] struct{}

func F() int {
	return 1
}

func (T) M() int {
	return 1
}

func (t *T) P() int {
	x := 1
	return x
}

func (g *G[K]) Q() int {
	return 1
}

var v = 1
`
	head := `package p

type T struct{}

type G[K any] struct{}

func F() int {
	return 2
}

func (T) M() int {
	return 2
}

func (t *T) P() int {
	return 1
}

func (g *G[K]) Q() int {
	return 2
}

var v = 2
`
	s, err := FromFiles(files("p.go", base), files("p.go", head))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, h := range s.Hunks() {
		got = append(got, h.Func)
	}
	// P's hunk deletes "x := 1" and rewrites the return: one Modify hunk.
	want := []string{"F", "T.M", "(*T).P", "(*G).Q", ""}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("funcs (-want +got):\n%s", diff)
	}
}

func TestFuncPureDeletionUsesBase(t *testing.T) {
	base := "package p\n\nfunc F() {\n\tprintln(1)\n\tprintln(2)\n}\n"
	head := "package p\n\nfunc F() {\n\tprintln(1)\n}\n"
	s, err := FromFiles(files("p.go", base), files("p.go", head))
	if err != nil {
		t.Fatal(err)
	}
	h, _ := s.Hunk(1)
	if h.Head.Len() != 0 || h.Func != "F" {
		t.Errorf("hunk = %+v, want a pure deletion in F", h)
	}
}

func TestFuncUnparseable(t *testing.T) {
	base := "package p\n\nfunc F() {\n\treturn\n}\n"
	head := "package p\n\nfunc F() {\n\treturn (\n}\n"
	s, err := FromFiles(files("p.go", base), files("p.go", head))
	if err != nil {
		t.Fatal(err)
	}
	if h, _ := s.Hunk(1); h.Func != "" {
		t.Errorf("Func in an unparseable file = %q, want empty", h.Func)
	}
}

func TestFuncNotGo(t *testing.T) {
	src := "func F() {\n\treturn 1\n}\n"
	s, err := FromFiles(files("p.txt", src), files("p.txt", src+"x\n"))
	if err != nil {
		t.Fatal(err)
	}
	if h, _ := s.Hunk(1); h.Func != "" || h.IsGo() {
		t.Errorf("non-Go hunk: Func %q, IsGo %v", h.Func, h.IsGo())
	}
}
