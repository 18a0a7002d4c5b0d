package trial

import (
	"context"
	"testing"
	"time"

	"github.com/culprit-dev/culprit/analyzer/trace/instrument"
	"github.com/culprit-dev/culprit/diffhunks"
)

// tallyRepo's Add splits its critical section in two with nothing between
// the halves. On one thread the goroutines switch only where one blocks or
// yields, so plain runs never lose an update and perturbed runs do.
var tallyRepo = map[string]string{
	"go.mod": "module example.com/tally\n\ngo 1.22\n",
	"tally/tally.go": `package tally

import "sync"

type Tally struct {
	mu sync.Mutex
	n  int
}

func (c *Tally) Add() {
	c.mu.Lock()
	next := c.n + 1
	c.mu.Unlock()
	c.mu.Lock()
	c.n = next
	c.mu.Unlock()
}
`,
	"tally/tally_test.go": `package tally

import (
	"sync"
	"testing"
)

func TestAdd(t *testing.T) {
	var c Tally
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 300 {
				c.Add()
			}
		}()
	}
	wg.Wait()
	if c.n != 600 {
		t.Errorf("n = %d, want 600", c.n)
	}
}
`,
}

// TestPerturbedRuns: under a perturbing amplification each variant is
// built once with the tracing runtime and every run gets a seed of its
// own; the split section then loses updates that plain runs on one thread
// never lose, the fixed variant passes every perturbed run, a variant
// with test data of its own reads it, and a variant that does not compile
// is a build-error, not an error.
func TestPerturbedRuns(t *testing.T) {
	dir, head := gitRepo(t, tallyRepo)
	fixed := `package tally

import "sync"

type Tally struct {
	mu sync.Mutex
	n  int
}

func (c *Tally) Add() {
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
}
`
	// Variant 3 is fixed, and its test passes only where it reads the
	// variant's own test data: perturbed runs go where it is checked out.
	readsData := `package tally

import (
	"os"
	"testing"
)

func TestAdd(t *testing.T) {
	if b, err := os.ReadFile("testdata/want.txt"); err != nil || string(b) != "ok\n" {
		t.Fatalf("testdata/want.txt: %q, %v", b, err)
	}
	var c Tally
	c.Add()
}
`
	variants := fileVariants{
		"1": {files: map[string]string{"tally/tally.go": fixed}},
		"2": {files: map[string]string{"tally/tally.go": "package tally\n\nfunc (\n"}},
		"3": {files: map[string]string{"tally/tally.go": fixed, "tally/tally_test.go": readsData, "tally/testdata/want.txt": "ok\n"}},
	}
	r := newRunner(t, Config{Dir: dir, Head: head, Variants: variants, Pkg: "./tally", Test: "TestAdd", Timeout: time.Minute, Workers: 2})
	if r.CanPerturb() {
		t.Fatal("a runner without an instrumenter claims it can perturb")
	}
	r.SetInstrumenter(func(ctx context.Context, dir, out string) (string, error) {
		b, err := instrument.Build(ctx, instrument.Config{Dir: dir, Pkg: "./tally", Test: "TestAdd"})
		if err != nil {
			return "", err
		}
		defer b.Close()
		return b.Keep(out)
	})
	ctx := context.Background()

	r.SetAmplification(Amplification{GoMaxProcs: 1})
	plain, err := r.Repeat(ctx, nil, 6)
	if err != nil {
		t.Fatal(err)
	}
	for i, run := range plain {
		if run.Outcome != Pass || run.Seed != 0 {
			t.Errorf("plain run %d: %s, seed %d; want pass, no seed\n%s", i, run.Outcome, run.Seed, run.Output)
		}
	}

	r.SetAmplification(Amplification{GoMaxProcs: 1, Perturb: 4})
	builds := r.Counts().Builds
	perturbed, err := r.Repeat(ctx, nil, 8)
	if err != nil {
		t.Fatal(err)
	}
	failed, seeds := 0, map[uint64]bool{}
	for _, run := range perturbed {
		seeds[run.Seed] = true
		if run.Outcome == Fail {
			failed++
		} else if run.Outcome != Pass {
			t.Errorf("perturbed run: %s\n%s", run.Outcome, run.Output)
		}
	}
	if failed < 4 || len(seeds) != len(perturbed) || seeds[0] {
		t.Errorf("perturbed head: %d of %d failed, seeds %v; want most failing, each its own seed", failed, len(perturbed), seeds)
	}
	if b := r.Counts().Builds - builds; b != 1 {
		t.Errorf("%d builds for head's perturbed runs, want 1", b)
	}

	for _, v := range []struct {
		name   string
		revert []diffhunks.ID
		n      int
	}{
		{"fixed variant", []diffhunks.ID{1}, 6},
		{"variant with its own test data", []diffhunks.ID{3}, 3},
	} {
		runs, err := r.Repeat(ctx, v.revert, v.n)
		if err != nil {
			t.Fatal(err)
		}
		for i, run := range runs {
			if run.Outcome != Pass || run.Seed == 0 {
				t.Errorf("%s, perturbed run %d: %s, seed %d; want pass with a seed\n%s", v.name, i, run.Outcome, run.Seed, run.Output)
			}
		}
	}

	broken, err := r.Repeat(ctx, []diffhunks.ID{2}, 2)
	if err != nil {
		t.Fatal(err)
	}
	for i, run := range broken {
		if run.Outcome != BuildError {
			t.Errorf("broken variant, run %d: %s, want build-error", i, run.Outcome)
		}
	}
}
