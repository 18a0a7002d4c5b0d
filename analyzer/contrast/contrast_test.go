package contrast

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/culprit-dev/culprit/analyzer/trace"
	"golang.org/x/tools/txtar"
)

// headTree writes the head/ tree of a scenario archive to a temp dir.
func headTree(t *testing.T, scenario string) string {
	t.Helper()
	ar, err := txtar.ParseFile(filepath.Join("..", "..", "testdata", scenario+".txtar"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, f := range ar.Files {
		name, ok := strings.CutPrefix(f.Name, "head/")
		if !ok {
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func traceTest(t *testing.T, dir, pkg, test string) *trace.Trace {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	tr, err := trace.Run(ctx, trace.Config{Dir: dir, Pkg: pkg, Test: test, TraceDir: t.TempDir()})
	if err != nil {
		t.Fatalf("tracing %s: %v", test, err)
	}
	return tr
}

// TestTwoRunsOfOneProgramAlign is COMPARATIVE.md's invariant: two runs
// of the same code, traced separately (addresses differ), align event for
// event with no difference, and the path of differences is the failure
// alone.
func TestTwoRunsOfOneProgramAlign(t *testing.T) {
	for _, sc := range []struct{ name, pkg, test string }{
		{"after-example", "./calc", "TestF"},
		{"sem-loop", ".", ""},
		{"sem-early-return", "./flags", "TestReparse"},
		{"sem-nil-deref", ".", "TestSecond"},
	} {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			dir := headTree(t, sc.name)
			test := sc.test
			if test == "" {
				test = testOf(t, sc.name)
			}
			a, b := traceTest(t, dir, sc.pkg, test), traceTest(t, dir, sc.pkg, test)
			if len(a.Events) != len(b.Events) {
				t.Fatalf("the runs have %d and %d events", len(a.Events), len(b.Events))
			}
			c, err := Compare(Runs{Failing: a, Passing: b, FailingDir: dir, PassingDir: dir, Prefix: "."})
			if err != nil {
				t.Fatal(err)
			}
			for i := range a.Events {
				j := c.Counterpart(Failing, i)
				if j != i {
					t.Fatalf("event %d (%s %s) aligns with %d", i, a.Events[i].Kind, a.SiteOf(i).Text, j)
				}
				x, y := outputs(a.Event(i)), outputs(b.Event(j))
				if len(x) != len(y) {
					t.Fatalf("event %d (%s) has %d outputs and %d", i, a.SiteOf(i).Text, len(x), len(y))
				}
				for k := range x {
					if eq, known := same(x[k], y[k]); known && !eq {
						t.Errorf("event %d (%s) differs from itself: %v vs %v", i, a.SiteOf(i).Text, x, y)
					}
				}
			}
			p, err := c.Path()
			if err != nil {
				t.Fatal(err)
			}
			fails := a.Failures()
			if len(p.Steps) != 1 || p.Steps[0].Event != fails[0] || p.Divergence != 0 {
				t.Errorf("path %+v, want the failure %d alone", p, fails[0])
			}
		})
	}
}

// testOf reads a scenario's test name from its header.
func testOf(t *testing.T, scenario string) string {
	ar, err := txtar.ParseFile(filepath.Join("..", "..", "testdata", scenario+".txtar"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(ar.Comment), "\n") {
		if v, ok := strings.CutPrefix(line, "test:"); ok {
			return strings.TrimSpace(v)
		}
	}
	t.Fatalf("%s names no test", scenario)
	return ""
}
