package instrument

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/culprit-dev/culprit/internal/testfiles"
	"golang.org/x/tools/txtar"

	"github.com/culprit-dev/culprit/analyzer/trace"
)

// writeTree writes files (slash paths) below a new temp dir and returns it.
func writeTree(t *testing.T, files map[string][]byte) string {
	t.Helper()
	dir := t.TempDir()
	testfiles.Write(t, dir, files)
	return dir
}

// txtarTree returns the files of a txtar archive below prefix, without it.
// (The scenario package cannot be used here: it imports the analyzer, which
// imports this package.)
func txtarTree(t *testing.T, path, prefix string) map[string][]byte {
	t.Helper()
	ar, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, f := range ar.Files {
		if name, ok := strings.CutPrefix(f.Name, prefix); ok {
			files[name] = f.Data
		}
	}
	return files
}

func runTrace(t *testing.T, dir, pkg, test string) *trace.Trace {
	t.Helper()
	tr, err := Run(context.Background(), Config{Dir: dir, Pkg: pkg, Test: test, Timeout: time.Minute, TraceDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// describe renders event i as "kind site-text values" for assertions.
func describe(tr *trace.Trace, i int) string {
	e := tr.Event(i)
	s := tr.Site(e.Site)
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", e.Kind, strings.TrimSpace(s.Text))
	for _, it := range e.Reads {
		fmt.Fprintf(&b, " r:%s=%s", s.Operands[it.Slot].Text, it.Value)
	}
	for _, it := range e.Writes {
		fmt.Fprintf(&b, " w:%s=%s", s.Operands[it.Slot].Text, it.Value)
	}
	for _, v := range e.Values {
		fmt.Fprintf(&b, " v=%s", v)
	}
	return b.String()
}

func dump(tr *trace.Trace) string {
	var b strings.Builder
	for i := range tr.Events {
		b.WriteString(describe(tr, i) + "\n")
	}
	return b.String()
}

func TestAfterExample(t *testing.T) {
	dir := writeTree(t, txtarTree(t, "../../../testdata/after-example.txtar", "head/"))
	tr := runTrace(t, dir, "./calc", "TestF")
	if !tr.Result.Failed {
		t.Fatalf("TestF should fail:\n%s", tr.Result.Output)
	}
	if !strings.Contains(tr.Result.Output, "calc_test.go:7: F(3, 1, 2) = 4, want 5") {
		t.Errorf("output lost its line numbers:\n%s", tr.Result.Output)
	}
	got := dump(tr)
	want := []string{
		"assign sorted = false w:sorted=false",
		"call F(3, 1, 2)",
		"entry func F(x, y, z int) int { w:x=3 w:y=1 w:z=2",
		"assign sum := 0 w:sum=0",
		"branch !sorted r:sorted=false v=true",
		"branch x < y r:x=3 r:y=1 v=false",
		"assign sum = y r:y=1 w:sum=1",
		"branch z > 0 r:z=2 v=true",
		"assign sum += z + 1 r:sum=1 r:z=2 w:sum=4",
		"return return sum r:sum=4 v=4",
		"assign got := F(3, 1, 2) r:F(3, 1, 2)=4 w:got=4",
		"branch got != 5 r:got=4 v=true",
		"fail t.Errorf(\"F(3, 1, 2) = %d, want 5\", got) r:got=4",
	}
	pos := 0
	for _, w := range want {
		k := strings.Index(got[pos:], w)
		if k < 0 {
			t.Fatalf("trace lacks %q after offset %d:\n%s", w, pos, got)
		}
		pos += k + len(w)
	}
	if f := tr.Failures(); len(f) != 1 || tr.SiteOf(f[0]).Pos.Line != 7 {
		t.Errorf("failures = %v\n%s", f, got)
	}
	t.Logf("trace:\n%s", got)
}

// tracePassing traces test in pkg of the module at dir and stops the test
// unless it passed under tracing.
func tracePassing(t *testing.T, dir, pkg, test string) *trace.Trace {
	t.Helper()
	tr := runTrace(t, dir, pkg, test)
	if !tr.Result.Passed {
		t.Fatalf("%s should pass under tracing:\n%s", test, tr.Result.Output)
	}
	return tr
}

// moduleP is the files of module example.com/m whose package p is src,
// with test as its test file.
func moduleP(src, test string) map[string][]byte {
	return map[string][]byte{
		"go.mod":      []byte("module example.com/m\n\ngo 1.22\n"),
		"p/p.go":      []byte(src),
		"p/p_test.go": []byte(test),
	}
}
