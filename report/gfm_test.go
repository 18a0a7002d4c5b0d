package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

// gfm parses Markdown as GitHub does: CommonMark with the GFM extensions
// (tables, strikethrough, autolinks, task lists).
var gfm = goldmark.New(goldmark.WithExtensions(extension.GFM))

// gfmProblems parses md with a GFM parser and returns what in its
// structure differs from what the renderer means to write:
//
//   - a heading only on a line that starts with its "#"s (a line
//     followed by "---" or "===" is a setext heading, never meant);
//   - every "---" line outside code a thematic break;
//   - every fenced code block closed by a fence of its own;
//   - <details> and <summary> opened and closed in order, each tag in HTML
//     (not swallowed by a code block);
//   - every table with a header row, and every row with as many cells as
//     the delimiter row has columns.
func gfmProblems(md string) []string {
	src := []byte(md)
	doc := gfm.Parser().Parse(text.NewReader(src))
	var probs []string
	bad := func(pos int, format string, args ...any) {
		probs = append(probs, fmt.Sprintf("line %d: %s", bytes.Count(src[:pos], []byte("\n"))+1, fmt.Sprintf(format, args...)))
	}

	var (
		breaks   = map[int]bool{} // line starts of thematic breaks
		inCode   = map[int]bool{} // line starts inside code blocks
		tables   int
		details  int // <details> tags seen in HTML
		open     []string
		tagRE    = regexp.MustCompile(`</?(details|summary)\b[^>]*>`)
		htmlTags = func(pos int, s string) {
			for _, m := range tagRE.FindAllStringSubmatch(s, -1) {
				name := m[1]
				if !strings.HasPrefix(m[0], "</") {
					if name == "details" {
						details++
					}
					if name == "summary" && (len(open) == 0 || open[len(open)-1] != "details") {
						bad(pos, "<summary> outside <details>")
					}
					open = append(open, name)
					continue
				}
				if len(open) == 0 || open[len(open)-1] != name {
					bad(pos, "</%s> closes %v", name, open)
					continue
				}
				open = open[:len(open)-1]
			}
		}
	)
	err := ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Heading:
			line := strings.TrimLeft(lineAt(src, n.Pos()), " ")
			if !strings.HasPrefix(line, strings.Repeat("#", n.Level)+" ") {
				bad(n.Pos(), "an unintended level-%d heading: %.60q", n.Level, line)
			}
		case *ast.ThematicBreak:
			breaks[n.Pos()] = true
		case *ast.FencedCodeBlock:
			end := fenceEnd(src, n)
			if end < 0 {
				bad(n.Pos(), "a fenced code block is never closed")
				end = len(src)
			}
			markLines(src, n.Pos(), end, inCode)
		case *ast.CodeBlock:
			if k := n.Lines().Len(); k > 0 {
				markLines(src, n.Pos(), n.Lines().At(k-1).Stop, inCode)
			}
		case *ast.HTMLBlock:
			var b strings.Builder
			for i := 0; i < n.Lines().Len(); i++ {
				seg := n.Lines().At(i)
				b.Write(seg.Value(src))
			}
			if n.HasClosure() {
				closure := n.ClosureLine
				b.Write(closure.Value(src))
			}
			htmlTags(n.Pos(), b.String())
		case *ast.RawHTML:
			var b strings.Builder
			for i := 0; i < n.Segments.Len(); i++ {
				seg := n.Segments.At(i)
				b.Write(seg.Value(src))
			}
			htmlTags(n.Segments.At(0).Start, b.String())
		case *east.Table:
			tables++
			tableProblems(src, n, bad)
		}
		return ast.WalkContinue, nil
	})
	if err != nil {
		probs = append(probs, "walking the AST: "+err.Error())
	}
	if len(open) > 0 {
		probs = append(probs, fmt.Sprintf("at the end: %v left open", open))
	}

	// What the source means, line by line, outside code.
	var delims, detailLines int
	for start := 0; start < len(src); {
		line := lineAt(src, start)
		switch {
		case inCode[start]:
		case line == "---" && !breaks[start]:
			bad(start, "a \"---\" that is not a thematic break")
		case strings.HasPrefix(line, "|---"):
			delims++
		}
		if !inCode[start] {
			detailLines += strings.Count(line, "<details>")
		}
		start += len(line) + 1
	}
	if delims != tables {
		probs = append(probs, fmt.Sprintf("%d table delimiter rows, but %d tables", delims, tables))
	}
	if detailLines != details {
		probs = append(probs, fmt.Sprintf("%d <details> written outside code, but %d parsed as HTML", detailLines, details))
	}
	return probs
}

// lineAt returns the line of src that holds pos, from pos, without its
// line break.
func lineAt(src []byte, pos int) string {
	end := bytes.IndexByte(src[pos:], '\n')
	if end < 0 {
		return string(src[pos:])
	}
	return string(src[pos : pos+end])
}

// nextLine returns the start of the line after the one holding pos.
func nextLine(src []byte, pos int) int {
	i := bytes.IndexByte(src[pos:], '\n')
	if i < 0 {
		return len(src)
	}
	return pos + i + 1
}

// fenceEnd returns the end of the fence that closes the block, or -1
// when none does: goldmark, like GitHub, runs an unclosed block to the
// end of its container.
func fenceEnd(src []byte, n *ast.FencedCodeBlock) int {
	opening := strings.TrimLeft(lineAt(src, n.Pos()), " ")
	fence := opening[:len(opening)-len(strings.TrimLeft(opening, opening[:1]))]
	at := nextLine(src, n.Pos())
	if k := n.Lines().Len(); k > 0 {
		at = nextLine(src, n.Lines().At(k-1).Stop-1)
	}
	if at >= len(src) {
		return -1
	}
	closing := strings.TrimSpace(lineAt(src, at))
	if len(closing) < len(fence) || strings.Trim(closing, fence[:1]) != "" {
		return -1
	}
	return nextLine(src, at)
}

// markLines records the starts of the lines in [start, end).
func markLines(src []byte, start, end int, in map[int]bool) {
	for p := start; p < end; p = nextLine(src, p) {
		in[p] = true
	}
}

// tableProblems checks that a table has its header and that each row of
// the source has as many cells as the delimiter row has columns: the
// parser pads or drops cells, so its rows cannot tell.
func tableProblems(src []byte, t *east.Table, bad func(int, string, ...any)) {
	cols := len(t.Alignments)
	header, ok := t.FirstChild().(*east.TableHeader)
	if !ok || header.ChildCount() != cols {
		bad(t.Pos(), "a table without a header row of %d cells", cols)
	}
	for r := t.FirstChild(); r != nil; r = r.NextSibling() {
		var pos int
		switch r := r.(type) {
		case *east.TableHeader:
			pos = r.FirstChild().Pos()
		case *east.TableRow:
			pos = r.Pos()
		}
		line := strings.TrimSpace(lineAt(src, lineStart(src, pos)))
		if n := cellsIn(line); n != cols {
			bad(pos, "a table row of %d cells under %d columns: %.80q", n, cols, line)
		}
	}
}

func lineStart(src []byte, pos int) int { return bytes.LastIndexByte(src[:pos], '\n') + 1 }

// cellsIn counts the cells of a table row: its unescaped pipes, less the
// leading and trailing one.
func cellsIn(line string) int {
	pipes := 0
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '\\':
			i++
		case '|':
			pipes++
		}
	}
	n := pipes + 1
	if strings.HasPrefix(line, "|") {
		n--
	}
	if strings.HasSuffix(line, "|") && !strings.HasSuffix(line, `\|`) {
		n--
	}
	return n
}

// checkGFM fails t with every structural problem of md.
func checkGFM(t *testing.T, md string) {
	t.Helper()
	for _, p := range gfmProblems(md) {
		t.Error(p)
	}
}

// TestGoldenStructure renders every golden comment and report as GitHub
// would parse it and checks its structure (see gfmProblems).
func TestGoldenStructure(t *testing.T) {
	eachGolden(t, "golden comments and reports", checkGFM, "*.comment.golden", "*.md.golden")
}

// eachGolden runs check on every golden file that a glob matches, each in
// a subtest; fewer than 10 such files (what they are) means the globs no
// longer find them.
func eachGolden(t *testing.T, what string, check func(*testing.T, string), globs ...string) {
	t.Helper()
	var files []string
	for _, glob := range globs {
		m, err := filepath.Glob(filepath.Join("testdata", glob))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 10 {
		t.Fatalf("found %d %s; want every one", len(files), what)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			md, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			check(t, string(md))
		})
	}
}

// TestGFMProblems: the check finds each fault it is meant to find, and
// passes the shapes the renderer writes.
func TestGFMProblems(t *testing.T) {
	for _, tc := range []struct {
		name, md string
		want     string // part of a problem found; "" for none
	}{
		{"heading", "## culprit\n\ntext\n", ""},
		{"setext heading", "<sub>stats</sub>\n---\n", "unintended level-2 heading"},
		{"thematic break", "<sub>stats</sub>\n\n---\n\n## next\n", ""},
		{"open fence", "text\n\n```diff\n-a\n", "never closed"},
		{"closed fence", "```diff\n-a\n```\n\n```text\n```\n", ""},
		{"short closing fence", "````text\n```\n````\n", ""},
		{"unclosed details", "<details><summary>x</summary>\n\ny\n", "left open"},
		{"details in code", "```\n<details>\n```\n", ""},
		{"details", "<details><summary>x</summary>\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n</details>\n", ""},
		{"short row", "| a | b |\n|---|---|\n| 1 |\n", "1 cells under 2 columns"},
		{"escaped pipe", "| a | b |\n|---|---|\n| x\\|y | 2 |\n", ""},
		{"header short of the delimiter", "| a | b |\n|---|---|---|\n| 1 | 2 |\n", "2 cells under 3 columns"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := gfmProblems(tc.md)
			found := slices.ContainsFunc(got, func(p string) bool { return strings.Contains(p, tc.want) })
			switch {
			case tc.want == "" && len(got) > 0:
				t.Errorf("problems %q, want none", got)
			case tc.want != "" && !found:
				t.Errorf("problems %q, want one holding %q", got, tc.want)
			}
		})
	}
}
