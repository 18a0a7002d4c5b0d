package report

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"strings"
	"testing"

	"github.com/culprit-dev/culprit/analyzer/note"
	"github.com/culprit-dev/culprit/analyzer/result"
)

// TestEveryNoteHasWords: each code the note package declares is worded
// for reviewers; none falls through to its raw code.
func TestEveryNoteHasWords(t *testing.T) {
	for _, c := range declaredCodes(t) {
		if w := words(result.Note{Code: c, Hunks: nil, N: 1, M: 2}); strings.HasPrefix(w, "note ") {
			t.Errorf("note %q has no wording: %s", c, w)
		}
	}
}

// declaredCodes parses the codes the note package declares.
func declaredCodes(t testing.TB) []note.Code {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "../analyzer/note/note.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var codes []note.Code
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
		codes = append(codes, note.Code(c))
		return true
	})
	if len(codes) < 20 {
		t.Fatalf("found %d note codes in note.go; the parse missed them", len(codes))
	}
	return codes
}

// TestSpecHunksWording: the note on the test's own hunks agrees in number.
func TestSpecHunksWording(t *testing.T) {
	for n, want := range map[int]string{
		1: "1 hunk in the test's own _test.go files is never root; it is reverted",
		3: "3 hunks in the test's own _test.go files are never root; they are reverted",
	} {
		if got := words(result.Note{Code: note.SpecHunks, N: n}); !strings.HasPrefix(got, want) {
			t.Errorf("N=%d: %q, want it to start %q", n, got, want)
		}
	}
}

// TestCountWording: notes that count constructs or functions agree in
// number with the count.
func TestCountWording(t *testing.T) {
	for _, tc := range []struct {
		code note.Code
		n    int
		want string
	}{
		{note.Untraced, 1, "1 construct was not traced; its effects"},
		{note.Untraced, 4, "4 constructs were not traced; their effects"},
		{note.TraceProbed, 1, "the 1 function it never entered was compiled as it is, and a call into it"},
		{note.TraceProbed, 7, "the 7 functions it never entered were compiled as they are, and a call into one"},
	} {
		if got := words(result.Note{Code: tc.code, N: tc.n}); !strings.Contains(got, tc.want) {
			t.Errorf("%s, N=%d: %q, want it to hold %q", tc.code, tc.n, got, tc.want)
		}
	}
}
