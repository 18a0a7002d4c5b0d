package report

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"strings"
	"testing"

	"github.com/culprit-dev/culprit/analyzer/note"
)

// TestEveryNoteHasWords: each code the note package declares is worded
// for reviewers; none falls through to its raw code.
func TestEveryNoteHasWords(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "../analyzer/note/note.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	ast.Inspect(f, func(x ast.Node) bool {
		vs, ok := x.(*ast.ValueSpec)
		if !ok || len(vs.Values) != 1 {
			return true
		}
		if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "Code" {
			return true
		}
		lit, ok := vs.Values[0].(*ast.BasicLit)
		if !ok {
			return true
		}
		c, err := strconv.Unquote(lit.Value)
		if err != nil {
			t.Fatal(err)
		}
		n++
		if w := words(note.Note{Code: note.Code(c), Hunks: nil, N: 1, M: 2}); strings.HasPrefix(w, "note ") {
			t.Errorf("note %q has no wording: %s", c, w)
		}
		return true
	})
	if n < 20 {
		t.Fatalf("found %d note codes in note.go; the parse missed them", n)
	}
}

// TestSpecHunksWording: the note on the test's own hunks agrees in number.
func TestSpecHunksWording(t *testing.T) {
	for n, want := range map[int]string{
		1: "1 hunk in the test's own _test.go files is never root; it is reverted",
		3: "3 hunks in the test's own _test.go files are never root; they are reverted",
	} {
		if got := words(note.Note{Code: note.SpecHunks, N: n}); !strings.HasPrefix(got, want) {
			t.Errorf("N=%d: %q, want it to start %q", n, got, want)
		}
	}
}
