package search

import (
	"slices"
	"testing"

	"github.com/culprit-dev/culprit/analyzer/note"
	"github.com/culprit-dev/culprit/analyzer/result"
	"github.com/culprit-dev/culprit/diffhunks"
)

func TestRenameOnly(t *testing.T) {
	for _, tt := range []struct {
		name, diff string
		want       bool
	}{
		{"rename", "-func double(x int) int { return 2 * x }\n+func twice(x int) int { return 2 * x }\n", true},
		{"rename with comment", "-// double\n-func double(x int) int\n+// twice\n+func twice(x int) int\n", true},
		{"reordered parameters", "-func clamp(x, lo, hi int) int {\n+func limit(lo, hi, x int) int {\n", false},
		{"changed constant", "-\treturn double(x) + 1\n+\treturn twice(x) + 2\n", false},
		{"inconsistent rename", "-\ta, a := f()\n+\tb, c := f()\n", false},
		{"no change in code", "-// old words\n+// new words\n", false},
		{"added line", "+\tx++\n", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := renameOnly(tt.diff); got != tt.want {
				t.Errorf("renameOnly(%q) = %v, want %v", tt.diff, got, tt.want)
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
