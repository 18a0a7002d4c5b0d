package instrument

import (
	"context"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/txtar"

	"github.com/culprit-dev/culprit/analyzer/trace"
)

func loadTxtar(t *testing.T, path string) string {
	t.Helper()
	ar, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, f := range ar.Files {
		files[f.Name] = f.Data
	}
	return writeTree(t, files)
}

func hasEvent(tr *trace.Trace, sub string) bool {
	for i := range tr.Events {
		if strings.Contains(describe(tr, i), sub) {
			return true
		}
	}
	return false
}

func TestConstructs(t *testing.T) {
	dir := loadTxtar(t, "testdata/constructs.txtar")
	tr := runTrace(t, dir, "./c", "TestAll")
	for _, s := range tr.Skipped {
		if strings.Contains(s.Reason, "compile") || strings.Contains(s.Reason, "rewriter") {
			t.Errorf("skipped %v: %s", s.Pos, s.Reason)
		}
	}
	if !tr.Result.Passed {
		t.Fatalf("TestAll should pass under tracing:\n%s", tr.Result.Output)
	}
	for _, want := range []string{
		"assign counter = 10 w:counter=10",         // init func
		"branch a > b r:a=3 r:b=4 v=false",         // generics
		"assign q, r = a/b, a%b r:a=7 r:b=2 r:a=7", // multiple assignment
		"w:q=3 w:r=1",
		"assign s += x r:s=1 r:x=2 w:s=3", // variadic + range
		"assign n++ r:n=1 w:n=2",          // captured variable
		"branch j == 3 r:j=3 v=true",      // labels
		"branch k < 3 r:k=3 v=false",      // goto
		"assign p.X *= k",                 // pointer receiver
		"entry func (s Sq) Area() int {",  // interface dispatch
		"branch i < 3",                    // goroutine
		"assign last = r r:r=111 w:last=111",
		"assign m[1] += 5 r:m[1]=0 w:m[1]=5",
		"assign node[k] = 4 w:node[k]=4", // map keyed by the empty interface
		"assign counts[\"c\"] += 3",
		"fail t.Fatal",
	} {
		if want == "fail t.Fatal" {
			continue
		}
		if !hasEvent(tr, want) {
			t.Errorf("no event like %q", want)
		}
	}
	if t.Failed() {
		t.Logf("trace:\n%s", dump(tr))
	}
}

func TestAbnormalEnds(t *testing.T) {
	dir := loadTxtar(t, "testdata/constructs.txtar")
	for _, tc := range []struct{ test, want string }{
		{"TestFatal", "fail t.Fatalf(\"fatal %d\", x) r:x=1"},
		{"TestPanic", "panic m[\"a\"] = 1"},
		{"TestExit", "branch v == 3 r:v=3 v=true"},
		{"TestHang", "assign i++"},
	} {
		t.Run(tc.test, func(t *testing.T) {
			tr, err := Run(context.Background(), Config{Dir: dir, Pkg: "./c", Test: tc.test, Timeout: 3 * time.Second, MaxBytes: 1 << 20, TraceDir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			if tr.Result.Passed {
				t.Fatalf("%s passed", tc.test)
			}
			if !hasEvent(tr, tc.want) {
				t.Errorf("no event like %q:\n%s", tc.want, tail(dump(tr)))
			}
			if tc.test == "TestHang" && !tr.Truncated {
				t.Errorf("1 MiB trace of an endless loop not marked truncated")
			}
			if tc.test == "TestPanic" && len(tr.Failures()) == 0 {
				t.Errorf("no failure for the panic")
			}
		})
	}
}

func tail(s string) string {
	if len(s) > 3000 {
		return s[len(s)-3000:]
	}
	return s
}

// TestUntracedReasons traces a program with the header and package-level
// assignments the rewrite leaves untraced, values of a type that cannot be
// named in the file (an interface literal, a shadowed type parameter): each is reported at its place
// with its reason, and the program still runs as written.
func TestUntracedReasons(t *testing.T) {
	src := `package p

type sq int

func (s sq) Area() int { return int(s * s) }

var probe any = sq(2)

var shape, isShape = probe.(interface{ Area() int })

var none interface{ Area() int } = nil

func Areas() int {
	total := 0
	var a interface{ Area() int }
	for a = nil; a == nil; a = sq(3) {
		total += 100
	}
	for b, ok := probe.(interface{ Area() int }); ok; ok = false {
		total += b.Area()
	}
	if none != nil || !isShape {
		return -1
	}
	return total + a.Area() + shape.Area()
}

// The type parameter's name is shadowed at the header: it cannot name it.
func Shadowed[T ~int](n T) int {
	var x T
	{
		T := 2
		for x = 1; x < n; x++ {
			T++
		}
		return T
	}
}
`
	test := `package p

import "testing"

func TestX(t *testing.T) {
	if got := Areas(); got != 100+4+9+4 {
		t.Fatal(got)
	}
	if got := Shadowed(3); got != 4 {
		t.Fatal(got)
	}
}
`
	dir := writeTree(t, moduleP(src, test))
	tr := tracePassing(t, dir, "./p", "TestX")
	got := map[int]string{}
	for _, s := range tr.Skipped {
		got[s.Pos.Line] = s.Reason
	}
	for line, want := range map[int]string{
		9:  "package-level multi-variable initialiser of a type that cannot be named",
		11: "package-level initialiser of an untyped or converted value",
		16: "header assignment of an untyped or converted value",
		19: "multi-value assignment in a statement header of a type that cannot be named",
		33: "header assignment of an untyped or converted value",
	} {
		if got[line] != want {
			t.Errorf("line %d: skipped as %q, want %q", line, got[line], want)
		}
	}
	if len(got) != 5 {
		t.Errorf("skipped %v, want the 5 places above only", tr.Skipped)
	}
	// What is traced around them is still recorded.
	for _, want := range []string{
		"assign probe any = sq(2) w:probe=",
		"branch a == nil",
		"assign total += b.Area()",
	} {
		if !hasEvent(tr, want) {
			t.Errorf("no event like %q:\n%s", want, dump(tr))
		}
	}
}
