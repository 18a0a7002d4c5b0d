package instrument

import (
	"context"
	"testing"
	"time"

	"github.com/culprit-dev/culprit/analyzer/trace"
)

// TestKeepTail traces a test that panics after far more events than a
// 4 MiB trace holds. Without KeepTail the recording stops when the file
// is full, and the panic is lost; with it the file is a ring, and the
// trace holds the run's last events: the panic, the call that made it with
// its argument, and the loop's last iterations, in a frame of TestX that
// began before the window.
func TestKeepTail(t *testing.T) {
	const src = `package p

func Step(x int) int { return x*7 + 1 }

func At(xs []int, i int) int { return xs[i] }
`
	const test = `package p

import "testing"

func TestX(t *testing.T) {
	n := 0
	for i := 0; i < 300000; i++ {
		n = Step(i) % 1000
	}
	At([]int{1, 2}, n)
}
`
	dir := writeTree(t, moduleP(src, test))
	run := func(keep bool) *trace.Trace {
		tr, err := Run(context.Background(), Config{Dir: dir, Pkg: "./p", Test: "TestX", Timeout: time.Minute,
			MaxBytes: 4 << 20, KeepTail: keep, TraceDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		if tr.Result.Passed {
			t.Fatalf("TestX passed under tracing:\n%s", tr.Result.Output)
		}
		return tr
	}
	panicAt := func(tr *trace.Trace) int {
		for i := len(tr.Events) - 1; i >= 0; i-- {
			if e := tr.Event(i); e.Kind == trace.EvPanic && e.Panic == trace.PanicIndex && tr.SiteOf(i).Func == "example.com/m/p.At" {
				return i
			}
		}
		return -1
	}

	first := run(false)
	if !first.Truncated || first.Wrapped || panicAt(first) >= 0 {
		t.Errorf("without KeepTail: truncated %v, wrapped %v, panic recorded %v; want a truncated trace without the panic",
			first.Truncated, first.Wrapped, panicAt(first) >= 0)
	}

	tr := run(true)
	if tr.Truncated || !tr.Wrapped {
		t.Fatalf("with KeepTail: truncated %v, wrapped %v; want wrapped only", tr.Truncated, tr.Wrapped)
	}
	p := panicAt(tr)
	if p < 0 {
		t.Fatalf("the wrapped trace has no index panic in At:\n%s", tail(dump(tr)))
	}
	at := tr.Frames[tr.Event(p).Frame]
	if at.Cut {
		t.Errorf("At's frame began in the window but is marked cut")
	}
	if w, ok := tr.Event(at.Entry).Write(1); !ok || w.Value.Int() != 994 {
		t.Errorf("At's entry writes i = %v (%v), want 994", w.Value.Int(), ok)
	}
	if at.Parent == 0 {
		t.Fatalf("At's frame has no parent")
	}
	test2 := tr.Frames[at.Parent]
	if !test2.Cut || tr.Site(test2.Func).Func != "example.com/m/p.TestX" || test2.Goroutine != at.Goroutine || test2.Goroutine == 0 {
		t.Errorf("At's parent: cut %v, func %s, goroutine %d (At's %d); want TestX's frame, cut, on At's goroutine",
			test2.Cut, tr.Site(test2.Func).Func, test2.Goroutine, at.Goroutine)
	}
	// The loop's last assignment, the value At was called with.
	last := -1
	for i := p; i >= 0; i-- {
		if e := tr.Event(i); e.Frame == at.Parent && e.Kind == trace.EvAssign && tr.SiteOf(i).Kind == trace.SiteAssign {
			last = i
			break
		}
	}
	if last < 0 {
		t.Fatalf("no assignment of TestX's loop in the window")
	}
	if ws := tr.Event(last).Writes; len(ws) != 1 || ws[0].Value.Int() != 994 {
		t.Errorf("the last `n = Step(i) %% 1000` writes %v, want n = 994", ws)
	}
	if n := len(tr.Events); n > 1000000 {
		t.Errorf("the 4 MiB window holds %d events, more than the file can", n)
	}
}
