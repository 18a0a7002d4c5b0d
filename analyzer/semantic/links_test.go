package semantic

import (
	"testing"

	"golang.org/x/tools/txtar"
)

const linksModule = `
-- go.mod --
module example.com/links

go 1.22
-- links/links.go --
package links

import "errors"

func Parse(n int) (int, error) {
	if n <= 0 {
		return 0, errors.New("bad")
	}
	return n, nil
}

func Total(x int) int {
	return x + Fee(x)
}

func Fee(x int) int {
	return x / 10
}

func Mid(xs []int) int {
	mid := (len(xs) + 1) / 2
	return xs[mid]
}

type Node struct {
	Val  int
	Next *Node
}

func Find(xs []int, v int) *Node {
	var hit *Node
	for _, x := range xs {
		if x == v {
			hit = &Node{Val: x}
		}
	}
	return hit
}

func Second(n *Node) int {
	return n.Next.Val
}

func Val(n *Node) int {
	return n.Val
}
-- links/links_test.go --
package links

import "testing"

func TestParse(t *testing.T) {
	n, err := Parse(0)
	if err != nil {
		t.Fatalf("Parse: %v (%d)", err, n)
	}
}

func TestTotal(t *testing.T) {
	if got := Total(100); got != 100 {
		t.Errorf("Total = %d", got)
	}
}

func TestMid(t *testing.T) {
	if Mid([]int{7}) != 7 {
		t.Error("mid")
	}
}

func TestSecond(t *testing.T) {
	head := &Node{Val: 1}
	head.Next = Find([]int{2}, 3)
	if Second(head) != 2 {
		t.Error("second")
	}
}

func TestVal(t *testing.T) {
	if Val(Find([]int{2}, 3)) != 3 {
		t.Error("val")
	}
}
`

// TestLinks checks, on real traces, the links from a call's results to
// the callee's return (several results; a read made before a call in the
// same statement), a runtime panic's implicit check as the target, and
// nil dereferences.
func TestLinks(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs traced test binaries")
	}
	dir := writeTree(t, txtar.Parse([]byte(linksModule)), "")
	for _, tc := range []struct {
		test     string
		want     []string
		nilDeref bool // the target is the dereferenced pointer being nil
	}{
		{"TestParse", []string{"return 0, errors.New(\"bad\")", "n, err := Parse(0)", "err != nil"}, false},
		{"TestTotal", []string{"return x / 10", "return x + Fee(x)", "got != 100"}, false},
		{"TestMid", []string{"mid := (len(xs) + 1) / 2", "return xs[mid]"}, false},
		// Nil dereferences: of a pointer read from memory, and of a local.
		{"TestSecond", []string{"var hit *Node", "return hit", "head.Next = Find([]int{2}, 3)", "return n.Next.Val"}, true},
		{"TestVal", []string{"var hit *Node", "return hit", "return n.Val"}, true},
	} {
		t.Run(tc.test, func(t *testing.T) {
			ctx := t.Context()
			tr := traceFailing(t, dir, "./links", tc.test)
			// What panicked comes from the trace, not from the text the
			// test printed.
			tr.Result.Output = ""
			a := New(tr, dir, Setup{})
			tg, err := a.Failure()
			if err != nil {
				t.Fatal(err)
			}
			if got := tg.pred == predNilDeref; got != tc.nilDeref {
				t.Errorf("target of kind %v, nil dereference %v, want %v", tg.pred, got, tc.nilDeref)
			}
			if tg.pred != predNone {
				checkInvariant(t, a, tg)
			}
			c, err := a.Cause(ctx, tg)
			if err != nil {
				t.Fatal(err)
			}
			got := texts(a, c)
			for _, want := range tc.want {
				if !containsText(got, want) {
					t.Errorf("cause %q lacks %q", got, want)
				}
			}
		})
	}
}
