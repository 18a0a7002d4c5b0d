package instrument

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/culprit-dev/culprit/analyzer/trace"
)

// TestPanicKind traces failing tests that panic in different ways and
// checks the kind recorded with every frame's abnormal exit: the frame
// where the check failed and the frames the panic unwinds through.
func TestPanicKind(t *testing.T) {
	const src = `package p

type Node struct{ Next *Node; Val int }

func Second(n *Node) int { return n.Next.Val }

func At(xs []int, i int) int { return xs[i] }

func Div(a, b int) int { return a / b }

func Check(ok bool) {
	if !ok {
		panic("check failed")
	}
}
`
	for _, tc := range []struct {
		name, body string
		want       trace.PanicKind
	}{
		{"nil-deref", `Second(&Node{Val: 1})`, trace.PanicNilDeref},
		{"index", `At([]int{1, 2}, 2)`, trace.PanicIndex},
		{"divide", `Div(1, 0)`, trace.PanicRuntime},
		{"user", `Check(false)`, trace.PanicUser},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeTree(t, moduleP(src, "package p\n\nimport \"testing\"\n\nfunc TestX(t *testing.T) {\n\t"+tc.body+"\n}\n"))
			tr := runTrace(t, dir, "./p", "TestX")
			if tr.Result.Passed {
				t.Fatalf("TestX passed under tracing:\n%s", tr.Result.Output)
			}
			var got []trace.PanicKind
			for i := range tr.Events {
				if e := tr.Event(i); e.Kind == trace.EvPanic {
					got = append(got, e.Panic)
				}
			}
			// The callee's frame, then TestX's.
			if diff := cmp.Diff([]trace.PanicKind{tc.want, tc.want}, got); diff != "" {
				t.Errorf("panic kinds (-want +got):\n%s\n%s", diff, dump(tr))
			}
		})
	}
}

// TestPanicKindGoexit checks that t.FailNow, which ends the test's
// goroutine without a panic, records no panic kind.
func TestPanicKindGoexit(t *testing.T) {
	dir := writeTree(t, moduleP("package p\n\nfunc One() int { return 1 }\n", "package p\n\nimport \"testing\"\n\nfunc TestX(t *testing.T) {\n\tif One() != 2 {\n\t\tt.FailNow()\n\t}\n}\n"))
	tr := runTrace(t, dir, "./p", "TestX")
	n := 0
	for i := range tr.Events {
		if e := tr.Event(i); e.Kind == trace.EvPanic {
			n++
			if e.Panic != trace.PanicNone {
				t.Errorf("event %d: panic kind %v, want none\n%s", i, e.Panic, dump(tr))
			}
		}
	}
	if n == 0 {
		t.Fatalf("no abnormal exit recorded for t.FailNow:\n%s", dump(tr))
	}
}
