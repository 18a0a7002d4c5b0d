package search

import (
	"slices"
	"testing"

	"github.com/culprit-dev/culprit/diffhunks"
)

func TestClosures(t *testing.T) {
	// Hunks 3 and 4 compile only together (4 declares u2, 3 uses it), as
	// do 1 and 6 (an import and its use). The failure needs 6 alone.
	hunks := []diffhunks.Hunk{
		{ID: 1, File: "u.go", Kind: diffhunks.Modify, Diff: "-\t\"strings\"\n"},
		{ID: 3, File: "u.go", Kind: diffhunks.Modify, Diff: "-\tu2, err := FromString(s)\n"},
		{ID: 4, File: "u.go", Kind: diffhunks.Modify, Diff: "-\t*u = u2\n"},
		{ID: 6, File: "u.go", Kind: diffhunks.Modify, Diff: "-\ts := strings.Replace(input, \"-\", \"\", -1)\n"},
	}
	compiles := func(r set) bool { return r[3] == r[4] && r[1] == r[6] }
	o := &oracle{
		compiles: compiles,
		passes:   always(func(r set) bool { return r[6] }),
		msg: func(r set) string {
			if r[3] != r[4] {
				return "./u.go:40:2: undefined: u2"
			}
			return "./u.go:9:2: undefined: strings"
		},
	}
	whole := []diffhunks.ID{1, 3, 4, 6}
	t.Run("a pair that compiles only together leaves together", func(t *testing.T) {
		s := newSearcher(o, hunks, Plan{Ran: []diffhunks.ID{3, 4, 6}})
		for _, h := range whole {
			if _, err := s.aux.build(t.Context(), minus(whole, []diffhunks.ID{h})); err != nil {
				t.Fatal(err)
			}
		}
		set, root, aux, err := s.closures(t.Context(), whole, []diffhunks.ID{4}, []diffhunks.ID{1, 3, 6})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(set, []diffhunks.ID{1, 6}) || !slices.Equal(root, []diffhunks.ID{6}) || !slices.Equal(aux, []diffhunks.ID{1}) {
			t.Errorf("set %v root %v aux %v, want set [1 6] root [6] aux [1]", set, root, aux)
		}
	})
	t.Run("a closure whose rest fails stays", func(t *testing.T) {
		o := &oracle{compiles: compiles, passes: always(func(r set) bool { return r.has(3, 6) }), msg: o.msg}
		s := newSearcher(o, hunks, Plan{})
		for _, h := range whole {
			if _, err := s.aux.build(t.Context(), minus(whole, []diffhunks.ID{h})); err != nil {
				t.Fatal(err)
			}
		}
		set, root, _, err := s.closures(t.Context(), whole, []diffhunks.ID{4, 6}, []diffhunks.ID{1, 3})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(set, whole) || !slices.Equal(root, []diffhunks.ID{4, 6}) {
			t.Errorf("set %v root %v, want the set and root unchanged", set, root)
		}
	})
	t.Run("no closure is looked for where 1-minimality did not find the rest broken", func(t *testing.T) {
		s := newSearcher(o, hunks, Plan{})
		before := o.nbuilds()
		set, _, _, err := s.closures(t.Context(), whole, []diffhunks.ID{4}, []diffhunks.ID{1, 3, 6})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(set, whole) || o.nbuilds() != before {
			t.Errorf("set %v, %d builds: want the set unchanged and no build", set, o.nbuilds()-before)
		}
	})
}
