package trial

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/culprit-dev/culprit/analyzer/gotest"
)

// TestRaceRepeat runs head's test in a binary built once with the race
// detector: every run reports the race between the two goroutines'
// increments, at its place in the repository, and counts as a trial.
func TestRaceRepeat(t *testing.T) {
	dir, head := gitRepo(t, map[string]string{
		"go.mod":         "module example.com/m\n\ngo 1.22\n",
		"count/count.go": "package count\n\nvar n int\n\nfunc Bump() { n++ }\n",
		"count/count_test.go": `package count

import (
	"sync"
	"testing"
)

func TestBump(t *testing.T) {
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() { defer wg.Done(); Bump() }()
	}
	wg.Wait()
}
`,
	})
	r := newRunner(t, Config{Dir: dir, Head: head, Variants: fileVariants{}, Pkg: "./count", Test: "TestBump",
		Timeout: 3 * time.Minute, Workers: 2})
	runs, err := r.RaceRepeat(context.Background(), 2)
	if errors.Is(err, ErrNoRace) {
		t.Skip("no race detector here")
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 || r.Counts().Trials != 2 {
		t.Fatalf("%d runs, %d trials; want 2 and 2", len(runs), r.Counts().Trials)
	}
	for i, run := range runs {
		races := gotest.Races(run.Output)
		if len(races) != 1 {
			t.Fatalf("run %d: %d races in\n%s", i, len(races), run.Output)
		}
		for _, a := range races[0].Accesses {
			if len(a.Stack) == 0 || a.Stack[0].File != "count/count.go" || a.Stack[0].Line != 5 {
				t.Errorf("run %d: access %+v, want count/count.go:5", i, a)
			}
		}
		if strings.Contains(run.Output, r.tmp) {
			t.Errorf("run %d: output names the runner's private directory", i)
		}
	}
}
