package instrument

import (
	"go/parser"
	"go/token"
	"strings"
	"testing"
)

// TestTracedBuildTrimsPaths: a module that never reads its source paths
// is built with -trimpath, so that its builds share what they compile: the
// traceback of a traced run's panic names the file by module path, not by
// the checkout's directory.
func TestTracedBuildTrimsPaths(t *testing.T) {
	dir := writeTree(t, moduleP(`package p

func At(xs []int, i int) int { return xs[i] }
`, `package p

import "testing"

func TestAt(t *testing.T) {
	if At([]int{1}, 3) != 0 {
		t.Fatal("unreachable")
	}
}
`))
	tr := runTrace(t, dir, "./p", "TestAt")
	out := tr.Result.Output
	if !strings.Contains(out, "index out of range") {
		t.Fatalf("the traced run did not panic:\n%s", out)
	}
	if strings.Contains(out, dir) {
		t.Errorf("the traceback names the checkout's directory %s:\n%s", dir, out)
	}
	if !strings.Contains(out, "example.com/m/p/p.go:") {
		t.Errorf("the traceback does not name p.go by module path:\n%s", out)
	}
}

// TestTracedBuildKeepsPathsTheTestReads: a test that finds its testdata
// beside its own source file, through runtime.Caller, passes when traced:
// its module's build keeps the absolute paths.
func TestTracedBuildKeepsPathsTheTestReads(t *testing.T) {
	files := moduleP(`package p

import "strings"

func Upper(s string) string { return strings.ToUpper(s) }
`, `package p

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestUpper(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	b, err := os.ReadFile(filepath.Join(filepath.Dir(file), "testdata", "in.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if got := Upper(strings.TrimSpace(string(b))); got != "ABC" {
		t.Fatalf("got %q", got)
	}
}
`)
	files["p/testdata/in.txt"] = []byte("abc\n")
	tracePassing(t, writeTree(t, files), "./p", "TestUpper")
}

func TestFileReadsPaths(t *testing.T) {
	for _, c := range []struct {
		src  string
		want bool
	}{
		{`import "runtime"; func f() { runtime.Caller(0) }`, true},
		{`import rt "runtime"; func f() { rt.Callers(0, nil) }`, true},
		{`import "runtime/debug"; func f() { debug.PrintStack() }`, true},
		{`import "log"; var flags = log.Llongfile`, true},
		{`import . "runtime"; func f() { _ = NumCPU() }`, true},
		{`import "runtime"; func f() int { return runtime.NumCPU() }`, false},
		{`import "log"; var flags = log.Lshortfile`, false},
		{`import "runtime/debug"; func f() { debug.SetGCPercent(1) }`, false},
		{`type r struct{}; func (r) Caller() {}; func f() { var runtime r; runtime.Caller() }`, false},
	} {
		f, err := parser.ParseFile(token.NewFileSet(), "x.go", "package x; "+c.src, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := fileReadsPaths(f); got != c.want {
			t.Errorf("%s: reads source paths %v, want %v", c.src, got, c.want)
		}
	}
}
