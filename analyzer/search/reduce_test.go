package search

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/culprit-dev/culprit/analyzer/note"
	"github.com/culprit-dev/culprit/analyzer/result"
	"github.com/culprit-dev/culprit/diffhunks"
)

func TestReduceLargeChange(t *testing.T) {
	ctx := context.Background()
	// 150 hunks, 10 to a file, 5 to a function, and no hint. Hunk 77 is
	// the fault; its revert compiles only with 73 (same function) and 112
	// (another file) reverted too, and 112's only with 73.
	hunks := hunksIn(150, 10, 5)
	o := &oracle{
		passes:   subsetRule(77),
		compiles: func(r set) bool { return (!r[77] || r.has(73, 112)) && (!r[112] || r[73]) },
	}
	f, err := Asymmetric(ctx, o, hunks, ids(1, 150), Plan{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(f.Root, []diffhunks.ID{77}) || !slices.Equal(f.Aux, []diffhunks.ID{73, 112}) {
		t.Errorf("root %v aux %v, want [77] aux [73 112]", f.Root, f.Aux)
	}
	if !f.Proof.Passed() {
		t.Errorf("proof %s, want pass", f.Proof.Outcome)
	}
	if !slices.ContainsFunc(f.Notes, func(n result.Note) bool { return n.Code == note.Reduced && n.N == 150 && n.M == 1 }) {
		t.Errorf("notes %v: want reduced, N 150, M 1", f.Notes)
	}
	o.checkNoRepeats(t, union(f.Root, f.Aux))
	// Files, then functions, then hunks: every unit the compiler lets go
	// is left out at one run, then by halves, before each hunk left is
	// judged: 51 builds and 13 runs, where halving alone took 31 and 18,
	// and one unit at a time 37 and 31. Builds are type checks in process;
	// runs are what costs. Hunks are never tried one by one over the
	// whole change.
	if b, r := o.nbuilds(), len(o.order); b != 51 || r != 13 {
		t.Errorf("%d builds and %d runs, want 51 and 13", b, r)
	}
}

func TestReduceRefactor(t *testing.T) {
	ctx := context.Background()
	// A rename over 100 one-hunk functions: hunks 51-100 use what 1-50
	// declare, so reverting k+50 compiles only with k reverted, and any
	// half of the files leaves a use without its declaration. Hunk 77 is
	// the fault. Every use can go without a run of its own; then each
	// declaration whose use went.
	hunks := hunksIn(100, 10, 1)
	o := &oracle{
		passes: subsetRule(77),
		compiles: func(r set) bool {
			for k := diffhunks.ID(51); k <= 100; k++ {
				if r[k] && !r[k-50] {
					return false
				}
			}
			return true
		},
	}
	f, err := Asymmetric(ctx, o, hunks, ids(1, 100), Plan{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(f.Root, []diffhunks.ID{77}) || !slices.Equal(f.Aux, []diffhunks.ID{27}) {
		t.Errorf("root %v aux %v, want [77] aux [27]", f.Root, f.Aux)
	}
	o.checkNoRepeats(t, union(f.Root, f.Aux))
	// Halving alone ran 23 variants here, most of them one function.
	if r := len(o.order); r != 15 {
		t.Errorf("%d runs, want 15", r)
	}
}

func TestReduceInseparable(t *testing.T) {
	ctx := context.Background()
	// Hunks 41-44 change one signature and its callers: any of them
	// reverted without the others does not compile. 42 is the fault.
	hunks := hunksIn(120, 10, 5)
	coupled := ids(41, 44)
	o := &oracle{
		passes: subsetRule(42),
		compiles: func(r set) bool {
			n := 0
			for _, id := range coupled {
				if r[id] {
					n++
				}
			}
			return n == 0 || n == len(coupled)
		},
	}
	f, err := Asymmetric(ctx, o, hunks, ids(1, 120), Plan{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(f.Root, coupled) || len(f.Aux) != 0 {
		t.Errorf("root %v aux %v, want root %v and no aux", f.Root, f.Aux, coupled)
	}
	if !slices.ContainsFunc(f.Notes, func(n result.Note) bool { return n.Code == note.Reduced && n.M == 0 }) {
		t.Errorf("notes %v: want reduced with no separable root", f.Notes)
	}
}

func TestReduceHintedLast(t *testing.T) {
	// The hunks a hint names are left out last: they are the likeliest to
	// be needed, and trying them first only costs failing runs.
	hunks := hunksIn(120, 10, 5)
	s := newSearcher(&oracle{passes: subsetRule(1)}, hunks, Plan{Hint: []diffhunks.ID{9, 3}})
	got := s.byHint([]diffhunks.ID{9, 1, 3, 5})
	if want := []diffhunks.ID{1, 5, 3, 9}; !slices.Equal(got, want) {
		t.Errorf("byHint = %v, want %v", got, want)
	}
}

func TestRefineLargeAux(t *testing.T) {
	ctx := context.Background()
	// Hunk 7 is the fault; its revert compiles only with all of 11-40
	// (a signature it restores, and every caller). Minimising those 30
	// auxiliary hunks builds each set without one of them, so the check
	// of 1-minimality runs none of those again, and no auxiliary hunk is
	// tried as a root of its own: each try would follow the same cascade.
	hunks := hunksIn(45, 5, 1)
	callers := ids(11, 40)
	o := &oracle{
		passes:   subsetRule(7),
		compiles: func(r set) bool { return !r[7] || r.has(callers...) },
	}
	f, err := Asymmetric(ctx, o, hunks, ids(1, 45), Plan{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(f.Root, []diffhunks.ID{7}) || !slices.Equal(f.Aux, callers) {
		t.Fatalf("root %v aux %v, want [7] aux %v", f.Root, f.Aux, callers)
	}
	for _, id := range callers {
		if o.runs[key(minus(union([]diffhunks.ID{7}, callers), []diffhunks.ID{id}))] > 0 {
			t.Errorf("ran the proven set without %d, which was built and did not compile", id)
		}
		if o.runs[key([]diffhunks.ID{id})] > 0 {
			t.Errorf("tried auxiliary hunk %d as a root of its own", id)
		}
	}
}

func TestReserveStopsMinimising(t *testing.T) {
	// The oracle of TestRefineLargeAux, with the deadline already inside
	// the reserve: the root is still found and proven, the auxiliary
	// hunks are not minimised, and a note says so.
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	hunks := hunksIn(45, 5, 1)
	o := &oracle{
		passes:   subsetRule(7),
		compiles: func(r set) bool { return !r[7] || r.has(ids(11, 40)...) },
	}
	f, err := Asymmetric(ctx, o, hunks, ids(1, 45), Plan{Reserve: 2 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(f.Root, []diffhunks.ID{7}) || !f.Proof.Passed() {
		t.Fatalf("root %v, proof %s: want [7], passed", f.Root, f.Proof.Outcome)
	}
	if !f.Notes.Has(note.MinimiseCut) {
		t.Errorf("notes %v: want minimise-cut", f.Notes)
	}
	if len(f.Aux) <= 30 {
		t.Errorf("aux %v: want more than the 30 needed, as minimising was cut", f.Aux)
	}
	// Without a reserve the same search minimises them to the 30 needed.
	f, err = Asymmetric(ctx, &oracle{passes: o.passes, compiles: o.compiles}, hunks, ids(1, 45), Plan{})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Aux) != 30 || f.Notes.Has(note.MinimiseCut) {
		t.Errorf("without a reserve: aux %v, notes %v; want the 30 needed and no cut", f.Aux, f.Notes)
	}
}

func TestRefineBuildsLargeRestsFirst(t *testing.T) {
	// Hunk 7 is the fault; its revert compiles only with all of 21-50.
	// Given that set from elsewhere (a reduction, or minimising cut short),
	// no build has seen the sets without one hunk each: the check of
	// 1-minimality builds each before running it, so none of the 30 that
	// does not compile is run.
	refineBuildsFirst(t, ids(21, 50))
}

func TestRefineBuildsAuxRestsFirst(t *testing.T) {
	// The same with fewer auxiliary hunks than maxRoleAux: leaving out a
	// hunk reverted so the root compiles is built before it is run.
	refineBuildsFirst(t, ids(21, 30))
}

func refineBuildsFirst(t *testing.T, needed []diffhunks.ID) {
	t.Helper()
	hunks := hunksIn(55, 55, 1)
	o := &oracle{
		passes:   subsetRule(7),
		compiles: func(r set) bool { return !r[7] || r.has(needed...) },
	}
	s := newSearcher(o, hunks, Plan{})
	root, aux, _, err := s.refine(context.Background(), []diffhunks.ID{7}, needed, ids(1, 55))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(root, []diffhunks.ID{7}) || !slices.Equal(aux, needed) {
		t.Fatalf("root %v aux %v, want [7] aux %v", root, aux, needed)
	}
	proven := union([]diffhunks.ID{7}, needed)
	for _, id := range proven {
		rest := minus(proven, []diffhunks.ID{id})
		if o.runs[key(rest)] > 0 && !o.compiles(setOf(rest...)) {
			t.Errorf("ran the proven set without %d, which does not compile", id)
		}
	}
}

func TestReduceKeepsWhatAllCandidatesNeed(t *testing.T) {
	ctx := context.Background()
	// 120 candidates and 10 hunks of the test's own files (121-130),
	// which are not candidates. Hunk 77 is the fault, and the test calls
	// what it added: its revert compiles only with test hunk 125 reverted
	// too. Reverting all candidates needs 125 as well, so every set the
	// reduction builds must have it.
	hunks := hunksIn(130, 10, 5)
	o := &oracle{
		passes:   subsetRule(77),
		compiles: func(r set) bool { return !r[77] || r[125] },
	}
	f, err := Asymmetric(ctx, o, hunks, ids(1, 120), Plan{TestHunks: ids(121, 130)})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(f.Root, []diffhunks.ID{77}) || !slices.Equal(f.Aux, []diffhunks.ID{125}) {
		t.Errorf("root %v aux %v, want [77] aux [125]", f.Root, f.Aux)
	}
	if !f.Proof.Passed() {
		t.Errorf("proof %s, want pass", f.Proof.Outcome)
	}
	if !slices.ContainsFunc(f.Notes, func(n result.Note) bool { return n.Code == note.Reduced && n.M == 1 }) {
		t.Errorf("notes %v: want reduced, M 1", f.Notes)
	}
}
