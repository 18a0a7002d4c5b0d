package instrument

import (
	"fmt"
	"testing"

	"github.com/culprit-dev/culprit/analyzer/trace"
)

// An assertion library the tracer does not enter (a module of its own)
// fails the test by calling t.Errorf, or t.Fail and a panic that its own
// wrapper recovers, as goconvey's So does. The trace records the failure
// at the test's statement that called it, with that statement's reads,
// and only once; a failure at a fail site of the test's code stays that
// site's alone. A test helper outside the test files that takes the
// testing.T watches too, closures inside it included.
func TestWatchFailureInUntracedLibrary(t *testing.T) {
	lib := `package lib

import "testing"

type halt struct{}

// Check reports a mismatch and goes on.
func Check(t *testing.T, got, want int) {
	if got != want {
		t.Errorf("got %d, want %d", got, want)
	}
}

// So reports a mismatch and stops the enclosing Convey.
func So(t *testing.T, got, want int) {
	if got != want {
		t.Fail()
		panic(halt{})
	}
}

// Convey runs f, recovering So's halt.
func Convey(t *testing.T, f func()) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(halt); !ok {
				panic(r)
			}
		}
	}()
	f()
}
`
	tests := `package p

import (
	"testing"

	"example.com/lib"
	"example.com/m/testutil"
)

func Sum(a, b int) int { return a + b }

func TestCheck(t *testing.T) {
	lib.Check(t, Sum(1, 1), 2)
	got := Sum(2, 2)
	lib.Check(t, got, 5)
	_ = Sum(got, 1)
}

func TestConvey(t *testing.T) {
	lib.Convey(t, func() {
		lib.So(t, Sum(1, 1), 2)
		n := Sum(3, 3)
		lib.So(t, n, 7)
		_ = Sum(n, 1)
	})
	_ = Sum(0, 0)
}

func TestExplicit(t *testing.T) {
	got := Sum(2, 2)
	if got != 5 {
		t.Errorf("got %d", got)
	}
	lib.Check(t, got, 4)
	_ = Sum(got, 1)
}

func TestHelper(t *testing.T) {
	testutil.Expect(t, Sum(2, 2))
	_ = Sum(0, 0)
}
`
	util := `package testutil

import (
	"testing"

	"example.com/lib"
)

// Expect checks that got is 5, the way the tests want it.
func Expect(t *testing.T, got int) {
	each(func() {
		lib.Check(t, got, 5)
	})
}

func each(f func()) { f() }
`
	dir := writeTree(t, map[string][]byte{
		"go.mod":           []byte("module example.com/m\n\ngo 1.22\n\nrequire example.com/lib v0.0.0\n\nreplace example.com/lib => ./lib\n"),
		"lib/go.mod":       []byte("module example.com/lib\n\ngo 1.22\n"),
		"lib/lib.go":       []byte(lib),
		"p/p_test.go":      []byte(tests),
		"testutil/util.go": []byte(util),
	})
	for _, c := range []struct {
		test string
		file string
		line int
		read string // a read of the failure event: text = value
	}{
		{"TestCheck", "p/p_test.go", 15, "got = 4"},
		{"TestConvey", "p/p_test.go", 23, "n = 6"},
		{"TestExplicit", "p/p_test.go", 32, ""},
		// A helper outside the test files, which takes the testing.T,
		// calls the library from a closure.
		{"TestHelper", "testutil/util.go", 12, "got = 4"},
	} {
		t.Run(c.test, func(t *testing.T) {
			tr := runTrace(t, dir, "./p", c.test)
			fails := tr.Failures()
			var at []string
			for _, f := range fails {
				at = append(at, tr.SiteOf(f).Pos.String())
			}
			if len(fails) != 1 {
				t.Fatalf("failures at %v, want one at %s:%d", at, c.file, c.line)
			}
			ev, s := tr.Event(fails[0]), tr.SiteOf(fails[0])
			if ev.Kind != trace.EvFail || s.Pos.File != c.file || s.Pos.Line != c.line {
				t.Fatalf("failure %v at %v, want a failure event at %s:%d", ev.Kind, at, c.file, c.line)
			}
			if c.read == "" {
				return
			}

			var reads []string
			for _, it := range ev.Reads {
				reads = append(reads, fmt.Sprintf("%s = %s", s.Operands[it.Slot].Text, it.Value.String()))
			}
			if !contains(reads, c.read) {
				t.Errorf("failure's reads %q, want %q among them", reads, c.read)
			}
		})
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
