package contrast

import (
	"strings"
	"testing"
)

// TestPathFollowsMemoryIntoUntracedCode: the change links a list node's
// next field on another node. A function too long to instrument walks
// the list, so no traced read sees the link, and the pointers the test
// holds have the same shape in both runs. The path goes from the
// untraced call's other result to the traced write that linked another
// object (`prev.Next = …` with prev another node) and on, through the
// pointer that chose it, to the changed line.
func TestPathFollowsMemoryIntoUntracedCode(t *testing.T) {
	var walk strings.Builder
	walk.WriteString("package p\n\nfunc Walk(n *Node) int {\n\tc, x := 0, 0\n")
	for i := 0; i < 1600; i++ {
		walk.WriteString("\tx++\n")
	}
	walk.WriteString("\tfor ; n != nil; n = n.Next {\n\t\tc++\n\t}\n\treturn c + x - x\n}\n")
	src := func(pick string) map[string]string {
		return map[string]string{
			"go.mod":    "module example.com/m\n\ngo 1.22\n",
			"p/walk.go": walk.String(),
			"p/p.go": `package p

type Node struct {
	V    int
	Next *Node
}

func Build(n int) *Node {
	nodes := make([]*Node, n)
	for i := range nodes {
		nodes[i] = &Node{V: i}
	}
	for i := 0; i+1 < n; i++ {
		prev := last(nodes, i)
		prev.Next = nodes[i+1]
	}
	return nodes[0]
}

func last(nodes []*Node, i int) *Node {
	return ` + pick + `
}
`,
			"p/p_test.go": `package p

import "testing"

func TestWalk(t *testing.T) {
	head := Build(3)
	got := Walk(head)
	if got != 3 {
		t.Fatalf("walked %d nodes", got)
	}
}
`,
		}
	}
	c, p := pathReaches(t, src("nodes[i]"), src("nodes[i/2]"), "TestWalk",
		"prev.Next = nodes[i+1]", "prev := last(nodes, i)", "got := Walk(head)")
	// The report names objects alike across the runs: the node the
	// change picked is not the one the passing run picked.
	for _, s := range p.Steps {
		st := c.Statement(s)
		if st.Text != "prev := last(nodes, i)" {
			continue
		}
		if st.Passing == nil || st.Values["prev"] == "" || st.Values["prev"] == st.Passing.Values["prev"] {
			t.Errorf("prev is %q with the change and %+v without: want two objects", st.Values["prev"], st.Passing)
		}
	}
}
