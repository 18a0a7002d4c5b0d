package gotest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRaces runs a real test with a data race under the race detector
// and reads its report back: both accesses, on the racing line, each
// with a goroutine and a stack; the same race reported twice counts once;
// output cut inside a report keeps only complete accesses.
func TestRaces(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/race\n\ngo 1.22\n",
		"count.go": `package race

var n int

func bump() { n++ }
`,
		"count_test.go": `package race

import (
	"sync"
	"testing"
)

func TestBump(t *testing.T) {
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() { defer wg.Done(); bump() }()
	}
	wg.Wait()
}
`,
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("go", "test", "-race", "-count=2", "-run", "TestBump", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=", "GOTOOLCHAIN=local", "CGO_ENABLED=1")
	out, _ := cmd.CombinedOutput()
	if !strings.Contains(string(out), "DATA RACE") {
		t.Skipf("the race detector reported nothing (no cgo toolchain?):\n%s", out)
	}
	races := Races(string(out))
	if len(races) != 1 {
		t.Fatalf("%d races, want the one race once:\n%s", len(races), out)
	}
	r := races[0]
	if len(r.Accesses) != 2 {
		t.Fatalf("accesses %+v", r.Accesses)
	}
	for _, a := range r.Accesses {
		if len(a.Stack) == 0 || filepath.Base(a.Stack[0].File) != "count.go" || a.Stack[0].Line != 5 ||
			!strings.HasSuffix(a.Stack[0].Func, ".bump") || a.Goroutine == 0 {
			t.Errorf("access %+v: want bump at count.go:5 by a goroutine", a)
		}
	}
	if !strings.HasPrefix(r.Accesses[1].Op, "previous ") {
		t.Errorf("second access %q, want the previous one", r.Accesses[1].Op)
	}
	// Cut just after the first access's stack: the report is incomplete.
	first := strings.Index(string(out), "Previous ")
	if got := Races(string(out)[:first]); len(got) != 0 {
		t.Errorf("a report cut before its second access gave %+v", got)
	}
}
