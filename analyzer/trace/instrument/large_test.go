package instrument

import (
	"fmt"
	"strings"
	"testing"

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
	skipped := false
	for _, s := range tr.Skipped {
		if s.Pos.File == "l/big.go" && strings.Contains(s.Reason, "statements") {
			skipped = true
		}
	}
	if !skipped {
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
