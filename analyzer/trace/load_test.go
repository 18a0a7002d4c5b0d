package trace

import (
	"context"
	"testing"
	"time"
)

// variantModule's test build compiles b again for a's test: a's external
// test imports b, b imports a, and a has internal test files. The traced
// build must type-check b against a's test variant, not a's plain package.
var variantModule = map[string][]byte{
	"go.mod": []byte("module example.com/v\n\ngo 1.22\n"),
	"a/a.go": []byte(`package a

type Count int

func F() Count { return 1 }
`),
	"a/internal_test.go": []byte(`package a

var offset Count = 1
`),
	"b/b.go": []byte(`package b

import "example.com/v/a"

func G() a.Count {
	return a.F() + 1
}
`),
	"a/a_test.go": []byte(`package a_test

import (
	"testing"

	"example.com/v/a"
	"example.com/v/b"
)

func TestG(t *testing.T) {
	if got := b.G() + a.F(); got != 4 {
		t.Fatalf("G()+F() = %d, want 4", got)
	}
}
`),
}

// TestLoadTestVariant traces a test whose build recompiles a dependency
// for the test, with every package instrumented and with the test's own
// only: each build compiles with nothing left out, and instruments
// exactly the functions of the packages selected.
func TestLoadTestVariant(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs test binaries")
	}
	dir := writeTree(t, variantModule)
	for _, tc := range []struct {
		name     string
		packages []string
		want     map[string]bool
	}{
		{"all", nil, map[string]bool{"example.com/v/a.F": true, "example.com/v/b.G": true}},
		{"own", []string{"a"}, map[string]bool{"example.com/v/a.F": true, "example.com/v/b.G": false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := Run(context.Background(), Config{Dir: dir, Pkg: "./a", Test: "TestG", Timeout: time.Minute,
				TraceDir: t.TempDir(), Packages: tc.packages})
			if err != nil {
				t.Fatal(err)
			}
			if !tr.Result.Failed {
				t.Fatalf("TestG did not fail under tracing:\n%s", tr.Result.Output)
			}
			for _, s := range tr.Skipped {
				t.Errorf("left untraced: %s: %s", s.Pos.File, s.Reason)
			}
			for f, want := range tc.want {
				if got := tr.Functions()[f]; got != want {
					t.Errorf("%s instrumented: %v, want %v", f, got, want)
				}
			}
			if len(tr.Failures()) == 0 {
				t.Errorf("the trace records no failure")
			}
		})
	}
}
