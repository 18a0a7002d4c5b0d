package instrument

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/culprit-dev/culprit/analyzer/trace"
)

// TestLargeFunction: a function of more than maxFuncStmts statements is
// left uninstrumented (the compiler's time on it instrumented is out of
// proportion) and said so; calls of it are observed like calls out of
// the module, and the rest of its package is still traced. A function
// called by a package-level initialiser knows its call. A test longer in
// lines, but mostly one table, is traced, its failure included.
func TestLargeFunction(t *testing.T) {
	var big strings.Builder
	big.WriteString("package l\n\nfunc Big(n int) int {\n\ts := 0\n")
	for i := 0; i < maxFuncStmts; i++ {
		fmt.Fprintf(&big, "\ts += n * %d\n", i%7)
	}
	big.WriteString("\treturn s\n}\n")
	var table strings.Builder
	table.WriteString("package l\n\nimport \"testing\"\n\nfunc TestTable(t *testing.T) {\n\tcases := []struct {\n\t\tin, want int\n\t}{\n")
	for i := 0; i < maxFuncStmts/2; i++ {
		fmt.Fprintf(&table, "\t\t{\n\t\t\tin:   %d,\n\t\t\twant: %d,\n\t\t},\n", i, 2*i)
	}
	table.WriteString("\t}\n\tfor _, c := range cases {\n\t\tt.Run(\"\", func(t *testing.T) {\n\t\t\tif got := double(c.in); got != c.want {\n\t\t\t\tt.Fatal(got)\n\t\t\t}\n\t\t})\n\t}\n}\n")
	dir := writeTree(t, map[string][]byte{
		"go.mod":   []byte("module example.com/l\n\ngo 1.22\n"),
		"l/big.go": []byte(big.String()),
		"l/l.go": []byte(`package l

const seed = 4

var base = double(seed)

func double(x int) int { return 2 * x }

func Small(n int) int {
	return Big(n) + base
}
`),
		"l/l_test.go": []byte(`package l

import "testing"

func TestSmall(t *testing.T) {
	if Small(0) != 8 {
		t.Fatal("small")
	}
}
`),
		"l/table_test.go": []byte(table.String()),
	})
	tr := tracePassing(t, dir, "./l", "TestSmall")
	if !leftForLength(tr, "l/big.go") {
		t.Errorf("Big not reported as left untraced: %v", tr.Skipped)
	}
	for i := range tr.Events {
		if tr.SiteOf(i).Pos.File == "l/big.go" {
			t.Fatalf("event in the large function: %s", describe(tr, i))
		}
	}
	if !hasEvent(tr, "callext Big(n)") {
		t.Error("the call of the large function is not observed as an uninstrumented call")
	}
	if !hasEvent(tr, "return 2 * x") {
		t.Error("the rest of the package is not traced")
	}
	if !hasEvent(tracePassing(t, dir, "./l", "TestTable"), "branch got != c.want") {
		t.Error("the long table test is not traced")
	}
	found := false
	for f := 1; f < len(tr.Frames); f++ {
		fr := tr.Frame(trace.FrameID(f))
		if strings.HasPrefix(tr.Site(fr.Func).Text, "func double(") {
			found = true
			if fr.Call < 0 || tr.Event(fr.Call).Kind != trace.EvCall {
				t.Errorf("double, called by an initialiser, has no call (Call = %d)", fr.Call)
			}
		}
	}
	if !found {
		t.Error("no frame of double")
	}
}

// TestLargeFunctionEntered: with the probe, a function longer than
// maxFuncStmts that the test enters is traced like any other (a generated
// interpreter loop is where a failure often shows), and one it never
// enters is still left alone and said so. The module is far smaller than
// probeMinBytes: the long functions alone make the probe run.
func TestLargeFunctionEntered(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs test binaries")
	}
	defer func(n int) { maxFuncStmts = n }(maxFuncStmts)
	maxFuncStmts = 40
	long := func(name string) string {
		var b strings.Builder
		fmt.Fprintf(&b, "func %s(n int) int {\n\ts := 0\n", name)
		for i := 0; i < maxFuncStmts; i++ {
			fmt.Fprintf(&b, "\ts += n * %d\n", i%7+1)
		}
		b.WriteString("\treturn s\n}\n")
		return b.String()
	}
	dir := writeTree(t, map[string][]byte{
		"go.mod":   []byte("module example.com/l\n\ngo 1.22\n"),
		"l/big.go": []byte("package l\n\n" + long("Big") + "\n" + long("Idle")),
		"l/l.go": []byte(`package l

func Small(n int) int {
	return Big(n) + 1
}
`),
		"l/l_test.go": []byte(`package l

import "testing"

func TestSmall(t *testing.T) {
	if Small(1) != 156 {
		t.Fatal("small", Small(1))
	}
}
`),
	})
	tr, err := Run(context.Background(), Config{Dir: dir, Pkg: "./l", Test: "TestSmall", Timeout: time.Minute, TraceDir: t.TempDir(), Probe: true})
	if err != nil {
		t.Fatal(err)
	}
	if !tr.Result.Passed {
		t.Fatalf("TestSmall should pass under tracing:\n%s", tr.Result.Output)
	}
	big := 0
	for i := range tr.Events {
		if s := tr.SiteOf(i); s.Pos.File == "l/big.go" {
			if s.Pos.Line > maxFuncStmts+5 {
				t.Fatalf("event in the function never entered: %s", describe(tr, i))
			}
			big++
		}
	}
	if big < maxFuncStmts {
		t.Errorf("the long function the test enters has %d events, want at least %d", big, maxFuncStmts)
	}
	if !leftForLength(tr, "l/big.go") {
		t.Errorf("Idle not reported as left untraced for its length: %v", tr.Skipped)
	}
}

// leftForLength reports whether tr lists a function of file as left
// untraced for its number of statements.
func leftForLength(tr *trace.Trace, file string) bool {
	return slices.ContainsFunc(tr.Skipped, func(s trace.Skip) bool {
		return s.Pos.File == file && strings.Contains(s.Reason, "statements")
	})
}
