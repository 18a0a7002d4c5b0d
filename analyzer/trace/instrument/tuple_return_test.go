package instrument

import (
	"strings"
	"testing"
)

// TestTupleReturnPanic: a panic during `return f()` whose call yields
// several results is the frame's panic, not a normal return. Were the
// return marked before the call, every frame returning that way would
// look as if it had recovered, and the failure would be placed at the
// test's own statement rather than where the program panicked.
func TestTupleReturnPanic(t *testing.T) {
	dir := writeTree(t, map[string][]byte{
		"go.mod": []byte("module example.com/m\n\ngo 1.22\n"),
		"p/p.go": []byte(`package p

import "io"

type T struct {
	next *T
	v    int
}

func get(t *T) (int, error) {
	return t.next.v, nil
}

func viaGet(t *T) (int, error) {
	return get(t)
}

func read(r io.Reader) (int, error) {
	buf := make([]byte, 4)
	return r.Read(buf)
}

func viaRead(r io.Reader) (int, error) {
	return read(r)
}

func Fine(t *T) (int, error) {
	return get(t)
}
`),
		"p/p_test.go": []byte(`package p

import "testing"

func TestFine(t *testing.T) {
	if v, err := Fine(&T{next: &T{v: 3}}); v != 3 || err != nil {
		t.Fatal(v, err)
	}
}

func TestGet(t *testing.T) {
	viaGet(&T{})
}

func TestRead(t *testing.T) {
	viaRead(nil)
}
`),
	})
	tr := tracePassing(t, dir, "./p", "TestFine")
	if !hasEvent(tr, "return return get(t)") {
		t.Error("the normal return through `return get(t)` is not recorded")
	}
	for _, c := range []struct{ test, at string }{
		{"TestGet", "return t.next.v, nil"},
		{"TestRead", "return r.Read(buf)"},
	} {
		t.Run(c.test, func(t *testing.T) {
			tr := runTrace(t, dir, "./p", c.test)
			if !tr.Result.Failed {
				t.Fatalf("%s should fail under tracing:\n%s", c.test, tr.Result.Output)
			}
			fs := tr.Failures()
			if len(fs) != 1 {
				t.Fatalf("failures = %d, want 1", len(fs))
			}
			if got := describe(tr, fs[0]); !strings.HasPrefix(got, "panic "+c.at) {
				t.Errorf("failure at %q, want the panic at %q", got, c.at)
			}
			for i := range tr.Events {
				if d := describe(tr, i); strings.HasPrefix(d, "return return get(t)") || strings.HasPrefix(d, "return return read(r)") {
					t.Errorf("a frame the panic unwound through returned: %s", d)
				}
			}
		})
	}
}
