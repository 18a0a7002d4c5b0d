package instrument

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/culprit-dev/culprit/analyzer/trace"
)

// probeModule's test enters lib.Used, never lib.Unused, and then panics,
// as failing regression tests often do.
var probeModule = map[string][]byte{
	"go.mod": []byte("module example.com/m\n\ngo 1.22\n"),
	"lib/lib.go": []byte(`package lib

var Base = 40

func Used(n int) int {
	return Base + n
}

func Unused(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		s += i
	}
	return s
}
`),
	"p/p.go": []byte(`package p

import "example.com/m/lib"

func Get(m map[string]int, k string) int {
	return lib.Used(m[k])
}
`),
	"p/p_test.go": []byte(`package p

import (
	"testing"

	"example.com/m/lib"
)

func TestX(t *testing.T) {
	var m map[string]int
	if Get(m, "a") != 40 {
		t.Fatal("wrong")
	}
	m["a"] = 2 // assignment to entry in nil map
}

func TestOther(t *testing.T) {
	_ = Get(nil, "b")
}

func TestSum(t *testing.T) {
	if lib.Unused(3) != 3 {
		t.Fatal("sum")
	}
}
`),
}

// TestProbe traces a panicking test with and without the probe. With it,
// the function the test never entered is left uninstrumented and counted,
// the entered one is traced as before, and the run's events are the same,
// as the left function has none. Given the probed trace's functions by
// name, a build instruments the same ones.
func TestProbe(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs test binaries")
	}
	defer func(n int) { probeMinBytes = n }(probeMinBytes)
	probeMinBytes = 0 // the module is small; the probe runs whatever its size
	dir := writeTree(t, probeModule)
	traced := func(probe bool, funcs map[string]bool) *trace.Trace {
		tr, err := Run(context.Background(), Config{Dir: dir, Pkg: "./p", Test: "TestX", Timeout: time.Minute, TraceDir: t.TempDir(),
			Probe: probe, Functions: funcs})
		if err != nil {
			t.Fatal(err)
		}
		if tr.Result.Passed {
			t.Fatalf("TestX passed under tracing:\n%s", tr.Result.Output)
		}
		return tr
	}
	full, probed := traced(false, nil), traced(true, nil)
	// A build told the probed build's functions instruments the same.
	same := traced(false, probed.Functions())
	if full.Unentered != 0 {
		t.Errorf("without the probe, %d functions unentered", full.Unentered)
	}
	if probed.Unentered != 1 {
		t.Errorf("with the probe, %d functions unentered, want 1 (lib.Unused)", probed.Unentered)
	}
	for f, want := range map[string]bool{
		"example.com/m/lib.Used":   true,
		"example.com/m/lib.Unused": false,
		"example.com/m/p.Get":      true,
		"example.com/m/p.TestX":    true,
	} {
		if !full.Functions()[f] {
			t.Errorf("without the probe, %s is not instrumented", f)
		}
		if got := probed.Functions()[f]; got != want {
			t.Errorf("with the probe, %s instrumented: %v, want %v", f, got, want)
		}
		if got := same.Functions()[f]; got != want {
			t.Errorf("given the probed functions, %s instrumented: %v, want %v", f, got, want)
		}
	}
	kinds := func(tr *trace.Trace) string {
		var b strings.Builder
		for i := range tr.Events {
			// Kinds and statements: a pointer's value differs from run to run.
			fmt.Fprintf(&b, "%v %s\n", tr.Event(i).Kind, tr.SiteOf(i).Text)
		}
		return b.String()
	}
	if kinds(full) != kinds(probed) {
		t.Errorf("the probed run's events differ:\nwithout the probe:\n%s\nwith it:\n%s", kinds(full), kinds(probed))
	}
	if kinds(same) != kinds(probed) {
		t.Errorf("the run given the probed functions differs:\n%s\nprobed:\n%s", kinds(same), kinds(probed))
	}
}

// TestProbeWithFunctions traces another test given the functions of a
// probed trace and a probe of its own: both the named functions and the
// ones only this test enters are instrumented, so code that ran on one
// side of a comparison only is traced.
func TestProbeWithFunctions(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs test binaries")
	}
	defer func(n int) { probeMinBytes = n }(probeMinBytes)
	probeMinBytes = 0
	dir := writeTree(t, probeModule)
	run := func(test string, probe bool, funcs map[string]bool) *trace.Trace {
		tr, err := Run(context.Background(), Config{Dir: dir, Pkg: "./p", Test: test, Timeout: time.Minute, TraceDir: t.TempDir(),
			Probe: probe, Functions: funcs})
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	probed := run("TestX", true, nil)
	named := run("TestSum", false, probed.Functions())
	both := run("TestSum", true, probed.Functions())
	if !both.Result.Passed {
		t.Fatalf("TestSum did not pass:\n%s", both.Result.Output)
	}
	for f, want := range map[string][2]bool{ // named only, named and probed
		"example.com/m/lib.Used":   {true, true},
		"example.com/m/lib.Unused": {false, true},
		"example.com/m/p.Get":      {true, true},
	} {
		if got := named.Functions()[f]; got != want[0] {
			t.Errorf("given the probed functions, %s instrumented: %v, want %v", f, got, want[0])
		}
		if got := both.Functions()[f]; got != want[1] {
			t.Errorf("given the probed functions and a probe, %s instrumented: %v, want %v", f, got, want[1])
		}
	}
	loop := func(tr *trace.Trace) bool {
		for i := range tr.Events {
			if strings.Contains(tr.SiteOf(i).Text, "s += i") {
				return true
			}
		}
		return false
	}
	if loop(named) || !loop(both) {
		t.Errorf("lib.Unused's loop traced: %v given the names alone, %v with the probe too; want false, true", loop(named), loop(both))
	}
	if both.Unentered != 0 {
		t.Errorf("%d functions left unentered, want 0: TestSum enters lib.Unused, TestX the rest", both.Unentered)
	}
}

// TestNarrowTests traces a test whose helper, in the test file, loops,
// given one function by name: without NarrowTests the test files are
// instrumented whole, helper included; with it only the test function and
// the named function are, the helper is observed at its call, and the
// test's failure is still recorded.
func TestNarrowTests(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs test binaries")
	}
	dir := writeTree(t, map[string][]byte{
		"go.mod": []byte("module example.com/m\n\ngo 1.22\n"),
		"p/p.go": []byte("package p\n\nfunc Scale(n int) int {\n\treturn 3 * n\n}\n\nfunc Other(n int) int {\n\treturn n + 1\n}\n"),
		"p/p_test.go": []byte(`package p

import "testing"

func spin(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		s += Other(i)
	}
	return s
}

func TestScale(t *testing.T) {
	_ = spin(50)
	if got := Scale(2); got != 4 {
		t.Fatalf("Scale(2) = %d", got)
	}
}
`),
	})
	run := func(narrow bool) *trace.Trace {
		tr, err := Run(context.Background(), Config{Dir: dir, Pkg: "./p", Test: "TestScale", Timeout: time.Minute, TraceDir: t.TempDir(),
			Functions: map[string]bool{"example.com/m/p.Scale": true}, NarrowTests: narrow})
		if err != nil {
			t.Fatal(err)
		}
		if tr.Result.Passed || len(tr.Failures()) == 0 {
			t.Fatalf("narrow %v: the trace records no failure:\n%s", narrow, tr.Result.Output)
		}
		return tr
	}
	whole, narrowed := run(false), run(true)
	for f, want := range map[string][2]bool{ // test files whole, narrowed
		"example.com/m/p.Scale":     {true, true},
		"example.com/m/p.Other":     {false, false},
		"example.com/m/p.spin":      {true, false},
		"example.com/m/p.TestScale": {true, true},
	} {
		if got := whole.Functions()[f]; got != want[0] {
			t.Errorf("test files whole: %s instrumented: %v, want %v", f, got, want[0])
		}
		if got := narrowed.Functions()[f]; got != want[1] {
			t.Errorf("test files narrowed: %s instrumented: %v, want %v", f, got, want[1])
		}
	}
	loops := func(tr *trace.Trace) int {
		n := 0
		for i := range tr.Events {
			if strings.Contains(tr.SiteOf(i).Text, "s += Other(i)") {
				n++
			}
		}
		return n
	}
	if loops(whole) != 50 || loops(narrowed) != 0 {
		t.Errorf("the helper's loop recorded %d times with the test files whole (want 50), %d narrowed (want 0)", loops(whole), loops(narrowed))
	}
}
