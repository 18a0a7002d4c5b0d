package search

import (
	"context"
	"slices"
	"testing"

	"github.com/culprit-dev/culprit/analyzer/note"
	"github.com/culprit-dev/culprit/analyzer/result"
	"github.com/culprit-dev/culprit/diffhunks"
)

// TestRenameOnlyAndPlumbing: the two lexical tests of a hunk that
// changes no value by itself, on the same diffs. A rename is no threading,
// and a threaded parameter no rename.
func TestRenameOnlyAndPlumbing(t *testing.T) {
	for _, tt := range []struct {
		name, diff       string
		rename, plumbing bool
	}{
		{"rename", "-func double(x int) int { return 2 * x }\n+func twice(x int) int { return 2 * x }\n", true, false},
		{"rename with comment", "-// double\n-func double(x int) int\n+// twice\n+func twice(x int) int\n", true, false},
		{"reordered parameters", "-func clamp(x, lo, hi int) int {\n+func limit(lo, hi, x int) int {\n", false, false},
		{"changed constant", "-\treturn double(x) + 1\n+\treturn twice(x) + 2\n", false, false},
		{"inconsistent rename", "-\ta, a := f()\n+\tb, c := f()\n", false, false},
		{"a receiver and a field renamed in a chain",
			"-func (w *rw) WriteHeader(c int) {\n-\tw.ResponseWriter.WriteHeader(c)\n" +
				"+func (cw *rw) WriteHeader(c int) {\n+\tcw.w.WriteHeader(c)\n", true, false},
		{"arguments swapped", "-\treturn sub(a, b)\n+\treturn sub(b, a)\n", false, false},
		{"arguments shifted", "-\treturn sub(a, b)\n+\treturn sub(b, c)\n", false, false},
		{"a name renamed at one use only", "-\tx.f(x)\n+\ty.f(x)\n", false, false},
		{"two names merged", "-\treturn a + b\n+\treturn c + c\n", false, false},
		{"no change in code", "-// old words\n+// new words\n", false, false},
		{"added line", "+\tx++\n", false, false},
		{"a parameter threaded through a wrapper",
			"-func padLeft(str string, n int, style *ansi.Style) string {\n-\treturn pad(str, -n, style)\n" +
				"+func padLeft(str string, n int, style *ansi.Style, r rune) string {\n+\treturn pad(str, -n, style, r)\n", false, true},
		{"a parameter added, with a comment",
			"-func pad(str string, n int, style *ansi.Style) string {\n" +
				"+// r is the rune to pad with.\n+func pad(str string, n int, style *ansi.Style, r rune) string {\n", false, true},
		{"a parameter removed", "-func f(ctx context.Context, xs ...[]int) {\n+func f(xs ...[]int) {\n", false, true},
		{"a parameter the only one", "-func f() {\n+func f(opts *Options) {\n", false, true},
		{"an argument passing a value from elsewhere",
			"-\t\t\tstr = padLeft(str, leftPadding, st)\n+\t\t\tstr = padLeft(str, leftPadding, st, nbsp)\n", false, false},
		{"an argument passing a literal",
			"-\tstr = padRight(str, rightMargin, &style)\n+\tstr = padRight(str, rightMargin, &style, ' ')\n", false, false},
		{"the use of the new parameter", "-\tsp := strings.Repeat(\" \", abs(n))\n+\tsp := strings.Repeat(string(r), abs(n))\n", false, false},
		{"arguments replaced", "-\th.Push(&heapItem{point: p, distance: d})\n+\th.Push(p, d)\n", false, false},
		{"a name added outside parentheses", "-\tx := f()\n+\tx, err := f()\n", false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := renameOnly(tt.diff); got != tt.rename {
				t.Errorf("renameOnly(%q) = %v, want %v", tt.diff, got, tt.rename)
			}
			if got := Plumbing(diffhunks.Hunk{Diff: tt.diff}); got != tt.plumbing {
				t.Errorf("Plumbing(%q) = %v, want %v", tt.diff, got, tt.plumbing)
			}
		})
	}
}

// TestRefineCompileOnlyRoot: a change deleted a declaration (hunk 1) and
// its two uses (hunks 2 and 3). Reverting the uses without the declaration
// does not compile, and the test passes only with both uses back. A search
// that settled on all three keeps the uses as root and shows the
// declaration as auxiliary, as the leave-one-out of reduce would.
func TestRefineCompileOnlyRoot(t *testing.T) {
	hunks := hunksIn(4, 4, 3)
	o := &oracle{
		passes: subsetRule(2, 3),
		compiles: func(r set) bool {
			return !(r[2] || r[3]) || r[1]
		},
		msg: func(set) string { return "pkg/f00.go:12:5: undefined: matches" },
	}
	s := newSearcher(o, hunks, Plan{})
	root, aux, why, err := s.refine(t.Context(), ids(1, 3), nil, ids(1, 4))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(root, []diffhunks.ID{2, 3}) || !slices.Equal(aux, []diffhunks.ID{1}) {
		t.Errorf("refine = root %v aux %v, want root [2 3] aux [1]", root, aux)
	}
	if !result.Findings(why).Has(note.CompileOnly) {
		t.Errorf("notes = %+v, want %s", why, note.CompileOnly)
	}

	// When the failing run executed the declaration's hunk, it is not
	// there only to compile: the roles stand.
	s = newSearcher(&oracle{passes: o.passes, compiles: o.compiles, msg: o.msg}, hunks, Plan{Ran: []diffhunks.ID{1}})
	root, aux, why, err = s.refine(t.Context(), ids(1, 3), nil, ids(1, 4))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(root, ids(1, 3)) || len(aux) != 0 || result.Findings(why).Has(note.CompileOnly) {
		t.Errorf("refine with hunk 1 executed = root %v aux %v notes %+v, want root [1 2 3]", root, aux, why)
	}

	// Two hunks that compile only together, both needed: the runs cannot
	// tell them apart, and both stay root.
	o = &oracle{
		passes:   subsetRule(1, 2),
		compiles: func(r set) bool { return r[1] == r[2] },
		msg:      func(set) string { return "pkg/f00.go:3:1: undefined: helper" },
	}
	s = newSearcher(o, hunks, Plan{})
	root, aux, why, err = s.refine(t.Context(), ids(1, 2), nil, ids(1, 4))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(root, []diffhunks.ID{1, 2}) || len(aux) != 0 || result.Findings(why).Has(note.CompileOnly) {
		t.Errorf("refine = root %v aux %v notes %+v, want root [1 2] and no note", root, aux, why)
	}
}

// TestRootByRoleSkipsDeclarations: three hunks that compile only
// together, all needed to pass, and the search settled on hunk 2, which
// only renames. Among the others of the same size, the import (hunk 1)
// changes no value by itself; hunk 3, which does, replaces the root.
func TestRootByRoleSkipsDeclarations(t *testing.T) {
	hunks := hunksIn(3, 4, 4)
	hunks[0].Diff = "+\t\"github.com/felixge/httpsnoop\"\n"
	hunks[1].Diff = "-func (w *rw) Flush() {\n-\tw.ResponseWriter.Flush()\n+func (cw *rw) Flush() {\n+\tcw.w.Flush()\n"
	hunks[2].Diff = "-\tw = &rw{ResponseWriter: w}\n+\tw = httpsnoop.Wrap(w, hooks)\n"
	o := &oracle{
		passes:   subsetRule(1, 2, 3),
		compiles: func(r set) bool { return r[1] == r[2] && r[2] == r[3] },
		msg:      func(set) string { return "pkg/f00.go:3:1: undefined: httpsnoop" },
	}
	s := newSearcher(o, hunks, Plan{})
	root, aux, why, err := s.rootByRole(t.Context(), ids(2, 2), []diffhunks.ID{1, 3}, ids(1, 3), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(root, []diffhunks.ID{3}) || !slices.Equal(aux, []diffhunks.ID{1, 2}) || !result.Findings(why).Has(note.RootByRole) {
		t.Errorf("rootByRole = root %v aux %v notes %+v, want root [3] aux [1 2]", root, aux, why)
	}
}

func TestImportsOnly(t *testing.T) {
	for _, tt := range []struct {
		diff string
		want bool
	}{
		{"+\t\"strings\"\n", true},
		{"+\tsnoop \"github.com/felixge/httpsnoop\"\n-\t\"io\"\n", true},
		{"+import (\n+\t\"fmt\"\n+)\n", true},
		{"+\t_ \"image/png\"\n", false},
		{"+\tx := \"strings\"\n", false},
		{"-// old\n+// new\n", false},
	} {
		if got := importsOnly(diffhunks.Hunk{Diff: tt.diff}); got != tt.want {
			t.Errorf("importsOnly(%q) = %v, want %v", tt.diff, got, tt.want)
		}
	}
}

// TestRefineSparesWhatFailedWithMore: the search ran {1, 2, 3}, which
// failed, and settled on root {5} with hunk 1 as auxiliary. Trying 1 as a
// root of its own, and checking the root without 5 (which leaves {1}),
// would each run a subset of that failed set: neither runs, the first
// only builds. Leaving 1 out runs {5}, which passes, so 1 goes.
func TestRefineSparesWhatFailedWithMore(t *testing.T) {
	ctx := context.Background()
	hunks := hunksIn(10, 10, 1)
	o := &oracle{passes: subsetRule(5)}
	s := newSearcher(o, hunks, Plan{})
	if r, err := s.run(ctx, ids(1, 3)); err != nil || r.Passed() {
		t.Fatalf("run of {1 2 3}: %v, %v; want a failure", r.Outcome, err)
	}
	root, aux, _, err := s.refine(ctx, []diffhunks.ID{5}, []diffhunks.ID{1}, ids(1, 10))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(root, []diffhunks.ID{5}) || len(aux) != 0 {
		t.Errorf("root %v aux %v, want [5] and none", root, aux)
	}
	if n := o.runs[key([]diffhunks.ID{1})]; n != 0 {
		t.Errorf("{1} ran %d times; a failed run had reverted it with more", n)
	}
	if n := o.runs[key([]diffhunks.ID{5})]; n != 1 {
		t.Errorf("{5} ran %d times, want 1", n)
	}
}
