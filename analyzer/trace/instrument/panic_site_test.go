package instrument

import (
	"strings"
	"testing"

	"github.com/culprit-dev/culprit/analyzer/trace"
)

// TestPanicInCondition: a panic inside a condition that no statement
// marker precedes (an if's after its init statement, an else if's, a
// loop's on a later iteration, a tagless case's) is the condition's: the
// panic event has the condition's site, so the reads pending in it are
// named by the condition's operands. Before, they were decoded against the
// statement marked last, with its operands' names: `v = true` for a
// reflect.Value.
func TestPanicInCondition(t *testing.T) {
	dir := writeTree(t, map[string][]byte{
		"go.mod": []byte("module example.com/p\n\ngo 1.22\n"),
		"p/p.go": []byte(`package p

import "reflect"

type word string

func Init(x any) bool {
	if v := reflect.ValueOf(x); !v.IsValid() || v.IsNil() {
		return true
	}
	return false
}

func ElseIf(x any, n int) bool {
	if n > 10 {
		return true
	} else if v := reflect.ValueOf(x); v.IsNil() {
		return false
	}
	return true
}

type node struct{ next *node }

func Loop(n *node) int {
	k := 0
	for n.next != nil {
		k++
		n = n.next.next
	}
	return k
}

func Case(x any) int {
	switch v := reflect.ValueOf(x); {
	case v.IsNil():
		return 1
	}
	return 0
}
`),
		"p/p_test.go": []byte(`package p

import "testing"

func run(f func()) (failed bool) {
	defer func() { failed = recover() != nil }()
	f()
	return false
}

func TestP(t *testing.T) {
	if !run(func() { Init(word("w")) }) || !run(func() { ElseIf(word("w"), 1) }) ||
		!run(func() { Loop(&node{next: &node{}}) }) || !run(func() { Case(word("w")) }) {
		t.Fatal("each call should panic")
	}
}
`),
	})
	tr := tracePassing(t, dir, "./p", "TestP")
	want := map[string]string{
		"Init":   "!v.IsValid() || v.IsNil()",
		"ElseIf": "v.IsNil()",
		"Loop":   "n.next != nil",
		"Case":   "v.IsNil()",
	}
	got := map[string]string{}
	for i, e := range tr.Events {
		if e.Kind != trace.EvPanic || tr.SiteOf(i).Pos.File != "p/p.go" {
			continue
		}
		s := tr.SiteOf(i)
		fn := s.Func[strings.LastIndex(s.Func, ".")+1:]
		got[fn] = s.Text
		for _, r := range e.Reads {
			if name := s.Operands[r.Slot].Text; (name == "v" || name == "n" || name == "n.next") && r.Value.Kind == trace.ValBool {
				t.Errorf("%s: the panic reads %s as a bool (%s)", fn, name, describe(tr, i))
			}
		}
	}
	for fn, text := range want {
		if got[fn] != text {
			t.Errorf("%s panics at %q, want the condition %q", fn, got[fn], text)
		}
	}
}
