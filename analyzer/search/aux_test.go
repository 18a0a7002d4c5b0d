package search

import (
	"errors"
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
		{ID: 1, File: "a.go"},
		{ID: 2, File: "a.go", Func: "G"},
		{ID: 3, File: "a.go", Func: "G"},
		{ID: 4, File: "a.go", Func: "H"},
		{ID: 5, File: "a.go", Func: "H"},
		{ID: 6, File: "lib.go", Func: "New"},
		{ID: 7, File: "x.go", Func: "A"},
		{ID: 8, File: "y.go", Func: "B"},
	}
	for i := 9; i <= 16; i++ {
		hunks = append(hunks, diffhunks.Hunk{ID: diffhunks.ID(i), File: "z.go", Func: string(rune('P' + (i-9)/2))})
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
	f, err := OneByOne(t.Context(), o, hunks, ids(1, 12), Options{})
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
