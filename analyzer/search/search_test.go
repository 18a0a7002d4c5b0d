package search

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/culprit-dev/culprit/analyzer/note"
	"github.com/culprit-dev/culprit/analyzer/trial"
	"github.com/culprit-dev/culprit/diffhunks"
)

type strategy func(context.Context, Tester, []diffhunks.Hunk, []diffhunks.ID, Plan) (*Found, error)

// afterF is F of AFTER's running example in Go (testdata/after-example.txtar)
// with each hunk in r taking its base version:
//
//	c1  var sorted = true  →  false
//	c2  if x > y           →  if x < y
//	c3  sum += z           →  sum += z + 1
//	c4  sum -= z           →  sum += -z
func afterF(r set, x, y, z int) int {
	sorted := false
	if r[1] {
		sorted = true
	}
	sum := 0
	if !sorted {
		less := x < y
		if r[2] {
			less = x > y
		}
		if less {
			sum = x
		} else {
			sum = y
		}
	} else {
		sum = x
	}
	if z > 0 {
		if r[3] {
			sum += z
		} else {
			sum += z + 1
		}
	} else {
		if r[4] {
			sum -= z
		} else {
			sum += -z
		}
	}
	return sum
}

// afterTest is TestF: F(3, 1, 2) must be 5.
func afterTest(r set, _ int) bool { return afterF(r, 3, 1, 2) == 5 }

var afterHunks = []diffhunks.Hunk{
	{ID: 1, File: "calc/calc.go", Kind: diffhunks.Modify},
	{ID: 2, File: "calc/calc.go", Func: "F", Kind: diffhunks.Modify},
	{ID: 3, File: "calc/calc.go", Func: "F", Kind: diffhunks.Modify},
	{ID: 4, File: "calc/calc.go", Func: "F", Kind: diffhunks.Modify},
}

func TestAfterExampleOracle(t *testing.T) {
	// The facts the paper states about its example, checked on the oracle
	// itself so that the strategy tests below rest on them.
	tests := []struct {
		revert []diffhunks.ID
		want   bool
	}{
		{nil, false},
		{[]diffhunks.ID{3}, false},
		{[]diffhunks.ID{2}, false},
		{[]diffhunks.ID{4}, false},
		{[]diffhunks.ID{2, 3}, true},
		{[]diffhunks.ID{1, 3}, true},
		{[]diffhunks.ID{3, 4}, false},
		{[]diffhunks.ID{1, 2, 3, 4}, true},
	}
	for _, tt := range tests {
		if got := afterTest(setOf(tt.revert...), 0); got != tt.want {
			t.Errorf("reverting %v: passes = %v, want %v", tt.revert, got, tt.want)
		}
	}
}

// want is what a strategy run should give. Trials and Builds are exact, so
// that changes to a strategy's cost show up here first.
type want struct {
	root, aux, suspect []diffhunks.ID
	trials, builds     int
	proofCached        bool
	note               note.Code // a code among Found.Notes
	err                error
}

func TestStrategies(t *testing.T) {
	decoys := hunksIn(40, 5, 1)
	// Hunks 13 and 31 are the fault. Three decoys break the build when
	// reverted alone: 4 removes a helper that 5 (same file) calls; 20
	// renames back a function that 11 (another file) calls; 14 is the only
	// use of a variable that 12 declares.
	decoyOracle := func() *oracle {
		return &oracle{
			passes: subsetRule(13, 31),
			compiles: func(r set) bool {
				return !(r[4] && !r[5]) && !(r[20] && !r[11]) && !(r[14] && !r[12])
			},
			msg: func(r set) string {
				var m []string
				if r[4] && !r[5] {
					m = append(m, "pkg/f00.go:9:2: undefined: helper")
				}
				if r[20] && !r[11] {
					m = append(m, "pkg/f02.go:3:9: undefined: NewName")
				}
				if r[14] && !r[12] {
					m = append(m, "pkg/f02.go:20:2: declared and not used: v")
				}
				return strings.Join(m, "\n")
			},
		}
	}
	// Reverting hunk 2 (the only use of n in G) leaves "declared and not
	// used: n" unless hunk 1 (its declaration) is reverted too.
	unusedHunks := []diffhunks.Hunk{
		{ID: 1, File: "a.go", Func: "G", Kind: diffhunks.Modify},
		{ID: 2, File: "a.go", Func: "G", Kind: diffhunks.Modify},
		{ID: 3, File: "a.go", Func: "H", Kind: diffhunks.Modify},
		{ID: 4, File: "b.go", Func: "K", Kind: diffhunks.Modify},
	}
	unusedOracle := func() *oracle {
		return &oracle{
			passes:   subsetRule(2),
			compiles: func(r set) bool { return !(r[2] && !r[1]) },
			msg:      func(set) string { return "./a.go:7:2: declared and not used: n" },
		}
	}
	never := func(set, int) bool { return false }

	tests := []struct {
		name       string
		strategy   strategy
		hunks      []diffhunks.Hunk
		candidates []diffhunks.ID
		opt        Plan
		oracle     func() *oracle
		want       want
	}{
		{
			// Parts follow functions, then hunks. Runs: {1,2,3,4} {1}
			// {2,3,4} | {2,3} | {2} {3} | proof.
			name: "after example/asymmetric", strategy: Asymmetric,
			hunks: afterHunks, candidates: ids(1, 4),
			oracle: func() *oracle { return &oracle{passes: afterTest} },
			want:   want{root: []diffhunks.ID{2, 3}, trials: 7, proofCached: true},
		},
		{
			name: "after example/ddmin", strategy: DDMin,
			hunks: afterHunks, candidates: ids(1, 4),
			oracle: func() *oracle { return &oracle{passes: afterTest} },
			want:   want{root: []diffhunks.ID{2, 3}, trials: 11, proofCached: true},
		},
		{
			name: "after example/one by one falls back", strategy: OneByOne,
			hunks: afterHunks, candidates: ids(1, 4),
			oracle: func() *oracle { return &oracle{passes: afterTest} },
			want: want{root: ids(1, 4), trials: 6, proofCached: true,
				note: note.FellBackToAll},
		},
		{
			// The first cause of the paper holds c3 only: reverting it fails,
			// and the search ends after one trial.
			name: "after example/first cause only", strategy: Asymmetric,
			hunks: afterHunks, candidates: []diffhunks.ID{3},
			oracle: func() *oracle { return &oracle{passes: afterTest} },
			want:   want{trials: 1, note: note.AllFail},
		},
		{
			name: "unused variable/asymmetric", strategy: Asymmetric,
			hunks: unusedHunks, candidates: []diffhunks.ID{2, 3, 4},
			oracle: unusedOracle,
			// Aux search for {2,3,4}: all, then hunks of G and H.
			want: want{root: []diffhunks.ID{2}, aux: []diffhunks.ID{1}, trials: 7, builds: 3, proofCached: true},
		},
		{
			name: "unused variable/one by one", strategy: OneByOne,
			hunks: unusedHunks, candidates: []diffhunks.ID{2, 3, 4},
			oracle: unusedOracle,
			want:   want{root: []diffhunks.ID{2}, aux: []diffhunks.ID{1}, trials: 3, builds: 1, proofCached: true},
		},
		{
			name: "unused variable/no aux", strategy: Asymmetric,
			hunks: unusedHunks, candidates: []diffhunks.ID{2, 3, 4},
			opt:    Plan{NoAux: true},
			oracle: unusedOracle,
			// Reverting all fails to build, so every part and complement
			// is tried too; without aux none builds.
			want: want{trials: 7, note: note.AllFail},
		},
		{
			name: "unused variable/aux pool excludes the declaration", strategy: Asymmetric,
			hunks: unusedHunks, candidates: []diffhunks.ID{2, 3, 4},
			opt:    Plan{Revertible: []diffhunks.ID{2, 3, 4}},
			oracle: unusedOracle,
			want:   want{trials: 7, note: note.Unresolved},
		},
		{
			name: "decoys/asymmetric", strategy: Asymmetric,
			hunks: decoys, candidates: ids(1, 40),
			oracle: decoyOracle,
			want:   want{root: []diffhunks.ID{13, 31}, trials: 46, builds: 21, proofCached: true},
		},
		{
			name: "decoys/ddmin", strategy: DDMin,
			hunks: decoys, candidates: ids(1, 40),
			oracle: decoyOracle,
			want:   want{root: []diffhunks.ID{13, 31}, trials: 46, builds: 21, proofCached: true},
		},
		{
			name: "decoys/one by one", strategy: OneByOne,
			hunks: decoys, candidates: ids(1, 40),
			oracle: decoyOracle,
			want: want{root: ids(1, 40), trials: 45, builds: 4, proofCached: true,
				note: note.FellBackToAll},
		},
		{
			name: "decoys/asymmetric parallel 4", strategy: Asymmetric,
			hunks: decoys, candidates: ids(1, 40), opt: Plan{Parallel: 4},
			oracle: decoyOracle,
			want:   want{root: []diffhunks.ID{13, 31}, trials: 49, builds: 21, proofCached: true},
		},
		{
			name: "nothing passes/asymmetric", strategy: Asymmetric,
			hunks: decoys, candidates: ids(1, 8),
			oracle: func() *oracle { return &oracle{passes: never} },
			// Not monotone as far as the search can tell: the same 27
			// trials as the exhaustive search.
			want: want{trials: 27, note: note.NotMonotone},
		},
		{
			name: "nothing passes/asymmetric taken as monotone", strategy: Asymmetric,
			hunks: decoys, candidates: ids(1, 8), opt: Plan{Monotone: true},
			oracle: func() *oracle { return &oracle{passes: never} },
			// A guessed subset: one trial, no widening.
			want: want{trials: 1, note: note.AllFail},
		},
		{
			name: "not monotone/asymmetric", strategy: Asymmetric,
			hunks: decoys, candidates: ids(1, 8),
			// Hunk 3 is the fault, but 7 rewrote the code 3's old
			// version needs: reverting both fails, reverting 3 passes.
			oracle: func() *oracle {
				return &oracle{passes: always(func(r set) bool { return r[3] && !r[7] })}
			},
			want: want{root: []diffhunks.ID{3}, trials: 6, proofCached: true, note: note.NotMonotone},
		},
		{
			name: "test edited with the fault/asymmetric", strategy: Asymmetric,
			hunks: decoys, candidates: ids(1, 8),
			// Hunks 9 and 10 are the test's own: 10 added an assertion of
			// the faulty behaviour, so reverting 4 passes only with 10.
			opt: Plan{TestHunks: []diffhunks.ID{9, 10}, Revertible: ids(1, 10)},
			oracle: func() *oracle {
				return &oracle{passes: always(func(r set) bool { return r[4] && r[10] })}
			},
			// One check of 1-minimality is a build, not a run: a run
			// that reverted more had failed.
			want: want{root: []diffhunks.ID{4}, aux: []diffhunks.ID{10}, trials: 8, builds: 1, proofCached: true, note: note.TestHunksReverted},
		},
		{
			name: "root needed a declaration/asymmetric", strategy: Asymmetric,
			hunks: hunksIn(4, 4, 4), candidates: ids(1, 4),
			// Hunk 3 is the fault. Reverting 1 (a header) compiles only
			// with 2 and 3 reverted, so the search first settles on root
			// {1} with aux {2, 3}; 3 alone passes, so it is the root.
			oracle: func() *oracle {
				return &oracle{
					passes:   subsetRule(3),
					compiles: func(r set) bool { return !r[1] || r[2] && r[3] },
					msg:      func(set) string { return "pkg/f00.go:3:2: undefined: header" },
				}
			},
			want: want{root: []diffhunks.ID{3}, trials: 7, builds: 2, proofCached: true, note: note.RootByRole},
		},
		{
			name: "nothing passes/asymmetric exhaustive", strategy: Asymmetric,
			hunks: decoys, candidates: ids(1, 8), opt: Plan{Exhaustive: true},
			oracle: func() *oracle { return &oracle{passes: never} },
			want:   want{trials: 27, note: note.NoSubset},
		},
		{
			name: "nothing passes/ddmin", strategy: DDMin,
			hunks: decoys, candidates: ids(1, 8),
			oracle: func() *oracle { return &oracle{passes: never} },
			want:   want{trials: 1, note: note.AllFail},
		},
		{
			name: "nothing passes/one by one", strategy: OneByOne,
			hunks: decoys, candidates: ids(1, 8),
			oracle: func() *oracle { return &oracle{passes: never} },
			want:   want{trials: 9, note: note.NoSingle},
		},
		{
			name: "no candidates", strategy: Asymmetric,
			hunks:  decoys,
			oracle: func() *oracle { return &oracle{passes: never} },
			want:   want{note: note.NoCandidates},
		},
		{
			// Passes only the first time a set is run: the proof catches it.
			name: "proof fails/asymmetric", strategy: Asymmetric,
			hunks: afterHunks, candidates: ids(1, 4),
			oracle: func() *oracle {
				return &oracle{passes: func(r set, nth int) bool { return nth == 0 && afterTest(r, 0) }}
			},
			want: want{suspect: []diffhunks.ID{2, 3}, trials: 7, proofCached: true,
				note: note.ProofRepeat, err: ErrProofFailed},
		},
		{
			name: "proof fails/one by one", strategy: OneByOne,
			hunks: afterHunks, candidates: ids(1, 4),
			oracle: func() *oracle {
				return &oracle{passes: func(r set, nth int) bool { return nth == 0 && r[4] }}
			},
			want: want{suspect: []diffhunks.ID{4}, trials: 5, proofCached: true,
				note: note.ProofRepeat, err: ErrProofFailed},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := tt.oracle()
			f, err := tt.strategy(t.Context(), o, tt.hunks, tt.candidates, tt.opt)
			if !errors.Is(err, tt.want.err) {
				t.Fatalf("err = %v, want %v", err, tt.want.err)
			}
			got := want{
				root: f.Root, aux: f.Aux, suspect: f.Suspect,
				trials: f.Trials, builds: f.Builds, proofCached: f.Proof.Cached,
				note: tt.want.note, err: tt.want.err,
			}
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(want{}), cmpopts.EquateEmpty(), cmpopts.EquateErrors()); diff != "" {
				t.Errorf("result mismatch (-want +got):\n%s", diff)
			}
			if tt.want.note != "" && !f.Notes.Has(tt.want.note) {
				t.Errorf("Notes = %+v, want one of code %s", f.Notes, tt.want.note)
			}
			if tt.want.note == "" && len(f.Notes) > 0 {
				t.Errorf("Notes = %+v, want none", f.Notes)
			}
			if len(f.Root) > 0 && !f.Proof.Passed() {
				t.Errorf("root %v claimed with proof outcome %s", f.Root, f.Proof.Outcome)
			}
			if len(f.Root) > 0 {
				if diff := cmp.Diff(union(f.Root, f.Aux), f.Proof.Reverted); diff != "" {
					t.Errorf("proof reverted (-root∪aux +proof):\n%s", diff)
				}
			}
			if n := o.nbuilds(); n != f.Builds {
				t.Errorf("Found.Builds = %d, oracle saw %d", f.Builds, n)
			}
			if n := len(o.order); n != f.Trials {
				t.Errorf("Found.Trials = %d, oracle saw %d", f.Trials, n)
			}
			proof := union(f.Root, f.Aux)
			if f.Suspect != nil {
				proof = f.Suspect
			}
			o.checkNoRepeats(t, proof)
		})
	}
}

func TestParallelDeterminism(t *testing.T) {
	// Two disjoint roots: {7, 8} and {21}. Which one is found depends only
	// on partition order, never on which trial finishes first.
	rule := always(func(r set) bool { return r.has(7, 8) || r[21] })
	hunks := hunksIn(32, 4, 2)
	seq, err := Asymmetric(t.Context(), &oracle{passes: rule}, hunks, ids(1, 32), Plan{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []int{2, 3, 8, 64} {
		var trials int
		for i := range 10 {
			f, err := Asymmetric(t.Context(), &oracle{passes: rule}, hunks, ids(1, 32), Plan{Parallel: p})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(seq.Root, f.Root); diff != "" {
				t.Fatalf("Parallel %d, round %d: root (-sequential +parallel):\n%s", p, i, diff)
			}
			if i > 0 && f.Trials != trials {
				t.Fatalf("Parallel %d: trials %d, then %d", p, trials, f.Trials)
			}
			trials = f.Trials
		}
	}
}

func TestCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	for name, s := range map[string]strategy{"asymmetric": Asymmetric, "ddmin": DDMin, "one by one": OneByOne} {
		t.Run(name, func(t *testing.T) {
			_, err := s(ctx, &oracle{passes: afterTest}, afterHunks, ids(1, 4), Plan{Parallel: 2})
			if !errors.Is(err, context.Canceled) {
				t.Errorf("err = %v, want context.Canceled", err)
			}
		})
	}
}

func TestProofRecordsOutcome(t *testing.T) {
	f, err := Asymmetric(t.Context(), &oracle{passes: afterTest}, afterHunks, ids(1, 4), Plan{})
	if err != nil {
		t.Fatal(err)
	}
	want := trial.Result{Reverted: []diffhunks.ID{2, 3}, Outcome: trial.Pass, Cached: true}
	if diff := cmp.Diff(want, f.Proof); diff != "" {
		t.Errorf("proof (-want +got):\n%s", diff)
	}
}
