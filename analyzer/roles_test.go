package analyzer

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/culprit-dev/culprit/analyzer/note"
	"github.com/culprit-dev/culprit/analyzer/result"
	"github.com/culprit-dev/culprit/analyzer/search"
	"github.com/culprit-dev/culprit/analyzer/trial"
	"github.com/culprit-dev/culprit/diffhunks"
)

func modify(id int, file string, from, to int) diffhunks.Hunk {
	return diffhunks.Hunk{ID: diffhunks.ID(id), File: file, OldFile: file, Kind: diffhunks.Modify,
		Head: diffhunks.LineRange{Start: from, End: to}}
}

// panicOutput is the tail of a run that panicked in a parser two frames
// below the test, as go test prints it (paths in the run's checkout).
const panicOutput = `--- FAIL: TestShort (0.00s)
panic: runtime error: slice bounds out of range [:12] with capacity 8 [recovered]
goroutine 7 [running]:
testing.tRunner.func1.2({0x5, 0x6})
	/usr/local/go/src/testing/testing.go:1974 +0x232
github.com/x/uuid.(*UUID).parse(...)
	/tmp/culprit-head-1/v2/uuid.go:218 +0x1d
github.com/x/uuid.FromString({0x6, 0x8})
	/tmp/culprit-head-1/v2/uuid.go:259 +0x45
github.com/x/uuid.TestShort(0x1)
	/tmp/culprit-head-1/v2/uuid_test.go:405 +0x33
`

func TestFailureOrder(t *testing.T) {
	hunks := []diffhunks.Hunk{
		modify(1, "v2/uuid.go", 38, 37),
		modify(2, "v2/uuid.go", 213, 218),
		modify(3, "v2/codec.go", 210, 220), // same lines, another file
		modify(4, "v2/uuid.go", 255, 262),
		modify(5, "v2/uuid_test.go", 400, 410),
		{ID: 6, File: "v2/gen.go", Kind: diffhunks.Add},
	}
	res := &Result{Hunks: hunks, Evidence: []trial.Result{
		{Reverted: []diffhunks.ID{1, 2, 3, 4, 5, 6}, Outcome: trial.Pass},
		{Outcome: trial.Crash, Signature: "v2/uuid.go:218", Output: panicOutput},
	}}
	got := failureOrder(res, nil)
	if want := []diffhunks.ID{2, 4, 5}; !slices.Equal(got, want) {
		t.Errorf("failureOrder = %v, want %v (innermost frame first, each hunk once)", got, want)
	}

	// A passing run, or one with hunks reverted, says nothing.
	res.Evidence = []trial.Result{{Reverted: []diffhunks.ID{1}, Outcome: trial.Crash, Output: panicOutput}}
	if got := failureOrder(res, nil); len(got) != 0 {
		t.Errorf("failureOrder of a base run = %v, want none", got)
	}
}

func TestHunkAtPath(t *testing.T) {
	hunks := []diffhunks.Hunk{
		modify(1, "uuid.go", 10, 12),
		modify(2, "sub/uuid.go", 10, 12),
		modify(3, "codec_test.go", 5, 9),
		{ID: 4, File: "gen/new.go", Kind: diffhunks.Add},
	}
	for _, c := range []struct {
		file string
		line int
		want diffhunks.ID
	}{
		{"/tmp/x/uuid.go", 11, 1},
		{"/tmp/x/sub/uuid.go", 11, 2}, // the longest matching path wins
		{"sub/uuid.go", 12, 2},
		{"uuid.go", 11, 0}, // a bare name of two changed files names neither
		{"codec_test.go", 7, 3},
		{"codec_test.go", 10, 0},
		{"/tmp/x/gen/new.go", 400, 4},
		{"/tmp/x/xuuid.go", 11, 0},
	} {
		if got := hunkAtPath(hunks, c.file, c.line); got != c.want {
			t.Errorf("hunkAtPath(%s:%d) = %d, want %d", c.file, c.line, got, c.want)
		}
	}
}

// rules is a Tester over a rule: a set passes when it holds one of the
// roots; it compiles unless a rule says otherwise.
type rules struct {
	roots    [][]diffhunks.ID
	compiles func(r []diffhunks.ID) bool
	runs     [][]diffhunks.ID
}

func (r *rules) Run(_ context.Context, revert []diffhunks.ID) (trial.Result, error) {
	r.runs = append(r.runs, slices.Clone(revert))
	res := trial.Result{Reverted: slices.Clone(revert), Outcome: trial.Fail}
	if r.compiles != nil && !r.compiles(revert) {
		res.Outcome = trial.BuildError
		res.Message = "x.go:1:1: duplicate method UnmarshalJSON"
		return res, nil
	}
	for _, root := range r.roots {
		if !slices.ContainsFunc(root, func(id diffhunks.ID) bool { return !slices.Contains(revert, id) }) {
			res.Outcome = trial.Pass
		}
	}
	return res, nil
}

func (r *rules) Build(ctx context.Context, revert []diffhunks.ID) (trial.Result, error) {
	res, err := r.Run(ctx, revert)
	if res.Outcome != trial.BuildError {
		res.Outcome = trial.Pass
	}
	return res, err
}

func TestNearestRoles(t *testing.T) {
	ctx := context.Background()
	hunks := []diffhunks.Hunk{
		modify(1, "uuid.go", 38, 37),
		modify(2, "uuid.go", 213, 218),
		modify(3, "uuid.go", 255, 262),
	}
	crash := []trial.Result{{Outcome: trial.Crash, Signature: "uuid.go:218",
		Output: "panic: boom\n\t/w/uuid.go:218 +0x1\n\t/w/uuid.go:259 +0x2\n"}}
	opt := search.Plan{Revertible: []diffhunks.ID{1, 2, 3}}

	t.Run("the root on the panic's stack", func(t *testing.T) {
		tr := &rules{roots: [][]diffhunks.ID{{2}, {3}}}
		res := &Result{Hunks: hunks, Evidence: crash}
		f := &search.Found{Root: []diffhunks.ID{3}, Aux: []diffhunks.ID{1}}
		g, err := nearest(ctx, tr, res, f, []diffhunks.ID{1, 2, 3}, nil, opt)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(g.Root, []diffhunks.ID{2}) || len(g.Aux) != 0 {
			t.Errorf("root %v aux %v, want [2]", g.Root, g.Aux)
		}
		if !g.Notes.Has(note.AlternativeRoot) || !slices.Equal(g.Notes[len(g.Notes)-1].Hunks, []diffhunks.ID{3}) {
			t.Errorf("notes %+v, want [3] named as an alternative root", g.Notes)
		}
	})

	// replaced runs nearest where hunk 1 deletes the old decoder and
	// hunk 2 adds the new one (on the stack): restoring the old one alone
	// does not compile (a duplicate method) and deleting the new one
	// alone fails. The search named 1 the root and 2 auxiliary.
	replaced := func(t *testing.T, hs []diffhunks.Hunk) (*rules, *search.Found) {
		t.Helper()
		tr := &rules{
			roots:    [][]diffhunks.ID{{1, 2}},
			compiles: func(r []diffhunks.ID) bool { return !slices.Contains(r, 1) || slices.Contains(r, 2) },
		}
		res := &Result{Hunks: hs, Evidence: crash}
		f := &search.Found{Root: []diffhunks.ID{1}, Aux: []diffhunks.ID{2}}
		g, err := nearest(ctx, tr, res, f, []diffhunks.ID{1, 2, 3}, nil, opt)
		if err != nil {
			t.Fatal(err)
		}
		return tr, g
	}

	t.Run("a root nobody executed next to the code that replaced it", func(t *testing.T) {
		tr, g := replaced(t, hunks)
		if !slices.Equal(g.Root, []diffhunks.ID{1, 2}) || len(g.Aux) != 0 || len(g.Alternatives) != 0 {
			t.Errorf("root %v aux %v alternatives %v, want root [1 2]", g.Root, g.Aux, g.Alternatives)
		}
		if !g.Notes.Has(note.ExecutedRoot) {
			t.Errorf("notes %+v, want executed-root", g.Notes)
		}
		// The run shows nothing of 1, so the ranked hunks were tried
		// alone, once each; both fail.
		if want := [][]diffhunks.ID{{2}, {3}}; !slices.EqualFunc(tr.runs, want, slices.Equal) {
			t.Errorf("runs %v, want %v", tr.runs, want)
		}
	})

	t.Run("an executed hunk that only renames stays auxiliary", func(t *testing.T) {
		// As above, but hunk 2 only renames a receiver and a field: it
		// ran, yet changes no value by itself, so the roles stand.
		renamed := slices.Clone(hunks)
		renamed[1].Diff = "-func (w *rw) Flush() {\n-\tw.ResponseWriter.Flush()\n+func (cw *rw) Flush() {\n+\tcw.w.Flush()\n"
		_, g := replaced(t, renamed)
		if !slices.Equal(g.Root, []diffhunks.ID{1}) || !slices.Equal(g.Aux, []diffhunks.ID{2}) || g.Notes.Has(note.ExecutedRoot) {
			t.Errorf("root %v aux %v notes %+v, want root [1] aux [2]", g.Root, g.Aux, g.Notes)
		}
	})

	t.Run("an executed root keeps its roles", func(t *testing.T) {
		tr := &rules{roots: [][]diffhunks.ID{{2}}}
		res := &Result{Hunks: hunks, Evidence: crash}
		f := &search.Found{Root: []diffhunks.ID{2}, Aux: []diffhunks.ID{3}}
		g, err := nearest(ctx, tr, res, f, []diffhunks.ID{1, 2, 3}, nil, opt)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(g.Root, []diffhunks.ID{2}) || !slices.Equal(g.Aux, []diffhunks.ID{3}) || len(tr.runs) != 0 {
			t.Errorf("root %v aux %v after %d runs, want the answer unchanged and no run", g.Root, g.Aux, len(tr.runs))
		}
	})
}

// TestTreeRoots: where the search could not try the auxiliary hunks as
// roots, those holding a step of the causal tree that ran otherwise
// without the change become root; the test's own hunks, those off the
// tree and those whose steps ran alike in both runs stay auxiliary, and
// the proven set is the same.
func TestTreeRoots(t *testing.T) {
	step := func(id int, passing map[string]string) result.Statement {
		return result.Statement{File: "c.go", Line: id, Hunk: diffhunks.ID(id), Values: map[string]string{"x": "1"},
			Passing: &result.Passing{Values: passing}}
	}
	same, other := map[string]string{"x": "1"}, map[string]string{"x": "2"}
	tree := &result.Node{
		Target:     result.Statement{File: "c_test.go", Line: 9, Hunk: 7, Diverges: true},
		Statements: []result.Statement{step(3, other), step(6, same)},
		Children: []*result.Node{{
			Target:     result.Statement{File: "c.go", Line: 5, Hunk: 5, Deleted: true},
			Statements: []result.Statement{step(0, other), step(4, nil), {File: "c.go", Line: 1, Hunk: 1}},
		}},
	}
	tests := []struct {
		name           string
		tree           *result.Node
		root, aux      []diffhunks.ID
		wantRoot, want []diffhunks.ID
		note           bool
	}{
		{"aux on the tree is root", tree, []diffhunks.ID{2}, []diffhunks.ID{1, 4, 5, 6}, []diffhunks.ID{2, 4, 5}, []diffhunks.ID{1, 6}, true},
		{"the test's hunk stays aux", tree, []diffhunks.ID{3}, []diffhunks.ID{7}, []diffhunks.ID{3}, []diffhunks.ID{7}, false},
		{"no tree", nil, []diffhunks.ID{2}, []diffhunks.ID{4}, []diffhunks.ID{2}, []diffhunks.ID{4}, false},
	}
	t.Run("roles the search checked stand", func(t *testing.T) {
		res := &Result{Tree: tree, Root: []diffhunks.ID{2}, Aux: []diffhunks.ID{4, 5}}
		treeRoots(res, []diffhunks.ID{1, 2, 3, 4, 5, 6})
		if !slices.Equal(res.Root, []diffhunks.ID{2}) || !slices.Equal(res.Aux, []diffhunks.ID{4, 5}) || res.Notes.Has(note.TreeRoot) {
			t.Errorf("root %v aux %v notes %+v, want the roles unchanged", res.Root, res.Aux, res.Notes)
		}
	})
	t.Run("a root that only renames is auxiliary once the tree names others", func(t *testing.T) {
		hunks := []diffhunks.Hunk{
			{ID: 2, Diff: "-func f(i int) int {\n-\treturn xs[i]\n+func f(pos int) int {\n+\treturn xs[pos]\n"},
			{ID: 4, Diff: "-\tx := 1\n+\tx := 2\n"},
		}
		res := &Result{Tree: tree, Hunks: hunks, Root: []diffhunks.ID{2}, Aux: []diffhunks.ID{1, 4, 5, 6}}
		treeRoots(res, []diffhunks.ID{1, 2, 3, 4, 5, 6})
		if !slices.Equal(res.Root, []diffhunks.ID{4, 5}) || !slices.Equal(res.Aux, []diffhunks.ID{1, 2, 6}) {
			t.Errorf("root %v aux %v, want root [4 5] aux [1 2 6]", res.Root, res.Aux)
		}
		if i := slices.IndexFunc(res.Notes, func(n result.Note) bool { return n.Code == note.RenameRoot }); i < 0 || !slices.Equal(res.Notes[i].Hunks, []diffhunks.ID{2}) {
			t.Errorf("notes %+v, want rename-root naming hunk 2", res.Notes)
		}
		// A root that changes behaviour keeps its role.
		res = &Result{Tree: tree, Hunks: hunks, Root: []diffhunks.ID{4}, Aux: []diffhunks.ID{1, 5, 6}}
		treeRoots(res, []diffhunks.ID{1, 2, 3, 4, 5, 6})
		if !slices.Equal(res.Root, []diffhunks.ID{4}) || res.Notes.Has(note.TreeRoot) {
			t.Errorf("root %v notes %+v, want root [4] unchanged", res.Root, res.Notes)
		}
	})
	t.Run("a hunk that only threads a parameter or renames stays auxiliary on the tree", func(t *testing.T) {
		hunks := []diffhunks.Hunk{
			{ID: 4, Diff: "-func g(a int) int {\n+func g(a int, opts Options) int {\n"},
			{ID: 5, Diff: "-\tn := count(xs)\n+\tn := total(xs)\n"},
		}
		res := &Result{Tree: tree, Hunks: hunks, Root: []diffhunks.ID{2}, Aux: []diffhunks.ID{1, 4, 5, 6}}
		res.Notes.Add(result.Note{Code: note.RolesUnchecked, N: 4})
		treeRoots(res, []diffhunks.ID{1, 2, 3, 4, 5, 6})
		if !slices.Equal(res.Root, []diffhunks.ID{2}) || !slices.Equal(res.Aux, []diffhunks.ID{1, 4, 5, 6}) || res.Notes.Has(note.TreeRoot) {
			t.Errorf("root %v aux %v notes %+v, want the roles unchanged", res.Root, res.Aux, res.Notes)
		}
	})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := &Result{Tree: tt.tree, Root: tt.root, Aux: tt.aux}
			res.Notes.Add(result.Note{Code: note.RolesUnchecked, N: len(tt.aux)})
			before := slices.Sorted(slices.Values(append(slices.Clone(tt.root), tt.aux...)))
			treeRoots(res, []diffhunks.ID{1, 2, 3, 4, 5, 6})
			if !slices.Equal(res.Root, tt.wantRoot) || !slices.Equal(res.Aux, tt.want) {
				t.Errorf("root %v aux %v, want root %v aux %v", res.Root, res.Aux, tt.wantRoot, tt.want)
			}
			if after := slices.Sorted(slices.Values(append(slices.Clone(res.Root), res.Aux...))); !slices.Equal(after, before) {
				t.Errorf("reverted set %v, was %v", after, before)
			}
			if res.Notes.Has(note.TreeRoot) != tt.note {
				t.Errorf("notes %+v, want tree-root %v", res.Notes, tt.note)
			}
		})
	}
	t.Run("the count of large auxiliary sets follows the move", func(t *testing.T) {
		aux := []diffhunks.ID{1, 4, 5, 6, 8, 9, 10, 11}
		res := &Result{Tree: tree, Root: []diffhunks.ID{2}, Aux: aux}
		res.Notes.Add(result.Note{Code: note.RolesUnchecked, N: len(aux)})
		res.Notes.Add(result.Note{Code: note.LargeAux, N: len(aux)})
		treeRoots(res, []diffhunks.ID{1, 2, 3, 4, 5, 6, 8, 9, 10, 11})
		if i := slices.IndexFunc(res.Notes, func(n result.Note) bool { return n.Code == note.LargeAux }); i < 0 || res.Notes[i].N != len(res.Aux) || len(res.Aux) != 6 {
			t.Errorf("aux %v, notes %+v: want 6 auxiliary hunks left and large-aux counting them", res.Aux, res.Notes)
		}
		// Down to largeAux or fewer, the note goes.
		res = &Result{Tree: tree, Root: []diffhunks.ID{2}, Aux: aux[:6]}
		res.Notes.Add(result.Note{Code: note.RolesUnchecked, N: 6})
		res.Notes.Add(result.Note{Code: note.LargeAux, N: 6})
		treeRoots(res, []diffhunks.ID{1, 2, 3, 4, 5, 6, 8})
		if res.Notes.Has(note.LargeAux) {
			t.Errorf("aux %v, notes %+v: want no large-aux note", res.Aux, res.Notes)
		}
	})
}

// compilerOutput is a Builder whose variants compile unless out names
// them (by fmt.Sprint of the reverted set), with that compiler output.
type compilerOutput map[string]string

func (c compilerOutput) Build(_ context.Context, revert []diffhunks.ID) (trial.Result, error) {
	res := trial.Result{Reverted: slices.Clone(revert), Outcome: trial.Pass}
	if msg, ok := c[fmt.Sprint(revert)]; ok {
		res.Outcome, res.Message = trial.BuildError, msg
	}
	return res, nil
}

// countingBuilds fails every build, as a revert that lacks a hunk the
// rest needs does, and counts them.
type countingBuilds struct{ n int }

func (c *countingBuilds) Build(_ context.Context, revert []diffhunks.ID) (trial.Result, error) {
	c.n++
	return trial.Result{Reverted: slices.Clone(revert), Outcome: trial.BuildError, Message: "./a.go:3:2: undefined: x"}, nil
}

func TestPreferUses(t *testing.T) {
	base := func(from, to int) diffhunks.LineRange { return diffhunks.LineRange{Start: from, End: to} }
	t.Run("added declaration is not root", func(t *testing.T) {
		// 1 added `n := count()` (head line 10), 2 added its use (head
		// line 20). Reverting 1 alone leaves the use undefined, outside
		// the restored lines; reverting 2 alone leaves n unused.
		hunks := []diffhunks.Hunk{
			{ID: 1, File: "cmd.go", Kind: diffhunks.Modify, Base: base(10, 9), Head: base(10, 10)},
			{ID: 2, File: "cmd.go", Kind: diffhunks.Modify, Base: base(19, 18), Head: base(20, 20)},
		}
		b := compilerOutput{
			"[1]": "./cmd.go:19:9: undefined: n",
			"[2]": "./cmd.go:10:2: declared and not used: n",
		}
		f := &search.Found{Root: []diffhunks.ID{1}, Aux: []diffhunks.ID{2}}
		if err := preferUses(t.Context(), b, f, hunks, []diffhunks.ID{1, 2, 3}); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(f.Root, []diffhunks.ID{2}) || !slices.Equal(f.Aux, []diffhunks.ID{1}) {
			t.Errorf("roles = root %v aux %v, want root [2] aux [1]", f.Root, f.Aux)
		}
	})
	t.Run("a swap leaves the test's own hunks auxiliary", func(t *testing.T) {
		// The root, hunk 1, brings back a deleted import; reverting it
		// alone leaves the import unused in its own line. The hunks that
		// dropped its uses are hunk 2 and hunk 3, a test hunk: only hunk 2
		// becomes root.
		hunks := []diffhunks.Hunk{
			{ID: 1, File: "cmd.go", Kind: diffhunks.Modify, Base: base(3, 3), Head: base(3, 2)},
			{ID: 2, File: "cmd.go", Kind: diffhunks.Modify, Base: base(10, 10), Head: base(11, 11)},
			{ID: 3, File: "cmd_test.go", Kind: diffhunks.Modify, Base: base(7, 7), Head: base(7, 7)},
		}
		b := compilerOutput{"[1]": "./cmd.go:3:2: \"strings\" imported and not used"}
		f := &search.Found{Root: []diffhunks.ID{1}, Aux: []diffhunks.ID{2, 3}}
		if err := preferUses(t.Context(), b, f, hunks, []diffhunks.ID{1, 2}); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(f.Root, []diffhunks.ID{2}) || !slices.Equal(f.Aux, []diffhunks.ID{1, 3}) {
			t.Errorf("roles = root %v aux %v, want root [2] aux [1 3]", f.Root, f.Aux)
		}
		// With only test hunks beside it, the root stays.
		f = &search.Found{Root: []diffhunks.ID{1}, Aux: []diffhunks.ID{3}}
		if err := preferUses(t.Context(), b, f, hunks, []diffhunks.ID{1, 2}); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(f.Root, []diffhunks.ID{1}) || !slices.Equal(f.Aux, []diffhunks.ID{3}) {
			t.Errorf("roles = root %v aux %v, want root [1] aux [3]", f.Root, f.Aux)
		}
	})
	t.Run("restored uses stay root", func(t *testing.T) {
		// The change deleted `matches := …` (base line 10) and its two
		// uses (base 12-13, 15-17). Reverting the uses alone leaves
		// matches undefined in the restored lines themselves; reverting
		// the declaration alone leaves it unused. The uses are the root.
		hunks := []diffhunks.Hunk{
			{ID: 1, File: "cmd.go", Kind: diffhunks.Modify, Base: base(10, 10), Head: base(10, 9)},
			{ID: 2, File: "cmd.go", Kind: diffhunks.Modify, Base: base(12, 13), Head: base(11, 11)},
			{ID: 3, File: "cmd.go", Kind: diffhunks.Modify, Base: base(15, 17), Head: base(13, 12)},
		}
		b := compilerOutput{
			"[2 3]": "./cmd.go:11:5: undefined: matches\n./cmd.go:15:6: undefined: matches",
			"[1]":   "./cmd.go:10:2: declared and not used: matches",
		}
		f := &search.Found{Root: []diffhunks.ID{2, 3}, Aux: []diffhunks.ID{1}}
		if err := preferUses(t.Context(), b, f, hunks, []diffhunks.ID{1, 2, 3}); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(f.Root, []diffhunks.ID{2, 3}) || !slices.Equal(f.Aux, []diffhunks.ID{1}) {
			t.Errorf("roles = root %v aux %v, want root [2 3] aux [1]", f.Root, f.Aux)
		}
	})
}

func TestOffTreeRoots(t *testing.T) {
	// The tree shows an effect of the change in hunk 16 (the new
	// implementation, which ran only with the change) alone; hunk 9's
	// step ran alike in both runs.
	tree := &result.Node{
		Target: result.Statement{File: "e_test.go", Line: 9},
		Statements: []result.Statement{
			{File: "unmarshal.go", Line: 40, Hunk: 16, Passing: &result.Passing{Missing: true}},
			{File: "marshal.go", Line: 70, Hunk: 9, Values: map[string]string{"x": "1"}, Passing: &result.Passing{Values: map[string]string{"x": "1"}}},
		},
	}
	proof := func(ids ...diffhunks.ID) *trial.Result {
		return &trial.Result{Reverted: ids, Outcome: trial.Pass}
	}
	t.Run("a coupled root off the tree is auxiliary", func(t *testing.T) {
		// Without 7 (the old implementation it deleted), removing 16
		// leaves the method undefined.
		b := compilerOutput{"[8 16]": "./marshal.go:60:4: e.decode undefined (type *Event has no field or method decode)"}
		res := &Result{Tree: tree, Root: []diffhunks.ID{7, 16}, Aux: []diffhunks.ID{8}, Proof: proof(7, 8, 16),
			AuxNeeds: []result.AuxNeed{{Hunk: 8, File: "marshal.go", Line: 61, Error: "undefined: x"}}}
		if err := offTreeRoots(t.Context(), b, res); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(res.Root, []diffhunks.ID{16}) || !slices.Equal(res.Aux, []diffhunks.ID{7, 8}) {
			t.Errorf("root %v aux %v, want root [16] aux [7 8]", res.Root, res.Aux)
		}
		if i := slices.IndexFunc(res.Notes, func(n result.Note) bool { return n.Code == note.OffTreeAux }); i < 0 || !slices.Equal(res.Notes[i].Hunks, []diffhunks.ID{7}) {
			t.Errorf("notes %+v, want off-tree-aux naming hunk 7", res.Notes)
		}
		want := []result.AuxNeed{
			{Hunk: 7, File: "./marshal.go", Line: 60, Error: "e.decode undefined (type *Event has no field or method decode)"},
			{Hunk: 8, File: "marshal.go", Line: 61, Error: "undefined: x"},
		}
		if !slices.Equal(res.AuxNeeds, want) {
			t.Errorf("aux needs %+v, want %+v", res.AuxNeeds, want)
		}
	})
	t.Run("a root whose steps ran alike is auxiliary too", func(t *testing.T) {
		b := compilerOutput{"[8 16]": "./marshal.go:71:2: undefined: helper"}
		res := &Result{Tree: tree, Root: []diffhunks.ID{9, 16}, Aux: []diffhunks.ID{8}, Proof: proof(8, 9, 16)}
		if err := offTreeRoots(t.Context(), b, res); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(res.Root, []diffhunks.ID{16}) || !slices.Equal(res.Aux, []diffhunks.ID{8, 9}) {
			t.Errorf("root %v aux %v, want root [16] aux [8 9]", res.Root, res.Aux)
		}
	})
	t.Run("a root the revert compiles without stays", func(t *testing.T) {
		res := &Result{Tree: tree, Root: []diffhunks.ID{7, 16}, Aux: []diffhunks.ID{8}, Proof: proof(7, 8, 16)}
		if err := offTreeRoots(t.Context(), compilerOutput{}, res); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(res.Root, []diffhunks.ID{7, 16}) || res.Notes.Has(note.OffTreeAux) {
			t.Errorf("root %v notes %+v, want root [7 16] unchanged", res.Root, res.Notes)
		}
	})
	t.Run("at most maxOffTree builds, each one a move when it fails", func(t *testing.T) {
		// Twelve root hunks off the tree, each needed to compile: the
		// check stops after maxOffTree builds, having moved each.
		root := []diffhunks.ID{16}
		for id := diffhunks.ID(20); id < 32; id++ {
			root = append(root, id)
		}
		b := &countingBuilds{}
		res := &Result{Tree: tree, Root: slices.Clone(root), Proof: proof(root...)}
		if err := offTreeRoots(t.Context(), b, res); err != nil {
			t.Fatal(err)
		}
		if b.n != maxOffTree || len(res.Aux) != maxOffTree || len(res.Root) != len(root)-maxOffTree {
			t.Errorf("%d builds, root %v aux %v: want %d builds and as many moves", b.n, res.Root, res.Aux, maxOffTree)
		}
	})
	t.Run("a tree that reaches no root hunk moves nothing", func(t *testing.T) {
		b := compilerOutput{"[8 16]": "./marshal.go:60:4: undefined: decode", "[7 8]": "./marshal.go:61:4: undefined: x"}
		res := &Result{Tree: tree, Root: []diffhunks.ID{7, 9}, Aux: []diffhunks.ID{8}, Proof: proof(7, 8, 9)}
		if err := offTreeRoots(t.Context(), b, res); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(res.Root, []diffhunks.ID{7, 9}) {
			t.Errorf("root %v, want [7 9] unchanged", res.Root)
		}
	})
}

func TestWholeRoles(t *testing.T) {
	// The tree shows an effect of the change in hunks 4 and 5 (code only
	// the failing run ran); hunk 6's step ran alike in both runs, and
	// hunk 9 is the test's own.
	tree := &result.Node{
		Target: result.Statement{File: "f_test.go", Line: 9, Hunk: 9, Diverges: true},
		Statements: []result.Statement{
			{File: "f.go", Line: 29, Hunk: 5, Passing: &result.Passing{Missing: true}},
			{File: "f.go", Line: 24, Hunk: 4, Passing: &result.Passing{Missing: true}},
			{File: "f.go", Line: 34, Hunk: 6, Values: map[string]string{"i": "3"}, Passing: &result.Passing{Values: map[string]string{"i": "3"}}},
		},
	}
	candidates := []diffhunks.ID{1, 4, 5, 6}
	proof := &trial.Result{Reverted: []diffhunks.ID{1, 4, 5, 6, 9}, Outcome: trial.Pass}
	// Without any one hunk of the set, the revert does not compile.
	whole := compilerOutput{
		"[4 5 6 9]": "./f.go:30:2: undefined: strings", "[1 5 6 9]": "./f.go:30:2: undefined: numString",
		"[1 4 6 9]": "./f.go:35:2: undefined: index", "[1 4 5 9]": "./f.go:40:7: undefined: group",
	}
	needs := func(ids ...diffhunks.ID) []result.AuxNeed {
		var out []result.AuxNeed
		for _, id := range ids {
			out = append(out, result.AuxNeed{Hunk: id, File: "f.go", Line: int(id), Error: "undefined: x"})
		}
		return out
	}
	t.Run("the tree names the root of a set that compiles only whole", func(t *testing.T) {
		res := &Result{Tree: tree, Root: []diffhunks.ID{4}, Aux: []diffhunks.ID{1, 5, 6, 9}, Proof: proof, AuxNeeds: needs(1, 5, 6)}
		res.Notes.Add(result.Note{Code: note.RootByRole, Hunks: []diffhunks.ID{4}})
		if err := wholeRoles(t.Context(), whole, res, candidates); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(res.Root, []diffhunks.ID{4, 5}) || !slices.Equal(res.Aux, []diffhunks.ID{1, 6, 9}) {
			t.Errorf("root %v aux %v, want root [4 5] aux [1 6 9]", res.Root, res.Aux)
		}
		if i := slices.IndexFunc(res.Notes, func(n result.Note) bool { return n.Code == note.WholeRoles }); i < 0 || !slices.Equal(res.Notes[i].Hunks, []diffhunks.ID{4, 5}) {
			t.Errorf("notes %+v, want whole-roles naming hunks 4 and 5", res.Notes)
		}
		if res.Notes.Has(note.RootByRole) {
			t.Errorf("notes %+v: the search's label of hunk 4 as the root is still claimed", res.Notes)
		}
	})
	t.Run("a root hunk off the tree becomes auxiliary with its reason", func(t *testing.T) {
		b := whole
		res := &Result{Tree: tree, Root: []diffhunks.ID{4, 6}, Aux: []diffhunks.ID{1, 5, 9}, Proof: proof, AuxNeeds: needs(1, 5)}
		if err := wholeRoles(t.Context(), b, res, candidates); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(res.Root, []diffhunks.ID{4, 5}) || !slices.Equal(res.Aux, []diffhunks.ID{1, 6, 9}) {
			t.Errorf("root %v aux %v, want root [4 5] aux [1 6 9]", res.Root, res.Aux)
		}
		want := append(needs(1, 5), result.AuxNeed{Hunk: 6, File: "./f.go", Line: 40, Error: "undefined: group"})
		slices.SortFunc(want, func(x, y result.AuxNeed) int { return int(x.Hunk) - int(y.Hunk) })
		if !slices.Equal(res.AuxNeeds, want) {
			t.Errorf("aux needs %+v, want %+v", res.AuxNeeds, want)
		}
	})
	t.Run("a hunk that only threads a parameter is auxiliary", func(t *testing.T) {
		threaded := &result.Node{Target: tree.Target, Statements: append(slices.Clone(tree.Statements),
			result.Statement{File: "f.go", Line: 35, Hunk: 6, Passing: &result.Passing{Text: "pad(s, n)"}})}
		hunks := []diffhunks.Hunk{{ID: 6, File: "f.go", Diff: "-func padLeft(s string, n int) string {\n-\treturn pad(s, n)\n" +
			"+func padLeft(s string, n int, r rune) string {\n+\treturn pad(s, n, r)\n"}}
		b := whole
		res := &Result{Tree: threaded, Hunks: hunks, Root: []diffhunks.ID{4}, Aux: []diffhunks.ID{1, 5, 6, 9}, Proof: proof, AuxNeeds: needs(1, 5, 6)}
		if err := wholeRoles(t.Context(), b, res, candidates); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(res.Root, []diffhunks.ID{4, 5}) || !slices.Equal(res.Aux, []diffhunks.ID{1, 6, 9}) {
			t.Errorf("root %v aux %v, want root [4 5] aux [1 6 9]", res.Root, res.Aux)
		}
		if i := slices.IndexFunc(res.Notes, func(n result.Note) bool { return n.Code == note.WholeRoles }); i < 0 || res.Notes[i].N != 1 {
			t.Errorf("notes %+v, want whole-roles counting one threading hunk", res.Notes)
		}
	})
	t.Run("a hunk that only renames is auxiliary", func(t *testing.T) {
		hunks := []diffhunks.Hunk{{ID: 5, File: "f.go", Diff: "-\tfor i := range xs {\n-\t\tsum += xs[i]\n+\tfor k := range xs {\n+\t\tsum += xs[k]\n"}}
		b := whole
		res := &Result{Tree: tree, Hunks: hunks, Root: []diffhunks.ID{4, 5}, Aux: []diffhunks.ID{1, 6, 9}, Proof: proof, AuxNeeds: needs(1, 6)}
		if err := wholeRoles(t.Context(), b, res, candidates); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(res.Root, []diffhunks.ID{4}) || !slices.Equal(res.Aux, []diffhunks.ID{1, 5, 6, 9}) {
			t.Errorf("root %v aux %v, want root [4] aux [1 5 6 9]", res.Root, res.Aux)
		}
	})
	t.Run("a declaration the others use is auxiliary", func(t *testing.T) {
		// Hunk 5 adds bonus := len(xs), which hunk 4 uses: without 5 the
		// revert leaves bonus declared and not used in 5's own line.
		hunks := []diffhunks.Hunk{
			{ID: 1, File: "f.go", Base: diffhunks.LineRange{Start: 3, End: 3}, Head: diffhunks.LineRange{Start: 3, End: 3}},
			{ID: 4, File: "f.go", Base: diffhunks.LineRange{Start: 24, End: 26}, Head: diffhunks.LineRange{Start: 24, End: 26}},
			{ID: 5, File: "f.go", Base: diffhunks.LineRange{Start: 29, End: 28}, Head: diffhunks.LineRange{Start: 29, End: 29}, Diff: "+\tbonus := len(xs)\n"},
			{ID: 6, File: "f.go", Base: diffhunks.LineRange{Start: 34, End: 36}, Head: diffhunks.LineRange{Start: 34, End: 36}},
		}
		b := maps.Clone(whole)
		b["[1 4 6 9]"] = "./f.go:29:2: declared and not used: bonus"
		res := &Result{Tree: tree, Hunks: hunks, Root: []diffhunks.ID{6}, Aux: []diffhunks.ID{1, 4, 5, 9}, Proof: proof, AuxNeeds: needs(1, 4, 5)}
		if err := wholeRoles(t.Context(), b, res, candidates); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(res.Root, []diffhunks.ID{4}) || !slices.Equal(res.Aux, []diffhunks.ID{1, 5, 6, 9}) {
			t.Errorf("root %v aux %v, want root [4] aux [1 5 6 9]", res.Root, res.Aux)
		}
	})
	t.Run("a root the rest compiles without keeps the roles", func(t *testing.T) {
		res := &Result{Tree: tree, Root: []diffhunks.ID{4}, Aux: []diffhunks.ID{1, 5, 6, 9}, Proof: proof, AuxNeeds: needs(1, 5, 6)}
		if err := wholeRoles(t.Context(), compilerOutput{}, res, candidates); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(res.Root, []diffhunks.ID{4}) || res.Notes.Has(note.WholeRoles) {
			t.Errorf("root %v notes %+v, want root [4] unchanged", res.Root, res.Notes)
		}
	})
	t.Run("an auxiliary hunk the revert compiles without keeps the roles, with no build", func(t *testing.T) {
		b := &countingBuilds{}
		res := &Result{Tree: tree, Root: []diffhunks.ID{4}, Aux: []diffhunks.ID{1, 5, 6, 9}, Proof: proof, AuxNeeds: needs(1, 6)}
		if err := wholeRoles(t.Context(), b, res, candidates); err != nil {
			t.Fatal(err)
		}
		if b.n != 0 || !slices.Equal(res.Root, []diffhunks.ID{4}) {
			t.Errorf("%d builds, root %v: want none and root [4]", b.n, res.Root)
		}
	})
}
