package report

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"

	"github.com/culprit-dev/culprit/analyzer/note"
	"github.com/culprit-dev/culprit/analyzer/result"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// golden compares got with testdata/name.golden, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading golden file (run go test ./report -update to create it): %v", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s differs (-want +got):\n%s", path, diff)
	}
}

func writeJSON(t *testing.T, r *result.Report) string {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteJSON(&buf, r); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func TestGolden(t *testing.T) {
	opt := CommentOptions{
		DetailsURL: "https://github.com/o/r/actions/runs/42",
		Rerun:      "comment `/culprit` or run the workflow",
	}
	for _, tc := range fixtures {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.doc()
			golden(t, tc.name+".json", writeJSON(t, r))
			golden(t, tc.name+".md", Markdown(r))
			golden(t, tc.name+".comment", Comment([]*result.Report{r}, opt))
		})
	}
	t.Run("several-tests", func(t *testing.T) {
		var rs []*result.Report
		for _, tc := range fixtures {
			rs = append(rs, tc.doc())
		}
		golden(t, "several.comment", Comment(rs, opt))
	})
	t.Run("no-tests", func(t *testing.T) {
		golden(t, "none.comment", Comment(nil, CommentOptions{}))
	})
}

func TestJSONRoundTrip(t *testing.T) {
	for _, tc := range fixtures {
		t.Run(tc.name, func(t *testing.T) {
			want := tc.doc()
			got, err := ReadJSON(strings.NewReader(writeJSON(t, want)))
			if err != nil {
				t.Fatal(err)
			}
			want.Notes = Notes(want) // the JSON holds the findings in words
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("round trip differs (-want +got):\n%s", diff)
			}
		})
	}
}

// lookup follows a path like "hunks[].base_lines" through decoded JSON;
// "[]" steps into the first element of an array.
func lookup(v any, path string) (any, bool) {
	for _, part := range strings.Split(path, ".") {
		name, arr := strings.CutSuffix(part, "[]")
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[name]; !ok {
			return nil, false
		}
		if arr {
			a, ok := v.([]any)
			if !ok || len(a) == 0 {
				return nil, false
			}
			v = a[0]
		}
	}
	return v, true
}

func TestJSONShape(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal([]byte(writeJSON(t, explainedWithTree())), &doc); err != nil {
		t.Fatal(err)
	}
	// The names ARCHITECTURE.md promises to other tools.
	paths := []string{
		"version", "status", "test.package", "test.name", "base", "head",
		"hunks[].id", "hunks[].file", "hunks[].old_file", "hunks[].base_lines",
		"hunks[].head_lines", "hunks[].kind", "hunks[].diff",
		"root", "aux", "proof.reverted", "proof.outcome",
		"tree.target.file", "tree.target.line", "tree.target.text",
		"tree.statements[].file", "tree.statements[].line", "tree.statements[].text",
		"tree.statements[].values", "tree.statements[].hunk",
		"tree.children[].via.file", "tree.children[].via.text",
		"stats.strategy", "stats.trials", "stats.builds", "stats.wall_seconds",
	}
	for _, p := range paths {
		t.Run(p, func(t *testing.T) {
			if _, ok := lookup(doc, p); !ok {
				t.Errorf("no %s in the JSON report", p)
			}
		})
	}
	checks := []struct {
		path string
		want any
	}{
		{"version", 1.0},
		{"status", "explained"},
		{"test.package", "./calc"},
		{"test.name", "TestF"},
		{"hunks[].base_lines", []any{3.0, 3.0}},
		{"hunks[].kind", "modify"},
		{"root", []any{2.0, 3.0}},
		{"aux", []any{}},
		{"proof.reverted", []any{2.0, 3.0}},
		{"proof.outcome", "pass"},
		{"stats.strategy", "after"},
		{"stats.trials", 7.0},
		{"stats.wall_seconds", 4.2},
	}
	for _, c := range checks {
		got, _ := lookup(doc, c.path)
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.path, diff)
		}
	}
}

func TestJSONEmptySide(t *testing.T) {
	var doc struct {
		Hunks []struct {
			ID        int    `json:"id"`
			BaseLines [2]int `json:"base_lines"`
			HeadLines [2]int `json:"head_lines"`
		} `json:"hunks"`
	}
	out := writeJSON(t, explainedDynamicOnly())
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	got := map[int][2][2]int{}
	for _, h := range doc.Hunks {
		got[h.ID] = [2][2]int{h.BaseLines, h.HeadLines}
	}
	want := map[int][2][2]int{
		1: {{3, 2}, {3, 3}},     // an insertion: empty on base
		2: {{8, 8}, {9, 9}},     // a modification
		3: {{12, 15}, {13, 12}}, // a deletion: empty on head
		4: {{1, 0}, {1, 5}},     // an added file
		5: {{1, 3}, {1, 0}},     // a deleted file
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("line ranges (-want +got):\n%s", diff)
	}
	if !strings.Contains(out, `"tree": null,`) {
		t.Errorf("a dynamic-only explanation has no \"tree\": null in\n%s", out)
	}
}

func TestReadJSONErrors(t *testing.T) {
	valid := writeJSON(t, explainedWithTree())
	tests := []struct {
		name string
		in   string
		want string // a part of the error message
	}{
		{"empty", "", "decoding report JSON"},
		{"malformed", `{"version": 1,`, "decoding report JSON"},
		{"not an object", `[1, 2]`, "decoding report JSON"},
		{"no version", `{"status": "explained"}`, `no "version" field`},
		{"newer version", `{"version": 2}`, "unsupported version 2"},
		{"wrong type", `{"version": 1, "root": "2"}`, "decoding report JSON"},
		{"unknown status", `{"version": 1, "status": "guessed"}`, `unknown status "guessed"`},
		{"dangling root", `{"version": 1, "status": "explained", "root": [7]}`, "root names hunk 7"},
		{"bad range", `{"version": 1, "status": "explained", "hunks": [{"id": 1, "base_lines": [5, 2]}]}`, "bad line range"},
		{"bad side", `{"version": 1, "status": "flaky", "evidence": [{"side": "left"}]}`, `side "left"`},
		{"trailing data", valid + "{}", "decoding report JSON"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadJSON(strings.NewReader(tc.in))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ReadJSON error = %v, want one containing %q", err, tc.want)
			}
		})
	}
	t.Run("unknown fields are ignored", func(t *testing.T) {
		in := strings.Replace(valid, `"version": 1,`, `"version": 1, "future": {"x": 1},`, 1)
		if _, err := ReadJSON(strings.NewReader(in)); err != nil {
			t.Errorf("ReadJSON: %v", err)
		}
	})
}

// TestTestHunks: the verdict counts only the hunks that could be a root,
// not those of the test's own files.
func TestTestHunks(t *testing.T) {
	r := fixture(&result.Report{
		Status: result.Explained,
		Test:   result.Test{Package: "./num", Name: "TestAbs"},
		Hunks: []result.Hunk{
			{ID: 1, File: "num/abs.go", Kind: "modify", HeadLines: [2]int{5, 5}},
			{ID: 2, File: "num/abs.go", Kind: "modify", HeadLines: [2]int{9, 9}},
			{ID: 3, File: "num/abs_test.go", Kind: "modify", HeadLines: [2]int{6, 6}, Test: true},
		},
		Root:  []result.HunkID{1},
		Aux:   []result.HunkID{3},
		Proof: &result.Proof{Reverted: []result.HunkID{1, 3}, Outcome: "pass"},
	})
	if got, want := verdict(r), "1 of the PR's 2 hunks"; !strings.Contains(got, want) {
		t.Errorf("verdict %q does not count %q", got, want)
	}
}

// TestNotRegressionSaysWhy: the verdict of not-regression names its reason.
func TestNotRegressionSaysWhy(t *testing.T) {
	for _, tt := range []struct {
		name  string
		notes result.Findings
		st    *result.Subtests
		want  string
	}{
		{"new test", result.Findings{{Code: note.NewTest}}, nil, "is new in this PR"},
		{"new subtests", nil, &result.Subtests{New: []string{"TestF/new"}}, "subtests that are new"},
		{"passes on head", result.Findings{{Code: note.PassesOnHead, N: 3}}, nil, "passes on head"},
		{"timed out", result.Findings{{Code: note.TimedOutOnBoth, N: 6}}, nil, "raise the timeout"},
		{"fails on base", result.Findings{{Code: note.FailsOnBase, N: 3, M: 3}}, nil, "fails on base too"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := fixture(&result.Report{Status: result.NotRegression, Test: result.Test{Name: "TestF"}, Findings: tt.notes, Subtests: tt.st})
			if got := verdict(r); !strings.Contains(got, tt.want) {
				t.Errorf("verdict %q does not say %q", got, tt.want)
			}
		})
	}
}

// TestAuxOnTree: auxiliary hunks that hold a step of the causal tree are
// shown first, outside the fold, and said to change behaviour; the rest
// stay folded. Without such a step the auxiliary hunks are one fold.
func TestAuxOnTree(t *testing.T) {
	res := explainedDynamicOnly()
	md := Markdown(res)
	if strings.Contains(md, "change behaviour too") || !strings.Contains(md, "<details><summary>2 auxiliary hunks reverted with them so the code compiles</summary>") {
		t.Fatalf("without a tree, the auxiliary hunks are not one fold:\n%s", md)
	}
	res.Tree = &result.Node{
		Target: result.Statement{File: "words/count_test.go", Line: 14, Text: "got != 0"},
		Statements: []result.Statement{
			{File: "words/fields.go", Line: 4, Text: "return split(s)", Hunk: 4},
			{File: "words/count.go", Line: 9, Text: "return len(strings.Fields(s))", Hunk: 2},
		},
	}
	md = Markdown(res)
	lead := strings.Index(md, "The failure also depends on statements in 1 of them")
	h4 := strings.Index(md, "**Hunk #4**")
	fold := strings.Index(md, "<details><summary>1 other auxiliary hunk</summary>")
	h1 := strings.Index(md, "**Hunk #1**")
	if lead < 0 || h4 < lead || fold < h4 || h1 < fold {
		t.Fatalf("hunk #4, on the tree, is not shown before the fold holding hunk #1 (lead %d, #4 %d, fold %d, #1 %d):\n%s",
			lead, h4, fold, h1, md)
	}
	c := Comment([]*result.Report{res}, CommentOptions{})
	if !strings.Contains(c, "#4") {
		t.Errorf("the comment does not name hunk #4:\n%s", c)
	}
	// Without the passing run, or where its step ran alike, the tree
	// shows a dependence, not a change of behaviour.
	if strings.Contains(md, "behaviour") {
		t.Errorf("a change of behaviour is claimed with no run to compare:\n%s", md)
	}
	st := &res.Tree.Statements[0]
	st.Values = map[string]string{"s": `"a b"`}
	st.Passing = &result.Passing{Values: map[string]string{"s": `"a b"`}}
	if md = Markdown(res); strings.Contains(md, "behaviour") {
		t.Errorf("a step that ran alike is called a change of behaviour:\n%s", md)
	}
	st.Passing = &result.Passing{Values: map[string]string{"s": `"a"`}}
	if md = Markdown(res); !strings.Contains(md, "it is needed to compile, and it changes behaviour too") {
		t.Errorf("a step that ran otherwise is not called a change of behaviour:\n%s", md)
	}
}

// TestBaseBuildFailsQuotesCompiler: when base does not build, the verdict
// quotes the compiler's error line, not the go command's "# package"
// header, and the full report shows base's compiler output.
func TestBaseBuildFailsQuotesCompiler(t *testing.T) {
	const line = "calc/calc_test.go:6:9: undefined: F"
	md := []byte(Markdown(baseBuildFails()))
	doc := gfm.Parser().Parse(text.NewReader(md))
	var spans, blocks int
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.CodeSpan:
			// The verdict is the paragraph right after the title.
			if string(n.Text(md)) == line && n.Parent() == doc.FirstChild().NextSibling() {
				spans++
			}
		case *ast.FencedCodeBlock:
			var body strings.Builder
			for i := 0; i < n.Lines().Len(); i++ {
				seg := n.Lines().At(i)
				body.Write(seg.Value(md))
			}
			if strings.Contains(body.String(), line) {
				blocks++
			}
		}
		return ast.WalkContinue, nil
	})
	if spans != 1 || blocks != 1 {
		t.Errorf("the compiler's line is quoted in %d verdicts and %d code blocks, want 1 and 1:\n%s", spans, blocks, md)
	}
}
