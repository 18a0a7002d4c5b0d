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

// TestKeepTailGoroutines fills a 4 MiB ring from four goroutines at once,
// each counting up in a loop of its own, so that blocks of different
// frames interleave, straddle chunk ends and are reserved again on later
// laps. The trace the ring keeps must read whole, and each goroutine's
// kept assignments must count up by one without a gap or a repeat: a
// block read from the wrong lap, a pad read as records or a record left
// over from a lap before would break the count.
func TestKeepTailGoroutines(t *testing.T) {
	const src = `package p

import "sync"

// Count counts to n in each of k goroutines; each keeps its own total.
func Count(k, n int) []int {
	out := make([]int, k)
	var wg sync.WaitGroup
	for g := 0; g < k; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			c := 0
			for i := 0; i < n; i++ {
				c = c + 1
			}
			out[g] = c
		}(g)
	}
	wg.Wait()
	return out
}
`
	const test = `package p

import "testing"

func TestX(t *testing.T) {
	if got := Count(4, 200000); got[0] != 0 {
		t.Fatalf("counted %d", got[0])
	}
}
`
	dir := writeTree(t, moduleP(src, test))
	tr, err := Run(context.Background(), Config{Dir: dir, Pkg: "./p", Test: "TestX", Timeout: time.Minute,
		MaxBytes: 4 << 20, KeepTail: true, TraceDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Result.Passed || tr.Truncated || !tr.Wrapped {
		t.Fatalf("passed %v, truncated %v, wrapped %v; want a failing run in a wrapped, whole trace", tr.Result.Passed, tr.Truncated, tr.Wrapped)
	}
	if fs := tr.Failures(); len(fs) == 0 || tr.Event(fs[0]).Kind != trace.EvFail {
		t.Fatalf("failures %v, want the Fatalf first", fs)
	}
	last := map[trace.FrameID]int64{} // each loop's last count seen
	counted := 0
	for i := range tr.Events {
		e := tr.Event(i)
		if e.Kind != trace.EvAssign || tr.SiteOf(i).Text != "c = c + 1" || len(e.Writes) != 1 {
			continue
		}
		c := e.Writes[0].Value.Int()
		if prev, ok := last[e.Frame]; ok && c != prev+1 {
			t.Fatalf("event %d: frame %d counts %d after %d", i, e.Frame, c, prev)
		}
		last[e.Frame] = c
		counted++
	}
	if len(last) == 0 || counted < 1000 {
		t.Fatalf("%d counting steps in %d frames kept, want the loops' last ones", counted, len(last))
	}
	for f, c := range last {
		if fr := tr.Frames[f]; c != 200000 && fr.Exit >= 0 {
			t.Errorf("frame %d returned after counting to %d, want 200000", f, c)
		}
	}
}
