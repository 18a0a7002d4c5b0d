package semantic

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/culprit-dev/culprit/analyzer/result"
	"github.com/culprit-dev/culprit/diffhunks"
	"golang.org/x/tools/txtar"
)

const straightModule = `
-- go.mod --
module example.com/scale

go 1.22
-- scale.go --
package scale

func Scale(x, k int) int {
	y := x + 1
	if k > 100 {
		y = 0
	}
	return y
}
-- scale_test.go --
package scale

import "testing"

func TestScale(t *testing.T) {
	if got := Scale(3, 2); got != 8 {
		t.Errorf("Scale = %d", got)
	}
}
`

// TestOmissions traces runs that fail because the change deleted a
// statement, and checks that the deleted code is found from where it
// stood: in the side a branch took (a critical predicate), and in
// straight-line code between a definition and its use.
func TestOmissions(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs traced test binaries")
	}
	for _, tc := range []struct {
		name, dir, test string
		del             Deletion
		// pred is the critical predicate that brings the deletion, "" when
		// the first cause has it.
		pred string
	}{
		{"branch", headTree(t, filepath.Join("..", "..", "testdata", "sem-omission.txtar")), "TestAbs",
			Deletion{Hunk: 1, File: "norm.go", Line: 8, Text: "\t\t\tx = -x\n"}, "x < 0"},
		{"straight", writeTree(t, txtar.Parse([]byte(straightModule)), ""), "TestScale",
			Deletion{Hunk: 2, File: "scale.go", Line: 5, Text: "\ty *= k\n"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := t.Context()
			tr := traceFailing(t, tc.dir, "./", tc.test)
			// A decoy deletion elsewhere that defines nothing read.
			decoy := Deletion{Hunk: 9, File: tc.del.File, Line: 3, Text: "// old comment\n"}
			a := New(tr, tc.dir, Setup{Deleted: []Deletion{decoy, tc.del}})
			tg, err := a.Failure()
			if err != nil {
				t.Fatal(err)
			}
			first, err := a.Cause(ctx, tg)
			if err != nil {
				t.Fatal(err)
			}
			causes := []*Cause{first}
			if tc.pred == "" {
				if got := first.Deletions(); !slices.Equal(got, []diffhunks.ID{tc.del.Hunk}) {
					t.Fatalf("first cause %q touches deletions %v, want [%d]", texts(a, first), got, tc.del.Hunk)
				}
			} else {
				if got := first.Deletions(); len(got) != 0 {
					t.Errorf("first cause %q touches deletions %v, want none (the deletion is in a nested block)", texts(a, first), got)
				}
				var found *Cause
				for _, p := range a.CriticalPredicates(first) {
					if a.tr.SiteOf(p.Event).Text != tc.pred {
						continue
					}
					if found, err = a.Cause(ctx, p); err != nil {
						t.Fatal(err)
					}
				}
				if found == nil {
					t.Fatalf("no critical predicate %q", tc.pred)
				}
				if got := found.Deletions(); !slices.Equal(got, []diffhunks.ID{tc.del.Hunk}) {
					t.Fatalf("cause of %q touches deletions %v, want [%d]", tc.pred, got, tc.del.Hunk)
				}
				causes = append(causes, found)
			}
			var deleted []result.Statement
			a.Tree(causes, nil, nil).Walk(func(n *result.Node) {
				for _, s := range n.Statements {
					if s.Deleted {
						deleted = append(deleted, s)
					}
				}
			})
			if len(deleted) != 1 || deleted[0].Line != tc.del.Line || deleted[0].Hunk != tc.del.Hunk {
				t.Errorf("tree shows deleted steps %+v, want one at line %d", deleted, tc.del.Line)
			}
		})
	}
}
