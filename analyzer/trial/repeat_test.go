package trial

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/culprit-dev/culprit/diffhunks"
)

// TestRepeat runs one variant several times, Workers at a time: every run
// is executed (no cache), in order, and the first becomes the variant's
// cached Run.
func TestRepeat(t *testing.T) {
	dir, head := gitRepo(t, calcRepo)
	r := newRunner(t, Config{Dir: dir, Head: head, Variants: calcVariants, Pkg: "./calc", Test: "TestF",
		Timeout: time.Minute, Workers: 2})
	ctx := context.Background()
	runs, err := r.Repeat(ctx, []diffhunks.ID{1}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 3 || r.Counts().Trials != 3 {
		t.Fatalf("%d runs, %d trials, want 3 and 3", len(runs), r.Counts().Trials)
	}
	for i, run := range runs {
		if run.Outcome != Pass || !slices.Equal(run.Reverted, []diffhunks.ID{1}) || run.Cached {
			t.Errorf("run %d: %+v", i, run)
		}
	}
	again, err := r.Run(ctx, []diffhunks.ID{1})
	if err != nil || !again.Cached || again.Outcome != Pass {
		t.Errorf("Run after Repeat = %+v, %v; want the cached first run", again, err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if runs, err := r.Repeat(cancelled, nil, 2); err == nil || len(runs) != 0 {
		t.Errorf("Repeat on a cancelled context = %d runs, %v", len(runs), err)
	}
}

// repeatCase is a variant of calcRepo and the outcome its runs give.
type repeatCase struct {
	name   string
	revert []diffhunks.ID
	want   Outcome
}

// checkedOut are the variants of calcRepo that -overlay cannot express,
// so that their repeated runs are made in a checkout of their own.
var checkedOut = []repeatCase{
	// Head's F(2, 3) is 6: it passes only where it reads the variant's
	// testdata/want.txt, which says 6.
	{"test data", []diffhunks.ID{6}, Pass},
	{"code and changelog", []diffhunks.ID{9}, Pass},
	{"changelog alone", []diffhunks.ID{10}, Fail},
	{"checked out, does not build", []diffhunks.ID{14}, BuildError},
}

// calcConfig is a runner's configuration for TestF of calcRepo, two
// workers at a time.
func calcConfig(t *testing.T) Config {
	dir, head := gitRepo(t, calcRepo)
	return Config{Dir: dir, Head: head, Variants: calcVariants, Pkg: "./calc", Test: "TestF", Timeout: time.Minute, Workers: 2}
}

// TestRepeatMatchesRun: a repeat through the prebuilt test binary gives
// the outcome, signature and subtests that a go test run gives, whether
// -overlay gives the variant or it is checked out (TestRepeatKeepsCheckout).
func TestRepeatMatchesRun(t *testing.T) {
	cfg := calcConfig(t)
	ctx := context.Background()
	for _, tc := range append([]repeatCase{
		{"fails", nil, Fail},
		{"passes", []diffhunks.ID{1}, Pass},
		{"does not build", []diffhunks.ID{2}, BuildError},
		{"panics", []diffhunks.ID{4}, Fail},
		{"no test", []diffhunks.ID{5}, NoTests},
		{"exits", []diffhunks.ID{7}, Crash},
	}, checkedOut...) {
		t.Run(tc.name, func(t *testing.T) {
			// Separate runners: Repeat would otherwise fill Run's cache.
			want, err := newRunner(t, cfg).Run(ctx, tc.revert)
			if err != nil {
				t.Fatal(err)
			}
			r := newRunner(t, cfg)
			got, err := r.Repeat(ctx, tc.revert, 2)
			if err != nil {
				t.Fatal(err)
			}
			for _, g := range got {
				if g.Outcome != tc.want || g.Outcome != want.Outcome || g.Signature != want.Signature || len(g.Subtests) != len(want.Subtests) {
					t.Errorf("Repeat = %s at %q, Run = %s at %q; want %s\n%s", g.Outcome, g.Signature, want.Outcome, want.Signature, tc.want, g.Output)
				}
			}
			// A variant that does not compile is run once: more runs
			// would only compile it again.
			if n := map[bool]int{true: 1, false: 2}[tc.want == BuildError]; len(got) != n || r.Counts().Trials != n {
				t.Errorf("Repeat gave %d runs in %d trials, want %d", len(got), r.Counts().Trials, n)
			}
		})
	}
}

// TestRepeatKeepsCheckout: a variant that -overlay cannot express (test
// data, a changelog beside the code) is checked out once and its test
// binary built there, not run by go test each time, for every Repeat of
// it (its outcomes are TestRepeatMatchesRun's); and the checkouts no
// Repeat uses are bounded.
func TestRepeatKeepsCheckout(t *testing.T) {
	cfg := calcConfig(t)
	ctx := context.Background()
	for _, tc := range checkedOut {
		t.Run(tc.name, func(t *testing.T) {
			r := newRunner(t, cfg)
			for i, n := range []int{3, 2} {
				got, err := r.Repeat(ctx, tc.revert, n)
				if err != nil || len(got) == 0 {
					t.Fatalf("Repeat %d = %v, %v", i+1, got, err)
				}
				for _, g := range got {
					if g.Outcome != tc.want {
						t.Errorf("Repeat %d: %s, want %s\n%s", i+1, g.Outcome, tc.want, g.Output)
					}
				}
			}
			if c := r.Counts(); c.Builds != 1 {
				t.Errorf("%d builds for two Repeats, want 1", c.Builds)
			}
		})
	}
	t.Run("idle checkouts are bounded", func(t *testing.T) {
		r := newRunner(t, cfg)
		for _, id := range []diffhunks.ID{6, 9, 10, 11, 12, 13} {
			if _, err := r.Repeat(ctx, []diffhunks.ID{id}, 1); err != nil {
				t.Fatal(err)
			}
		}
		r.mu.Lock()
		n := len(r.kept)
		r.mu.Unlock()
		if n != maxIdleKept {
			t.Errorf("%d checkouts kept after six variants, want %d", n, maxIdleKept)
		}
		// The least recently used went back to the pool: repeating it
		// checks it out and builds it again, with the same verdict.
		before := r.Counts().Builds
		if runs, err := r.Repeat(ctx, []diffhunks.ID{6}, 1); err != nil || runs[0].Outcome != Pass {
			t.Fatalf("repeating an evicted variant = %v, %v", runs, err)
		}
		if b := r.Counts().Builds - before; b != 1 {
			t.Errorf("%d builds to repeat an evicted variant, want 1", b)
		}
	})
}

// TestSetRunTimeout: a hung repeat ends at the run limit, not at the
// trial timeout, counts as a timeout, and says where the test waits.
func TestSetRunTimeout(t *testing.T) {
	dir, head := gitRepo(t, calcRepo)
	r := newRunner(t, Config{Dir: dir, Head: head, Variants: calcVariants, Pkg: "./calc", Test: "TestF",
		Timeout: 2 * time.Minute, Workers: 1, Env: []string{"CULPRIT_PIDFILE=" + filepath.Join(t.TempDir(), "pid")}})
	r.SetRunTimeout(2 * time.Second)
	start := time.Now()
	runs, err := r.Repeat(context.Background(), []diffhunks.ID{3}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if runs[0].Outcome != Timeout || time.Since(start) > time.Minute {
		t.Errorf("hung run: %s after %v", runs[0].Outcome, time.Since(start))
	}
	if runs[0].Signature != "calc/calc_test.go:17" {
		t.Errorf("hung run at %q, want where the test waits, calc/calc_test.go:17\n%s", runs[0].Signature, runs[0].Output)
	}
}

// TestReportedFailureInJSON: test2json escapes quotes in a subtest's name
// inside its JSON events; the test's "--- FAIL" line is found all the same,
// and a run that never printed it is not taken for one that did.
func TestReportedFailureInJSON(t *testing.T) {
	name := `TestImportRegex/"/foo/foo_bar.api"`
	line, err := json.Marshal(map[string]string{"Action": "output", "Output": "    --- FAIL: " + name + " (0.00s)\n"})
	if err != nil {
		t.Fatal(err)
	}
	if !reportedFailure(line, name) {
		t.Errorf("the FAIL line of %s in %s is not found", name, line)
	}
	if reportedFailure(line, "TestImportRegex/other") {
		t.Errorf("another subtest's FAIL line is taken for TestImportRegex/other's")
	}
}
