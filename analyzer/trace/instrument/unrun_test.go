package instrument

import (
	"strings"
	"testing"

	"github.com/culprit-dev/culprit/analyzer/trace"
)

// TestUnrunTestsLeftAlone: the test functions a traced run never calls
// are left as they are (no sites, no skips), so a test file of hundreds of
// tests does not cost the instrumented build; the test traced, a
// test-named function it calls and the package code keep their sites.
func TestUnrunTestsLeftAlone(t *testing.T) {
	dir := writeTree(t, map[string][]byte{
		"go.mod": []byte("module example.com/u\n\ngo 1.22\n"),
		"u/u.go": []byte(`package u

func Twice(n int) int { return 2 * n }
`),
		"u/u_test.go": []byte(`package u

import (
	"fmt"
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	code := m.Run()
	os.Exit(code)
}

func TestA(t *testing.T) {
	TestShared(t)
	if Testing(t) != 10 {
		t.Fatal("a")
	}
}

func TestShared(t *testing.T) {
	x := Twice(2)
	if x != 4 {
		t.Fatal("shared")
	}
}

func TestB(t *testing.T) {
	if Twice(3) != 6 {
		t.Fatal("b")
	}
}

func BenchmarkC(b *testing.B) {
	for i := 0; i < b.N; i++ {
		_ = Twice(i)
	}
}

func ExampleTwice() {
	y := Twice(1)
	fmt.Println(y)
	// Output: 2
}

func Testing(t *testing.T) int {
	z := Twice(5)
	return z
}
`),
		"u/x_test.go": []byte(`package u_test

import (
	"testing"

	"example.com/u/u"
)

func TestX(t *testing.T) {
	if u.Twice(4) != 8 {
		t.Fatal("x")
	}
}
`),
	})
	funcsWithSites := func(tr *trace.Trace) map[string]bool {
		m := map[string]bool{}
		for _, s := range tr.Sites[1:] {
			m[s.Func[strings.LastIndex(s.Func, ".")+1:]] = true
		}
		return m
	}
	tr := tracePassing(t, dir, "./u", "TestA")
	got := funcsWithSites(tr)
	for _, f := range []string{"TestMain", "TestA", "TestShared", "Twice"} {
		if !got[f] {
			t.Errorf("%s has no sites: %v", f, got)
		}
	}
	for _, f := range []string{"TestB", "BenchmarkC", "ExampleTwice", "TestX"} {
		if got[f] {
			t.Errorf("%s, never run by -run ^TestA$, was instrumented", f)
		}
	}
	// Testing is not a test name (a lower-case letter follows the
	// prefix): go test never calls it by name, so it is ordinary code.
	if !got["Testing"] {
		t.Errorf("Testing, an ordinary function, has no sites: %v", got)
	}
	for _, s := range tr.Skipped {
		if strings.HasSuffix(s.Pos.File, "_test.go") {
			t.Errorf("a test file's function recorded as skipped: %+v", s)
		}
	}

	// Traced by its own name, TestB is instrumented.
	tr = runTrace(t, dir, "./u", "TestB")
	if !funcsWithSites(tr)["TestB"] || !hasEvent(tr, "Twice(3) != 6") {
		t.Errorf("TestB traced by name has no sites or events: %v", funcsWithSites(tr))
	}
}
