package search

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/culprit-dev/culprit/diffhunks"
)

func TestAuxFor(t *testing.T) {
	// a.go:  1 import "strings"   (outside any function)
	//        2 n := len(xs)       in G
	//        3 return n           in G, the only use of n
	//        4 strings.ToUpper(s) in H, the only use of "strings"
	//        5 unrelated edit     in H
	// lib.go 6 func Old → func New (the declaration, in New)
	// x.go   7 New() call         in A
	// y.go   8 New() call         in B
	// z.go   9..16 unrelated edits, two per function
	hunks := []diffhunks.Hunk{
		{ID: 1, File: "a.go", Kind: diffhunks.Modify},
		{ID: 2, File: "a.go", Func: "G", Kind: diffhunks.Modify},
		{ID: 3, File: "a.go", Func: "G", Kind: diffhunks.Modify},
		{ID: 4, File: "a.go", Func: "H", Kind: diffhunks.Modify},
		{ID: 5, File: "a.go", Func: "H", Kind: diffhunks.Modify},
		{ID: 6, File: "lib.go", Func: "New", Kind: diffhunks.Modify},
		{ID: 7, File: "x.go", Func: "A", Kind: diffhunks.Modify},
		{ID: 8, File: "y.go", Func: "B", Kind: diffhunks.Modify},
	}
	for i := 9; i <= 16; i++ {
		hunks = append(hunks, diffhunks.Hunk{ID: diffhunks.ID(i), File: "z.go", Func: string(rune('P' + (i-9)/2)), Kind: diffhunks.Modify})
	}
	// Go's rules for these edits: reverting a use without its declaration
	// leaves the declaration unused; reverting the rename without its call
	// sites (or a call site without the rename) leaves an undefined name.
	compiles := func(r set) bool {
		return !(r[3] && !r[2]) && // declared and not used: n
			!(r[4] && !r[1]) && // "strings" imported and not used
			r[6] == r[7] && r[6] == r[8] // undefined: New / Old
	}
	msg := func(r set) string {
		var m []string
		if r[3] && !r[2] {
			m = append(m, "./a.go:5:2: declared and not used: n")
		}
		if r[4] && !r[1] {
			m = append(m, "./a.go:3:2: \"strings\" imported and not used")
		}
		if r[6] && !r[7] {
			m = append(m, "./x.go:4:2: undefined: New")
		}
		if r[6] && !r[8] {
			m = append(m, "./y.go:9:2: undefined: New")
		}
		return strings.Join(m, "\n")
	}
	all := ids(1, 16)

	tests := []struct {
		name    string
		revert  []diffhunks.ID
		pool    []diffhunks.ID
		msg     bool // whether the search sees compiler output
		want    []diffhunks.ID
		builds  int
		wantErr error
	}{
		// revert alone, then the same-function guess {2}.
		{name: "unused variable", revert: []diffhunks.ID{3}, pool: all, want: []diffhunks.ID{2}, builds: 2},
		// revert, same function {5}, same file {1,2,3,5}, then shrinking it
		// by function: {1} ∪ {2,3} part compiles, then {1}.
		{name: "unused import", revert: []diffhunks.ID{4}, pool: all, want: []diffhunks.ID{1}, builds: 5},
		// revert, then files named by the compiler: {7,8}, then each alone.
		{name: "rename across files with messages", revert: []diffhunks.ID{6}, pool: all, msg: true, want: []diffhunks.ID{7, 8}, builds: 4},
		// No guess applies: the whole pool is partitioned by file.
		{name: "rename across files without messages", revert: []diffhunks.ID{6}, pool: all, want: []diffhunks.ID{7, 8}, builds: 11},
		{name: "compiles alone", revert: []diffhunks.ID{5}, pool: all, builds: 1},
		{name: "two problems at once", revert: []diffhunks.ID{3, 4, 6}, pool: all, msg: true, want: []diffhunks.ID{1, 2, 7, 8}, builds: 18},
		{name: "pool lacks a call site", revert: []diffhunks.ID{6}, pool: []diffhunks.ID{7, 9, 10}, builds: 2, wantErr: ErrNoAux},
		{name: "empty pool", revert: []diffhunks.ID{3}, builds: 1, wantErr: ErrNoAux},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := &oracle{compiles: compiles}
			if tt.msg {
				o.msg = msg
			}
			// AuxFor itself sees no message; the strategies pass the one
			// from the failed run. Emulate that path when asked.
			var got []diffhunks.ID
			var err error
			if tt.msg {
				a := newAuxSearch(o, hunks)
				revert := norm(tt.revert)
				got, err = a.find(t.Context(), revert, minus(norm(tt.pool), revert), msg(setOf(revert...)))
			} else {
				got, err = AuxFor(t.Context(), o, hunks, tt.revert, tt.pool)
			}
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("aux (-want +got):\n%s", diff)
			}
			if n := o.nbuilds(); n != tt.builds {
				t.Errorf("builds = %d, want %d", n, tt.builds)
			}
			o.checkNoRepeats(t, nil)
			if err != nil {
				return
			}
			r := setOf(union(tt.revert, got)...)
			if !compiles(r) {
				t.Errorf("revert ∪ aux = %v does not compile", union(tt.revert, got))
			}
			for _, id := range got {
				delete(r, id)
				if compiles(r) {
					t.Errorf("aux %v is not 1-minimal: compiles without %d", got, id)
				}
				r[id] = true
			}
		})
	}
}

func TestMentions(t *testing.T) {
	tests := []struct {
		msg, file string
		want      bool
	}{
		{"./a.go:3:2: x", "a.go", true},
		{"pkg/a.go:3:2: x", "pkg/a.go", true},
		{"# pkg\npkg/a.go:3:2: x", "pkg/a.go", true},
		{"pkg/ba.go:3:2: x", "a.go", false},
		{"pkg/ba.go:3:2: x\n./a.go:1:1: y", "a.go", true},
		{"a.go", "a.go", false},
		{"anything", "", false},
	}
	for _, tt := range tests {
		if got := mentions(tt.msg, tt.file); got != tt.want {
			t.Errorf("mentions(%q, %q) = %v, want %v", tt.msg, tt.file, got, tt.want)
		}
	}
}

func TestAuxMemoSharedAcrossVariants(t *testing.T) {
	// Every single-hunk revert of the use needs the same declaration; the
	// strategy must not build any set twice over the whole search.
	hunks := hunksIn(12, 4, 2)
	o := &oracle{
		passes:   subsetRule(3),
		compiles: func(r set) bool { return !(r[3] && !r[4]) && !(r[9] && !r[1]) },
	}
	f, err := OneByOne(t.Context(), o, hunks, ids(1, 12), Plan{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]diffhunks.ID{3}, f.Root); diff != "" {
		t.Errorf("root (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]diffhunks.ID{4}, f.Aux); diff != "" {
		t.Errorf("aux (-want +got):\n%s", diff)
	}
	o.checkNoRepeats(t, union(f.Root, f.Aux))
}

func TestAuxFollowsCompilerErrors(t *testing.T) {
	// lib.go 1: func Old() → func New()
	// x.go   2: three base lines become one (head 5, base 5-7)
	//        3: Old() → New() at head line 20
	// y.go   4..29: unrelated edits, 30: Old() → New() at head line 90
	hunks := []diffhunks.Hunk{
		{ID: 1, File: "lib.go", Func: "New", Kind: diffhunks.Modify, Base: diffhunks.LineRange{Start: 10, End: 10}, Head: diffhunks.LineRange{Start: 10, End: 10}, Diff: "-func Old() {\n+func New() {\n"},
		{ID: 2, File: "x.go", Func: "A", Kind: diffhunks.Modify, Base: diffhunks.LineRange{Start: 5, End: 7}, Head: diffhunks.LineRange{Start: 5, End: 5}, Diff: "-\ta := 1\n-\tb := 2\n-\tuse(a, b)\n+\tuse(1, 2)\n"},
		{ID: 3, File: "x.go", Func: "A", Kind: diffhunks.Modify, Base: diffhunks.LineRange{Start: 22, End: 22}, Head: diffhunks.LineRange{Start: 20, End: 20}, Diff: "-\tOld()\n+\tNew()\n"},
	}
	for i := 4; i <= 29; i++ {
		l := 3 * i
		hunks = append(hunks, diffhunks.Hunk{ID: diffhunks.ID(i), File: "y.go", Func: fmt.Sprintf("F%d", i), Kind: diffhunks.Modify,
			Base: diffhunks.LineRange{Start: l, End: l}, Head: diffhunks.LineRange{Start: l, End: l}, Diff: "-\tx := 1\n+\tx := 2\n"})
	}
	hunks = append(hunks, diffhunks.Hunk{ID: 30, File: "y.go", Func: "G", Kind: diffhunks.Modify,
		Base: diffhunks.LineRange{Start: 90, End: 90}, Head: diffhunks.LineRange{Start: 90, End: 90}, Diff: "-\tOld()\n+\tNew()\n"})

	// The compiler's messages use the variant's line numbers: with hunk 2
	// reverted, x.go's head line 20 is line 22.
	compiles := func(r set) bool { return r[1] == r[3] && r[1] == r[30] }
	msg := func(r set) string {
		var m []string
		xLine := 20
		if r[2] {
			xLine = 22
		}
		if r[1] && !r[3] {
			// No name to follow: only the line leads to hunk 3.
			m = append(m, fmt.Sprintf("./x.go:%d:2: invalid operation: cannot call non-function", xLine))
		}
		if r[1] && !r[30] {
			m = append(m, "./y.go:90:2: invalid operation: cannot call non-function")
		}
		if !r[1] && r[3] {
			m = append(m, fmt.Sprintf("./x.go:%d:2: undefined: Old", xLine))
		}
		return strings.Join(m, "\n")
	}
	tests := []struct {
		name   string
		revert []diffhunks.ID
		want   []diffhunks.ID
		builds int
	}{
		// revert, then {3, 30} from the positions, then the
		// two halves of {3, 30} in shrinking it.
		{name: "declaration renamed", revert: []diffhunks.ID{1}, want: []diffhunks.ID{3, 30}, builds: 4},
		// The error line is shifted by the reverted hunk 2.
		{name: "line numbers of the variant", revert: []diffhunks.ID{1, 2}, want: []diffhunks.ID{3, 30}, builds: 4},
		// A call site reverted alone: its line lies in the reverted hunk,
		// so only the name Old leads on, to the declaration and the other
		// call site, which both stay.
		{name: "call site", revert: []diffhunks.ID{3}, want: []diffhunks.ID{1, 30}, builds: 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := &oracle{compiles: compiles, msg: msg}
			got, err := AuxFor(t.Context(), o, hunks, tt.revert, ids(1, 30))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("aux (-want +got):\n%s", diff)
			}
			if n := o.nbuilds(); n != tt.builds {
				t.Errorf("builds = %d, want %d", n, tt.builds)
			}
			o.checkNoRepeats(t, nil)
		})
	}
}

func TestErrorsInReverted(t *testing.T) {
	// 1 deleted an import at base line 6; 2 replaced base lines 20-21 by
	// one head line 19.
	hunks := []diffhunks.Hunk{
		{ID: 1, File: "pkg/a.go", Kind: diffhunks.Modify, Base: diffhunks.LineRange{Start: 6, End: 6}, Head: diffhunks.LineRange{Start: 6, End: 5}},
		{ID: 2, File: "pkg/a.go", Kind: diffhunks.Modify, Base: diffhunks.LineRange{Start: 20, End: 21}, Head: diffhunks.LineRange{Start: 19, End: 19}},
	}
	tests := []struct {
		name   string
		revert []diffhunks.ID
		msg    string
		want   bool
	}{
		{"restored import unused", []diffhunks.ID{1}, `../ov3/pkg/a.go:6:2: "strings" imported and not used`, true},
		{"restored local unused", []diffhunks.ID{1, 2}, "./a.go:21:3: declared and not used: n", true},
		// Line 22 of the variant is head line 20, outside both hunks.
		{"error in code left in place", []diffhunks.ID{1, 2}, "./a.go:22:3: declared and not used: n", false},
		{"one inside, one outside", []diffhunks.ID{1}, "./a.go:6:2: \"strings\" imported and not used\n./a.go:30:1: undefined: x", false},
		{"no errors", []diffhunks.ID{1}, "", false},
		{"file of no hunk", []diffhunks.ID{1}, "./b.go:6:2: declared and not used: n", false},
	}
	for _, tt := range tests {
		if got := ErrorsInReverted(hunks, tt.revert, tt.msg); got != tt.want {
			t.Errorf("%s: ErrorsInReverted = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestAuxFollowPastSyntaxErrors(t *testing.T) {
	// a.go 1: a call of helper, which z.go's rewrite (2-6, top-level
	// code) renamed; y.go 7-12: unrelated edits. In z.go, 2 opens a
	// function that only 5 closes again: reverting 1 and 2 without 5 is a
	// syntax error inside 2's lines, which names nothing and which the
	// neighbours 3 and 4 do not mend.
	hunks := []diffhunks.Hunk{{ID: 1, File: "a.go", Func: "A", Kind: diffhunks.Modify,
		Base: diffhunks.LineRange{Start: 5, End: 5}, Head: diffhunks.LineRange{Start: 5, End: 5}, Diff: "-\thelper()\n+\tassist()\n"}}
	for i := 2; i <= 12; i++ {
		file, l := "z.go", 10*i
		if i >= 7 {
			file = "y.go"
		}
		hunks = append(hunks, diffhunks.Hunk{ID: diffhunks.ID(i), File: file, Kind: diffhunks.Modify,
			Base: diffhunks.LineRange{Start: l, End: l + 2}, Head: diffhunks.LineRange{Start: l, End: l + 2}, Diff: "-a\n-b\n-c\n+d\n+e\n+f\n"})
	}
	hunks[1].Diff = "-func helper() {\n+func assist() {\n"
	o := &oracle{
		compiles: func(r set) bool { return (!r[1] || r[2]) && r[2] == r[5] },
		msg: func(r set) string {
			if !r[2] {
				return "# example.com/z\n./a.go:5:2: undefined: helper"
			}
			return "# example.com/z\n./z.go:21:2: syntax error: non-declaration statement outside function body"
		},
	}
	got, err := AuxFor(t.Context(), o, hunks, []diffhunks.ID{1}, ids(1, 12))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, []diffhunks.ID{2, 5}) {
		t.Errorf("aux = %v, want [2 5]", got)
	}
	// 1 alone, with 2 (the name), with 2's neighbours, with the rest of
	// z.go, then a build for each of the five added hunks in trimming
	// them: the whole pool is never built and shrunk.
	if n := o.nbuilds(); n != 9 {
		t.Errorf("builds = %d, want 9", n)
	}
	o.checkNoRepeats(t, nil)
}

func TestAuxFollowIntoDeletedFiles(t *testing.T) {
	// a.go 1: a call of oldHelper became newHelper; old.go 2: the file
	// that declared oldHelper, deleted; y.go 3-12: unrelated edits.
	hunks := []diffhunks.Hunk{
		{ID: 1, File: "a.go", Func: "A", Kind: diffhunks.Modify, Base: diffhunks.LineRange{Start: 5, End: 5},
			Head: diffhunks.LineRange{Start: 5, End: 5}, Diff: "-\toldHelper()\n+\tnewHelper()\n"},
		{ID: 2, File: "old.go", Kind: diffhunks.Delete, Base: diffhunks.LineRange{Start: 1, End: 3},
			Head: diffhunks.LineRange{Start: 1, End: 0}, Diff: "-package z\n-\n-func oldHelper() {}\n"},
	}
	for i := 3; i <= 12; i++ {
		hunks = append(hunks, diffhunks.Hunk{ID: diffhunks.ID(i), File: "y.go", Func: fmt.Sprintf("F%d", i), Kind: diffhunks.Modify,
			Base: diffhunks.LineRange{Start: 10 * i, End: 10 * i}, Head: diffhunks.LineRange{Start: 10 * i, End: 10 * i}, Diff: "-a\n+b\n"})
	}
	o := &oracle{
		compiles: func(r set) bool { return !r[1] || r[2] },
		msg:      func(set) string { return "./a.go:5:2: undefined: oldHelper" },
	}
	got, err := AuxFor(t.Context(), o, hunks, []diffhunks.ID{1}, ids(1, 12))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, []diffhunks.ID{2}) {
		t.Errorf("aux = %v, want [2]", got)
	}
	// 1 alone, then with the deleted file the name leads to.
	if n := o.nbuilds(); n != 2 {
		t.Errorf("builds = %d, want 2", n)
	}
}
