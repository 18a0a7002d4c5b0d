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

// TestTestHunksWording: the note on the test's own hunks agrees in number.
func TestTestHunksWording(t *testing.T) {
	for n, want := range map[int]string{
		1: "1 hunk in the test's own _test.go files is never root; it is reverted",
		3: "3 hunks in the test's own _test.go files are never root; they are reverted",
	} {
		if got := words(result.Note{Code: note.TestHunks, N: n}); !strings.HasPrefix(got, want) {
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

// TestDurationsRounded: a duration is shown rounded for people, whether
// the report holds it as seconds or a note as the go command's duration
// text.
func TestDurationsRounded(t *testing.T) {
	for _, tc := range []struct {
		s    float64
		want string
	}{
		{0.04, "0.0 s"},
		{1.46961404, "1.5 s"},
		{9.96, "10 s"},
		{59.4, "59 s"},
		{95, "95 s"},
		{250.9, "4m11s"},
		{700, "11m40s"},
	} {
		if got := seconds(tc.s); got != tc.want {
			t.Errorf("seconds(%v) = %q, want %q", tc.s, got, tc.want)
		}
	}
	for _, tc := range []struct {
		limit, want string
	}{
		{"1.46961404s", "1.5 s"},
		{"2m3.5004s", "2m04s"},
		{"20m0s, 64 trials", "20m00s, 64 trials"},
		{"64 trials", "64 trials"},
	} {
		n := result.Note{Code: note.MinimiseCut, Limit: tc.limit}
		r := fixture(&result.Report{Status: result.Explained, Aux: []result.HunkID{1}, Findings: result.Findings{n}})
		if got := Notes(r)[0]; !strings.Contains(got, "with "+tc.want+" of the budget left") {
			t.Errorf("limit %q: %q, want it to hold %q", tc.limit, got, tc.want)
		}
	}
}

// TestMinimiseCutNeedsAux: the note that the auxiliary hunks were not
// checked one by one is shown only where some were reverted.
func TestMinimiseCutNeedsAux(t *testing.T) {
	cut := result.Note{Code: note.MinimiseCut, Limit: "30s"}
	for _, tc := range []struct {
		name string
		aux  []result.HunkID
		want int
	}{
		{"no auxiliary hunk", nil, 0},
		{"auxiliary hunks", []result.HunkID{1, 4}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := explainedDynamicOnly()
			r.Aux = tc.aux
			r.Proof.Reverted = append([]result.HunkID{2, 3}, tc.aux...)
			r.Findings = result.Findings{cut}
			if got := len(Notes(r)); got != tc.want {
				t.Errorf("%d notes %q, want %d", got, Notes(r), tc.want)
			}
		})
	}
}
