package search

import (
	"context"
	"slices"
	"testing"

	"github.com/culprit-dev/culprit/diffhunks"
)

// twoRoots is a change with two disjoint roots, as when a PR adds a faulty
// parser (hunk 2) and makes an old entry point call it (hunk 6): reverting
// either passes. Hunk 1 removes an import that only hunk 6's old code
// needs, so reverting 6 alone does not compile; hunk 3 declares what the
// parser of hunk 2 uses, so reverting 3 alone does not compile. Hunk 7 is
// the test's own.
func twoRoots(flaky bool) *oracle {
	return &oracle{
		passes: func(r set, nth int) bool {
			if flaky && r[2] && nth > 0 {
				return false
			}
			return r[2] || r[6]
		},
		compiles: func(r set) bool { return !(r[6] && !r[1]) && !(r[3] && !r[2]) },
		msg: func(r set) string {
			if r[6] && !r[1] {
				return "uuid.go:259:8: undefined: strings"
			}
			return "uuid.go:40:2: declared and not used: digits"
		},
	}
}

func twoRootsHunks() []diffhunks.Hunk {
	return []diffhunks.Hunk{
		{ID: 1, File: "uuid.go", Kind: diffhunks.Modify, Diff: "-\t\"strings\"\n"},
		{ID: 2, File: "uuid.go", Func: "(*UUID).parse", Kind: diffhunks.Modify},
		{ID: 3, File: "uuid.go", Func: "(*UUID).parse", Kind: diffhunks.Modify},
		{ID: 4, File: "uuid.go", Func: "String", Kind: diffhunks.Modify},
		{ID: 5, File: "codec.go", Func: "Must", Kind: diffhunks.Modify},
		{ID: 6, File: "uuid.go", Func: "FromString", Kind: diffhunks.Modify},
		{ID: 7, File: "uuid_test.go", Func: "TestShort", Kind: diffhunks.Modify},
	}
}

func TestNearest(t *testing.T) {
	ctx := context.Background()
	hunks := twoRootsHunks()
	candidates := ids(1, 6)
	opt := Plan{Revertible: ids(1, 7), TestHunks: []diffhunks.ID{7}}
	// The search meets the far root first.
	far := &Found{Root: []diffhunks.ID{6}, Aux: []diffhunks.ID{1}, Trials: 5, Builds: 2}

	t.Run("nearer root replaces the found one", func(t *testing.T) {
		o := twoRoots(false)
		f, err := Nearest(ctx, o, hunks, far, candidates, []diffhunks.ID{2, 6}, opt)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(f.Root, []diffhunks.ID{2}) || len(f.Aux) != 0 {
			t.Fatalf("root %v aux %v, want [2] and none", f.Root, f.Aux)
		}
		if len(f.Alternatives) != 1 || !slices.Equal(f.Alternatives[0], []diffhunks.ID{6}) {
			t.Errorf("alternatives %v, want [[6]]", f.Alternatives)
		}
		if !f.Proof.Passed() || !slices.Equal(f.Proof.Reverted, []diffhunks.ID{2}) {
			t.Errorf("proof %+v, want a pass of [2]", f.Proof)
		}
		// One try and its proof, on top of the search's own.
		if f.Trials != far.Trials+2 {
			t.Errorf("trials %d, want %d", f.Trials, far.Trials+2)
		}
		o.checkNoRepeats(t, []diffhunks.ID{2})
	})

	t.Run("found root is nearest", func(t *testing.T) {
		o := twoRoots(false)
		f, err := Nearest(ctx, o, hunks, far, candidates, []diffhunks.ID{6, 2}, opt)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(f.Root, []diffhunks.ID{6}) || len(f.Alternatives) != 0 || len(o.order) != 0 {
			t.Errorf("root %v alternatives %v after %d runs, want [6] unchanged and no run", f.Root, f.Alternatives, len(o.order))
		}
	})

	t.Run("nearer hunks that do not pass leave the root", func(t *testing.T) {
		o := twoRoots(false)
		// 4 and 5 fail alone; 7 is the test's own and never tried; 3
		// needs 2 to compile, and with it passes, but 3 is not the root.
		f, err := Nearest(ctx, o, hunks, far, candidates, []diffhunks.ID{7, 4, 5, 6, 2}, opt)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(f.Root, []diffhunks.ID{6}) || len(f.Alternatives) != 0 {
			t.Errorf("root %v alternatives %v, want [6] unchanged", f.Root, f.Alternatives)
		}
		if f.Trials != far.Trials+2 {
			t.Errorf("trials %d, want %d (4 and 5 once each)", f.Trials, far.Trials+2)
		}
		for _, k := range o.order {
			if k == key([]diffhunks.ID{7}) || k == key([]diffhunks.ID{2}) {
				t.Errorf("ran {%s}: the test's own hunk and hunks after the root are not tried", k)
			}
		}
	})

	t.Run("a nearer root needing auxiliary hunks", func(t *testing.T) {
		o := twoRoots(false)
		// Only 3 is ranked before the root: it does not compile alone,
		// and with 2 reverted too it passes, so 3 is the root and 2 its
		// auxiliary hunk (roles beyond compilation are refine's matter).
		f, err := Nearest(ctx, o, hunks, far, candidates, []diffhunks.ID{3, 6}, opt)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(f.Root, []diffhunks.ID{3}) || !slices.Equal(f.Aux, []diffhunks.ID{2}) {
			t.Errorf("root %v aux %v, want [3] with aux [2]", f.Root, f.Aux)
		}
		if f.Builds <= far.Builds {
			t.Errorf("builds %d, want more than the search's %d", f.Builds, far.Builds)
		}
	})

	t.Run("a nearer hunk that needs the found root to compile", func(t *testing.T) {
		// Reverting 4 compiles only with 6 reverted too, and then it
		// passes because of 6: no other root.
		o := twoRoots(false)
		compiles := o.compiles
		o.compiles = func(r set) bool { return compiles(r) && !(r[4] && !r[6]) }
		f, err := Nearest(ctx, o, hunks, far, candidates, []diffhunks.ID{4, 6}, opt)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(f.Root, []diffhunks.ID{6}) || !slices.Equal(f.Aux, []diffhunks.ID{1}) || len(f.Alternatives) != 0 {
			t.Errorf("root %v aux %v alternatives %v, want the search's answer", f.Root, f.Aux, f.Alternatives)
		}
	})

	t.Run("a nearer root whose proof fails", func(t *testing.T) {
		o := twoRoots(true)
		f, err := Nearest(ctx, o, hunks, far, candidates, []diffhunks.ID{2, 6}, opt)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(f.Root, []diffhunks.ID{6}) || !slices.Equal(f.Aux, []diffhunks.ID{1}) || len(f.Alternatives) != 0 {
			t.Errorf("root %v aux %v alternatives %v, want the search's answer", f.Root, f.Aux, f.Alternatives)
		}
		if f.Trials != far.Trials+2 {
			t.Errorf("trials %d, want %d", f.Trials, far.Trials+2)
		}
	})

	t.Run("the test's own hunks the answer needed", func(t *testing.T) {
		// The change also rewrote the test: nothing passes unless 7 is
		// reverted too.
		o := &oracle{passes: always(func(r set) bool { return r[7] && (r[2] || r[6]) })}
		withTestHunk := &Found{Root: []diffhunks.ID{6}, Aux: []diffhunks.ID{7}}
		f, err := Nearest(ctx, o, hunks, withTestHunk, candidates, []diffhunks.ID{2, 6}, opt)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(f.Root, []diffhunks.ID{2}) || !slices.Equal(f.Aux, []diffhunks.ID{7}) {
			t.Errorf("root %v aux %v, want [2] with the test's [7]", f.Root, f.Aux)
		}
	})
}

// TestNearestAfterAsymmetric runs the search and then Nearest, as Explain
// does: whichever root the search meets, the ranked one ends as the root.
func TestNearestAfterAsymmetric(t *testing.T) {
	ctx := context.Background()
	hunks := twoRootsHunks()
	opt := Plan{Revertible: ids(1, 7), TestHunks: []diffhunks.ID{7}}
	for _, want := range []diffhunks.ID{2, 6} {
		other := diffhunks.ID(8) - want
		o := twoRoots(false)
		found, err := Asymmetric(ctx, o, hunks, ids(1, 6), opt)
		if err != nil {
			t.Fatal(err)
		}
		f, err := Nearest(ctx, o, hunks, found, ids(1, 6), []diffhunks.ID{want, other}, opt)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(f.Root, []diffhunks.ID{want}) {
			t.Errorf("ranked %d first: root %v, want [%d]", want, f.Root, want)
		}
		if !f.Proof.Passed() {
			t.Errorf("ranked %d first: proof %s", want, f.Proof.Outcome)
		}
	}
}

func TestHinted(t *testing.T) {
	ctx := context.Background()
	// 60 hunks, 10 to a file, 5 to a function; hunk 37 is the fault.
	hunks := hunksIn(60, 10, 5)
	search := func(hint []diffhunks.ID, o *oracle) *Found {
		t.Helper()
		f, err := Asymmetric(ctx, o, hunks, ids(1, 60), Plan{Hint: hint})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(f.Root, []diffhunks.ID{37}) {
			t.Fatalf("hint %v: root %v, want [37]", hint, f.Root)
		}
		return f
	}
	plain := search(nil, &oracle{passes: subsetRule(37)})
	o := &oracle{passes: subsetRule(37)}
	// The run points at 12 first (its function fails), then at 38, whose
	// function (36-40) holds the fault.
	hinted := search([]diffhunks.ID{12, 38, 2}, o)
	if hinted.Trials >= plain.Trials {
		t.Errorf("hinted search took %d trials, the plain one %d: want fewer", hinted.Trials, plain.Trials)
	}
	if o.runs[key(ids(11, 15))] != 1 || o.runs[key(ids(36, 40))] == 0 || o.runs[key(ids(1, 5))] != 0 {
		t.Errorf("runs %v: want the functions of 12 and 38 tried, not that of 2", o.order)
	}

	// A Monotone search (over a guess already) does not take hints.
	o = &oracle{passes: subsetRule(37)}
	f, err := Asymmetric(ctx, o, hunks, ids(1, 60), Plan{Hint: []diffhunks.ID{38}, Monotone: true})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(f.Root, []diffhunks.ID{37}) || f.Trials != plain.Trials {
		t.Errorf("monotone: root %v after %d trials, want [37] after the plain search's %d", f.Root, f.Trials, plain.Trials)
	}

	// The hinted function does not compile alone and nothing the compiler
	// says helps: it counts as failing at the cost of a few builds (the
	// whole pool is not built and shrunk with it), and the plain search
	// still finds the root.
	broken := func() *oracle {
		return &oracle{
			passes:   subsetRule(37),
			compiles: func(r set) bool { return !r[12] || r[60] },
			msg:      func(set) string { return "pkg/f01.go:1:1: syntax error" },
		}
	}
	var builds [2]int
	for i, hint := range [][]diffhunks.ID{nil, {12}} {
		o := broken()
		f, err := Asymmetric(ctx, o, hunks, ids(1, 60), Plan{Hint: hint})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(f.Root, []diffhunks.ID{37}) {
			t.Errorf("hint %v: root %v, want [37]", hint, f.Root)
		}
		builds[i] = o.nbuilds()
	}
	if builds[1] > builds[0]+3 {
		t.Errorf("a hint that does not compile cost %d builds, the plain search %d: want at most 3 more", builds[1], builds[0])
	}
}

// TestNearestSparesWhatFailedWithMore: a hunk the failing run executed
// nearer the failure, which the search reverted with others in a run that
// failed, is not tried alone.
func TestNearestSparesWhatFailedWithMore(t *testing.T) {
	ctx := context.Background()
	hunks := hunksIn(8, 8, 1)
	o := &oracle{passes: subsetRule(6)}
	f := &Found{Root: []diffhunks.ID{6}, Trials: 4, failed: [][]diffhunks.ID{{2, 3, 4}}}
	g, err := Nearest(ctx, o, hunks, f, ids(1, 8), []diffhunks.ID{3, 5, 6}, Plan{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(g.Root, []diffhunks.ID{6}) {
		t.Errorf("root %v, want [6]", g.Root)
	}
	if o.runs[key([]diffhunks.ID{3})] != 0 || o.runs[key([]diffhunks.ID{5})] != 1 {
		t.Errorf("runs %v: want {5} tried and {3} not, as {2 3 4} failed", o.runs)
	}
}
