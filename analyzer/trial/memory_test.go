package trial

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

// TestRunStoppedOverMemory: a test that allocates past the runner's memory
// bound is stopped; the run is a crash that says why, never a pass, and
// the runner counts it.
func TestRunStoppedOverMemory(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc to measure memory with")
	}
	dir, head := gitRepo(t, map[string]string{
		"go.mod": "module example.com/m\n\ngo 1.22\n",
		"hog/hog.go": `package hog

// Fill holds n MiB, touched, until the test ends.
func Fill(n int) [][]byte {
	var held [][]byte
	for range n {
		b := make([]byte, 1<<20)
		for i := range b {
			b[i] = 1
		}
		held = append(held, b)
	}
	return held
}
`,
		"hog/hog_test.go": `package hog

import (
	"testing"
	"time"
)

func TestFill(t *testing.T) {
	held := Fill(400)
	time.Sleep(20 * time.Second)
	if len(held) != 400 {
		t.Fatal(len(held))
	}
}
`,
	})
	r := newRunner(t, Config{Dir: dir, Head: head, Variants: fileVariants{}, Pkg: "./hog", Test: "TestFill",
		Timeout: 2 * time.Minute, Workers: 1, MaxMemory: 150 << 20})
	runs, err := r.Repeat(context.Background(), nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	res := runs[0]
	if res.Outcome != Crash || !res.OverMemory || !strings.Contains(res.Message, "150 MiB") {
		t.Errorf("outcome %s, over memory %v, message %q: want a crash past 150 MiB", res.Outcome, res.OverMemory, res.Message)
	}
	if n := r.Counts().OverMemory; n != 1 {
		t.Errorf("counted %d runs over memory, want 1", n)
	}
}
