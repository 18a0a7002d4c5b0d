package trial

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/culprit-dev/culprit/diffhunks"
)

// fifthRepo's test fails on its fifth call in one process, and whenever
// GOMAXPROCS is 7: only amplification can make it fail.
var fifthRepo = map[string]string{
	"go.mod": "module example.com/fifth\n\ngo 1.22\n",
	"fifth/fifth.go": `package fifth

// Calls counts the calls of Next.
var Calls int

// Next counts one call and returns the count.
func Next() int { Calls++; return Calls }
`,
	"fifth/fifth_test.go": `package fifth

import (
	"os"
	"testing"
)

func TestNext(t *testing.T) {
	if n := Next(); n == 5 {
		t.Fatalf("call %d", n)
	}
	if os.Getenv("GOMAXPROCS") == "7" {
		t.Fatal("GOMAXPROCS=7")
	}
}
`,
}

// TestAmplification: iterations run the test that many times in one
// process and stop at the first failure; GOMAXPROCS reaches the test; the
// same holds through a prebuilt binary (Repeat) and through go test (a
// variant that only a worktree can express, here one deleting a file).
func TestAmplification(t *testing.T) {
	dir, head := gitRepo(t, fifthRepo)
	variants := fileVariants{"1": {deleted: []string{"fifth/unused.txt"}}}
	cfg := Config{Dir: dir, Head: head, Variants: variants, Pkg: "./fifth", Test: "TestNext", Timeout: time.Minute, Workers: 2}
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		amp     Amplification
		want    Outcome
		message string
	}{
		{"plain", Amplification{}, Pass, ""},
		{"four iterations", Amplification{Iterations: 4}, Pass, ""},
		{"ten iterations stop at the fifth", Amplification{Iterations: 10}, Fail, "call 5"},
		{"GOMAXPROCS", Amplification{GoMaxProcs: 7}, Fail, "GOMAXPROCS=7"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRunner(t, cfg)
			r.SetAmplification(tc.amp)
			for _, revert := range [][]diffhunks.ID{nil, {1}} {
				runs, err := r.Repeat(ctx, revert, 1)
				if err != nil {
					t.Fatal(err)
				}
				got := runs[0]
				if got.Outcome != tc.want || !strings.Contains(got.Message, tc.message) {
					t.Errorf("reverting %v with %s: %s (%q), want %s with %q\n%s", revert, tc.amp, got.Outcome, got.Message, tc.want, tc.message, got.Output)
				}
				if tc.want == Fail && strings.Count(got.Output, "=== RUN   TestNext") > 5 {
					t.Errorf("reverting %v: the test ran on after its first failure\n%s", revert, got.Output)
				}
			}
		})
	}
}
