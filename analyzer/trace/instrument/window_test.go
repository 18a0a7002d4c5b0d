package instrument

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/culprit-dev/culprit/analyzer/trace"
)

// TestTraceFrom traces a test whose failure comes after more events than
// a 1 MiB trace holds. The cut trace still places the failure by the test
// function's frame (Marks); traced again from a few of that frame's events
// before it, the run records the failing statement whole, from a frame of
// TestX that began before the window. A run of the fixed code started at
// the same count begins at the same statement, which is what lets the two
// be aligned.
func TestTraceFrom(t *testing.T) {
	const test = `package p

import "testing"

func TestX(t *testing.T) {
	for i := 0; i < 300; i++ {
		if Sum(1000) != 499500 {
			t.Fatal("bad sum")
		}
	}
	if got := Tri(3); got != 6 {
		t.Errorf("Tri(3) = %d", got)
	}
	for i := 0; i < 3; i++ {
		Sum(1000)
	}
}
`
	lib := func(tri string) string {
		return `package p

func Sum(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		s += i
	}
	return s
}

func Tri(n int) int {
	` + tri + `
}
`
	}
	failing := writeTree(t, moduleP(lib("return n * (n - 1) / 2"), test))
	passing := writeTree(t, moduleP(lib("return n * (n + 1) / 2"), test))
	run := func(dir string, from uint64) *trace.Trace {
		tr, err := Run(context.Background(), Config{Dir: dir, Pkg: "./p", Test: "TestX", Timeout: time.Minute,
			MaxBytes: 1 << 20, From: from, TraceDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}

	cut := run(failing, 0)
	if !cut.Truncated || len(cut.Marks) != 1 || cut.Marks[0].Site == 0 || !strings.Contains(cut.Site(cut.Marks[0].Site).Text, "Errorf") {
		t.Fatalf("the 1 MiB trace: truncated %v, marks %v; want truncated, with the Errorf marked", cut.Truncated, cut.Marks)
	}
	k := cut.Marks[0].Events
	from := k - 3

	tr := run(failing, from)
	if tr.Truncated || tr.From != from || tr.Result.Passed {
		t.Fatalf("traced from %d: truncated %v, from %d, passed %v", from, tr.Truncated, tr.From, tr.Result.Passed)
	}
	if fails := tr.Failures(); len(fails) != 1 || !strings.Contains(tr.SiteOf(fails[0]).Text, "Errorf") {
		t.Fatalf("failures %v, want the Errorf:\n%s", tr.Failures(), tail(dump(tr)))
	}
	var tri *trace.Frame
	for i := range tr.Frames[1:] {
		if f := &tr.Frames[i+1]; tr.Site(f.Func).Func == "example.com/m/p.Tri" {
			tri = f
		}
	}
	if tri == nil || tri.Cut || tri.Parent == 0 {
		t.Fatalf("no frame of Tri entered in the window, called from the test:\n%s", dump(tr))
	}
	if w, ok := tr.Event(tri.Entry).Write(0); !ok || w.Value.Int() != 3 {
		t.Errorf("Tri's entry writes n = %v (%v), want 3", w.Value.Int(), ok)
	}
	if top := tr.Frames[tri.Parent]; !top.Cut || tr.Site(top.Func).Func != "example.com/m/p.TestX" {
		t.Errorf("Tri's caller: %s, cut %v; want TestX's frame, cut", tr.Site(top.Func).Func, top.Cut)
	}
	if n := len(tr.Events); n > 20000 {
		t.Errorf("the window holds %d events, more than the three sums after the failure make", n)
	}

	ok := run(passing, from)
	if !ok.Result.Passed || ok.Truncated {
		t.Fatalf("the fixed code traced from %d: passed %v, truncated %v", from, ok.Result.Passed, ok.Truncated)
	}
	if a, b := tr.SiteOf(0).Pos, ok.SiteOf(0).Pos; a != b {
		t.Errorf("the windows start at %s and %s, want the same statement", a, b)
	}
}
