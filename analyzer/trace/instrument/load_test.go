package instrument

import (
	"context"
	"maps"
	"strings"
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

// idleModule's test TestIn, in a's internal test files, passes only when
// something sets a.Flag before it runs; a's external test package
// (out_test.go, added by each case of TestIdleExternalTest) may.
var idleModule = map[string][]byte{
	"go.mod": []byte("module example.com/x\n\ngo 1.22\n"),
	"a/a.go": []byte(`package a

var Flag int

func F() int { return Flag + 1 }
`),
	"a/in_test.go": []byte(`package a

import "testing"

func TestIn(t *testing.T) {
	if got := F(); got != 2 {
		t.Fatalf("F() = %d, want 2", got)
	}
}
`),
	"c/c.go": []byte(`package c

import "example.com/x/a"

func init() { a.Flag = 1 }
`),
}

// TestIdleExternalTest traces TestIn beside external test packages that
// it needs nothing of, and beside ones whose initialisation or tests it
// does need: only the first is built empty (its helper is not
// instrumented), and every run has the outcome of the plain test.
func TestIdleExternalTest(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs test binaries")
	}
	const head = `package a_test

import (
	"testing"

	"example.com/x/a"
)

func helper() int { return a.F() }

func TestOut(t *testing.T) {
	if helper() < 1 {
		t.Fatal("F() < 1")
	}
}
`
	for _, tc := range []struct {
		name    string
		extra   string // appended to head
		pattern string // the run's -test.run, "" for TestIn's
		fails   bool   // TestIn fails: nothing set a.Flag
		built   bool   // the external test package is compiled as written
	}{
		{name: "idle", fails: true},
		{name: "var-without-calls", extra: "\nvar limit = int64(3)\n\nvar check = func() { a.Flag = 1 }\n", fails: true},
		{name: "init", extra: "\nfunc init() { a.Flag = 1 }\n", built: true},
		{name: "var-with-call", extra: "\nvar _ = set()\n\nfunc set() int { a.Flag = 1; return 0 }\n", built: true},
		{name: "import-only-here", extra: "\nimport _ \"example.com/x/c\"\n", built: true},
		{name: "test-selected", pattern: "^Test(In|Out)$", fails: true, built: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := maps.Clone(idleModule)
			src := head + tc.extra
			if strings.HasPrefix(tc.extra, "\nimport") {
				src = strings.Replace(head, "import (", "import (\n\t_ \"example.com/x/c\"", 1)
			}
			files["a/out_test.go"] = []byte(src)
			dir := writeTree(t, files)
			tr, err := Run(context.Background(), Config{Dir: dir, Pkg: "./a", Test: "TestIn", Timeout: time.Minute,
				TraceDir: t.TempDir(), runPattern: tc.pattern})
			if err != nil {
				t.Fatal(err)
			}
			if tr.Result.Failed != tc.fails || tr.Result.Passed == tc.fails {
				t.Errorf("traced run failed %v, passed %v; want failed %v:\n%s", tr.Result.Failed, tr.Result.Passed, tc.fails, tr.Result.Output)
			}
			if got := tr.Functions()["example.com/x/a_test.helper"]; got != tc.built {
				t.Errorf("helper instrumented: %v, want %v", got, tc.built)
			}
			if !tr.Functions()["example.com/x/a.F"] {
				t.Errorf("a.F not instrumented")
			}
		})
	}
}
