package report

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"

	"github.com/culprit-dev/culprit/analyzer/note"
	"github.com/culprit-dev/culprit/analyzer/result"
)

// huge is an explained result far over every limit: 1,000 hunks with 1 KB
// diffs of multi-byte text, all of them root or auxiliary, and a causal
// tree of 5,000 nodes.
func huge() *result.Report {
	res := explainedWithTree()
	res.Hunks, res.Root, res.Aux = nil, nil, []result.HunkID{}
	line := "+\ts := \"héllo, 世界 — ünïcödé ✓\" // naïve\n" // multi-byte all along
	diff := strings.Repeat(line, 1024/len(line)+1)
	for i := 1; i <= 1000; i++ {
		id := result.HunkID(i)
		res.Hunks = append(res.Hunks, result.Hunk{ID: id, File: fmt.Sprintf("pkg/f%03d.go", i/10), OldFile: fmt.Sprintf("pkg/f%03d.go", i/10),
			BaseLines: [2]int{i, i}, HeadLines: [2]int{i, i + len(diff)/len(line)}, Kind: "modify", Func: "Fünc", Diff: diff})
		if i%2 == 0 {
			res.Root = append(res.Root, id)
		} else {
			res.Aux = append(res.Aux, id)
		}
	}
	var all []result.HunkID
	for _, h := range res.Hunks {
		all = append(all, h.ID)
	}
	res.Proof = &result.Proof{Reverted: all, Outcome: "pass"}
	// A tree of 5,000 nodes, three children each, level by level.
	nodes := []*result.Node{{Target: result.Statement{File: "pkg/f_test.go", Line: 9, Text: "got != \"日本\""}, Outcome: "failed"}}
	for i := 1; len(nodes) < 5000; i++ {
		parent := nodes[(i-1)/3]
		s := result.Statement{File: "pkg/f001.go", Line: i, Text: "x[i] < \"ü\"", Values: map[string]string{"x[i]": "\"ö\""}, Hunk: result.HunkID(i%1000 + 1)}
		n := &result.Node{Target: s, Via: &s, Outcome: "true", Statements: []result.Statement{s}}
		parent.Children = append(parent.Children, n)
		nodes = append(nodes, n)
	}
	res.Tree = nodes[0]
	res.Findings = result.Findings{{Code: note.SemanticFailed, Detail: strings.Repeat("ñ", 3000)}}
	return res
}

// checkComment checks the promises every comment keeps.
func checkComment(t *testing.T, got string, maxLen int) {
	t.Helper()
	if len(got) >= maxLen {
		t.Errorf("comment is %d bytes, want fewer than %d", len(got), maxLen)
	}
	if !strings.HasPrefix(got, Marker) {
		t.Errorf("comment does not start with the marker: %.80q", got)
	}
	if !utf8.ValidString(got) {
		t.Errorf("comment is not valid UTF-8")
	}
	checkGFM(t, got)
}

func TestCommentSizeLimit(t *testing.T) {
	big := huge()
	markdown := Markdown(big)
	if len(markdown) < DefaultMaxLen {
		t.Fatalf("the huge report's Markdown is only %d bytes; the test needs more", len(markdown))
	}
	many := make([]*result.Report, 300)
	for i := range many {
		many[i] = big
	}
	const url = "https://github.com/o/r/actions/runs/42"
	tests := []struct {
		name      string
		reports   []*result.Report
		opt       CommentOptions
		wantShort bool // the comment says it was shortened
	}{
		{"huge report, default limit", []*result.Report{big}, CommentOptions{DetailsURL: url}, true},
		{"huge report with small ones", []*result.Report{flaky(), big, unexplained()}, CommentOptions{DetailsURL: url, Rerun: "comment `/culprit`"}, true},
		{"table: 300 huge reports", many, CommentOptions{DetailsURL: url}, true},
		{"table: small limit", []*result.Report{big}, CommentOptions{MaxLen: 1000, DetailsURL: url}, true},
		{"tiny limit", []*result.Report{big}, CommentOptions{MaxLen: 40}, false},
		{"small report fits", []*result.Report{explainedWithTree()}, CommentOptions{DetailsURL: url}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Comment(tc.reports, tc.opt)
			limit := tc.opt.MaxLen
			if limit == 0 {
				limit = DefaultMaxLen
			}
			checkComment(t, got, limit)
			if short := strings.Contains(got, "shortened to fit"); short != tc.wantShort {
				t.Errorf("comment says it was shortened: %v, want %v", short, tc.wantShort)
			}
			if tc.wantShort && tc.opt.DetailsURL != "" && !strings.Contains(got, "[full report]("+url+")") {
				t.Errorf("shortened comment does not link the full report")
			}
		})
	}
	t.Run("cut at every length", func(t *testing.T) {
		// Cuts land on every byte of the multi-byte text in turn.
		for n := len(Marker) + 2; n < 1200; n += 7 {
			checkComment(t, Comment([]*result.Report{big}, CommentOptions{MaxLen: n, DetailsURL: url}), n)
		}
	})
	t.Run("a table of every test past the limit", func(t *testing.T) {
		// 300 huge reports cannot fit at any detail: the comment lists
		// each test in a row and links the full reports.
		got := Comment(many, CommentOptions{DetailsURL: url})
		checkComment(t, got, DefaultMaxLen)
		rows, links := tableRows(got), linksTo(got, url)
		if rows != len(many) {
			t.Errorf("the comment's table has %d rows, want one for each of the %d tests", rows, len(many))
		}
		if links < 2 {
			t.Errorf("the comment links %s %d times, want the job summary and the JSON report's artifacts", url, links)
		}
	})
	t.Run("the table cut at a row", func(t *testing.T) {
		got := Comment(many, CommentOptions{MaxLen: 2000, DetailsURL: url})
		checkComment(t, got, 2000)
		if rows := tableRows(got); rows == 0 || rows >= len(many) {
			t.Errorf("the comment's table has %d rows, want some but not all %d", rows, len(many))
		}
		if linksTo(got, url) < 2 {
			t.Errorf("the cut table does not link the full reports")
		}
	})
	t.Run("limit below the marker", func(t *testing.T) {
		if got := Comment([]*result.Report{big}, CommentOptions{MaxLen: len(Marker)}); got != "" {
			t.Errorf("Comment = %q, want \"\"", got)
		}
	})
}

// TestCommentNamesNoCulprit checks that only an explained test's comment
// shows root hunks, a causal tree or a claim of cause, and that a flaky
// regression's shows its proven root hunks, and a tree only as the chain
// found by intervention.
func TestCommentNamesNoCulprit(t *testing.T) {
	claims := []string{"fails because of", "Root cause", "**Hunk #", "← hunk", "Why it fails", "makes it pass", "auxiliary"}
	tree := []string{"fails because of", "← hunk", "Why it fails"}
	for _, tc := range fixtures {
		r := tc.doc()
		t.Run(tc.name, func(t *testing.T) {
			got := Comment([]*result.Report{r}, CommentOptions{})
			switch r.Status {
			case result.Explained:
				if !strings.Contains(got, "fails because of") {
					t.Errorf("explained test's comment names no culprit:\n%s", got)
				}
				return
			case result.FlakyRegression:
				if !strings.Contains(got, "**Hunk #") || !strings.Contains(got, "became flaky in this PR") {
					t.Errorf("flaky regression's comment names no root:\n%s", got)
				}
				if r.Tree != nil {
					if !strings.Contains(got, "Why it fails (found by intervention)") || !strings.Contains(got, "**confirmed** by intervention") {
						t.Errorf("flaky regression's chain is not shown as found by intervention:\n%s", got)
					}
					return
				}
				claims = tree
			}
			for _, c := range claims {
				if strings.Contains(got, c) {
					t.Errorf("status %s: comment claims a culprit with %q", r.Status, c)
				}
			}
		})
	}
}

// tableRows counts the body rows of the tables in md, as GitHub parses it.
func tableRows(md string) int {
	n := 0
	doc := gfm.Parser().Parse(text.NewReader([]byte(md)))
	_ = ast.Walk(doc, func(n_ ast.Node, entering bool) (ast.WalkStatus, error) {
		if _, ok := n_.(*east.TableRow); ok && entering {
			n++
		}
		return ast.WalkContinue, nil
	})
	return n
}

// linksTo counts the links in md whose destination starts with url.
func linksTo(md, url string) int {
	n := 0
	doc := gfm.Parser().Parse(text.NewReader([]byte(md)))
	_ = ast.Walk(doc, func(n_ ast.Node, entering bool) (ast.WalkStatus, error) {
		if l, ok := n_.(*ast.Link); ok && entering && strings.HasPrefix(string(l.Destination), url) {
			n++
		}
		return ast.WalkContinue, nil
	})
	return n
}

// TestSeveralTestsSeparated: in a comment on several tests, each test's
// section is its own, after a thematic break, and the only headings are
// the comment's title and the sections' own.
func TestSeveralTestsSeparated(t *testing.T) {
	var rs []*result.Report
	for _, tc := range fixtures {
		rs = append(rs, tc.doc())
	}
	got := Comment(rs, CommentOptions{})
	doc := gfm.Parser().Parse(text.NewReader([]byte(got)))
	breaks, titles := 0, 0
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering || n.Parent() != doc {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.ThematicBreak:
			breaks++
		case *ast.Heading:
			if n.Level <= 3 {
				titles++
			}
		}
		return ast.WalkContinue, nil
	})
	if breaks != len(rs)-1 || titles != len(rs)+1 {
		t.Errorf("%d thematic breaks and %d headings of level 1-3, want %d and %d:\n%s", breaks, titles, len(rs)-1, len(rs)+1, got)
	}
}

func TestCommentFooter(t *testing.T) {
	tests := []struct {
		name string
		opt  CommentOptions
		want string
	}{
		{"nothing", CommentOptions{}, ""},
		{"link", CommentOptions{DetailsURL: "https://x/y (z)"}, "\n---\n[Full report](https://x/y%20%28z%29)\n"},
		{"rerun", CommentOptions{Rerun: "comment `/culprit`."}, "\n---\nTo rerun, comment `/culprit`.\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := footer(tc.opt, false); got != tc.want {
				t.Errorf("footer = %q, want %q", got, tc.want)
			}
		})
	}
}

func FuzzCommentSize(f *testing.F) {
	f.Add("TestF", "-a\n+b\n", "x < y", "note", 2, 3, 65536)
	f.Add("Test日本", strings.Repeat("+ü\n", 2000), "\"]<>|#`", "ñ", 40, 100, 300)
	f.Add("", "```\n", "a\nb", "<details>", 0, 0, 30)
	f.Fuzz(func(t *testing.T, name, diff, text, detail string, hunks, nodes, maxLen int) {
		hunks, nodes = abs(hunks)%200, abs(nodes)%500
		maxLen = len(Marker) + 1 + abs(maxLen)%70000
		res := fixture(&result.Report{
			Status:   result.Explained,
			Test:     result.Test{Name: name, Package: name},
			Findings: result.Findings{{Code: note.CauseFailed, Detail: detail}},
			Proof:    &result.Proof{Outcome: "pass"},
		})
		for i := 1; i <= hunks; i++ {
			res.Hunks = append(res.Hunks, result.Hunk{ID: result.HunkID(i), File: name, HeadLines: [2]int{i, i}, Kind: "modify", Func: text, Diff: diff})
			res.Root = append(res.Root, result.HunkID(i))
		}
		res.Proof.Reverted = res.Root
		if nodes > 0 {
			s := result.Statement{File: name, Line: 1, Text: text, Values: map[string]string{text: detail}, Hunk: 1}
			res.Tree = &result.Node{Target: s, Statements: []result.Statement{s}}
			for n := res.Tree; nodes > 1; nodes-- {
				c := &result.Node{Target: s, Via: &s, Outcome: text, Statements: []result.Statement{s}}
				n.Children = append(n.Children, c)
				if nodes%3 == 0 {
					n = c
				}
			}
		}
		got := Comment([]*result.Report{res}, CommentOptions{MaxLen: maxLen, DetailsURL: text, Rerun: detail})
		if len(got) >= maxLen {
			t.Fatalf("comment is %d bytes, want fewer than %d", len(got), maxLen)
		}
		if !strings.HasPrefix(got, Marker) {
			t.Fatalf("comment does not start with the marker")
		}
		valid := utf8.ValidString(name) && utf8.ValidString(diff) && utf8.ValidString(text) && utf8.ValidString(detail)
		if valid && !utf8.ValidString(got) {
			t.Fatalf("comment of valid UTF-8 input is not valid UTF-8")
		}
	})
}

func abs(n int) int {
	if n < 0 {
		if n = -n; n < 0 { // the most negative int
			return 0
		}
	}
	return n
}
