package report

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"

	"github.com/culprit-dev/culprit/analyzer/result"
)

// screen is the open part of one test's section of a comment, the part
// before its fold, as GitHub parses it.
type screen struct {
	title    string
	verdict  bool
	hunks    int  // root hunk blocks: a header paragraph and its diff
	chain    int  // items of the numbered chain, 0 if none
	proof    bool // the proof's (or best attempt's) line
	folded   bool // the rest sits in one <details> that ends the section
	problems []string
}

// screens splits a comment into its tests' sections (a level-3 heading up
// to the next thematic break) and reads the structure of each: in order
// the verdict paragraph, root hunk blocks, one numbered list, the proof
// line, then one <details> holding all the rest. Anything else open, or
// out of order, is a problem.
func screens(md string) []*screen {
	src := []byte(md)
	doc := gfm.Parser().Parse(text.NewReader(src))
	var out []*screen
	var cur *screen
	var blocks []ast.Node
	flush := func() {
		if cur != nil {
			readScreen(cur, src, blocks)
			out = append(out, cur)
		}
		cur, blocks = nil, nil
	}
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		switch n := n.(type) {
		case *ast.Heading:
			if n.Level == 3 {
				flush()
				cur = &screen{title: string(n.Lines().Value(src))}
				continue
			}
		case *ast.ThematicBreak:
			flush()
			continue
		}
		if cur != nil {
			blocks = append(blocks, n)
		}
	}
	flush()
	return out
}

// The stages of a section's first screen, in the order they must come.
const (
	stageVerdict = iota
	stageHunks
	stageChain
	stageProof
	stageFold
)

var detailsTag = regexp.MustCompile(`</?details\b`)

func readScreen(s *screen, src []byte, blocks []ast.Node) {
	bad := func(n ast.Node, format string, args ...any) {
		s.problems = append(s.problems, fmt.Sprintf("%s: %s: %s", s.title, kindOf(n), fmt.Sprintf(format, args...)))
	}
	stage := -1
	at := func(n ast.Node, want int) {
		if want < stage || want == stage && (want == stageChain || want == stageProof || want == stageVerdict) {
			bad(n, "out of order or repeated in the first screen")
		}
		stage = want
	}
	for i := 0; i < len(blocks); i++ {
		n := blocks[i]
		var next ast.Node
		if i+1 < len(blocks) {
			next = blocks[i+1]
		}
		switch {
		case stage < stageVerdict:
			if _, ok := n.(*ast.Paragraph); !ok {
				bad(n, "the section opens with this, not the verdict")
			}
			s.verdict = true
			at(n, stageVerdict)
		case isHTML(n, src, "<details>"):
			at(n, stageFold)
			// The fold runs to the end of the section: its <details> is
			// closed by the section's last block and by none before.
			depth := 0
			for k, m := range blocks[i:] {
				if h, ok := m.(*ast.HTMLBlock); ok {
					for _, tag := range detailsTag.FindAllString(htmlText(h, src), -1) {
						if strings.HasPrefix(tag, "</") {
							depth--
						} else {
							depth++
						}
					}
				}
				if depth == 0 && k != len(blocks[i:])-1 {
					bad(m, "the fold closes before the section ends")
					return
				}
			}
			s.folded = depth == 0
			if !s.folded {
				bad(n, "the fold is never closed")
			}
			return
		case isStrongLed(n) && isFence(next, src, "diff"):
			at(n, stageHunks)
			s.hunks++
			i++
		case isHunkCount(n):
			// "_2 more root hunks not shown here._" under the shown ones
			at(n, stageHunks)
		case isList(n, true):
			at(n, stageChain)
			s.chain = n.ChildCount()
			if s.chain < 3 || s.chain > 7 {
				bad(n, "a chain of %d steps, want 3 to 7", s.chain)
			}
		case isStrongLed(n) && (next == nil || isHTML(next, src, "<details>")):
			at(n, stageProof)
			s.proof = true
		default:
			bad(n, "open in the first screen, which holds only the verdict, root hunks, chain and proof")
		}
	}
}

func kindOf(n ast.Node) string {
	if n == nil {
		return "end"
	}
	return n.Kind().String()
}

// isStrongLed tells a paragraph that opens with bold text: a hunk's
// header or the proof's label.
func isStrongLed(n ast.Node) bool {
	p, ok := n.(*ast.Paragraph)
	if !ok {
		return false
	}
	e, ok := p.FirstChild().(*ast.Emphasis)
	return ok && e.Level == 2
}

// isHunkCount tells a paragraph wholly in italics, as the count of root
// hunks not shown is.
func isHunkCount(n ast.Node) bool {
	p, ok := n.(*ast.Paragraph)
	if !ok || p.ChildCount() != 1 {
		return false
	}
	e, ok := p.FirstChild().(*ast.Emphasis)
	return ok && e.Level == 1
}

func isFence(n ast.Node, src []byte, lang string) bool {
	f, ok := n.(*ast.FencedCodeBlock)
	return ok && string(f.Language(src)) == lang
}

func isList(n ast.Node, ordered bool) bool {
	l, ok := n.(*ast.List)
	return ok && l.IsOrdered() == ordered
}

func isHTML(n ast.Node, src []byte, prefix string) bool {
	h, ok := n.(*ast.HTMLBlock)
	return ok && strings.HasPrefix(htmlText(h, src), prefix)
}

func htmlText(h *ast.HTMLBlock, src []byte) string {
	var b strings.Builder
	for i := 0; i < h.Lines().Len(); i++ {
		seg := h.Lines().At(i)
		b.Write(seg.Value(src))
	}
	if h.HasClosure() {
		b.Write(h.ClosureLine.Value(src))
	}
	return b.String()
}

// checkScreens fails t with every problem of the comment's sections, and
// when a section has nothing to fold.
func checkScreens(t *testing.T, md string) []*screen {
	t.Helper()
	ss := screens(md)
	for _, s := range ss {
		for _, p := range s.problems {
			t.Error(p)
		}
		if !s.folded {
			t.Errorf("%s: no fold after the first screen", s.title)
		}
	}
	return ss
}

// TestFirstScreen: in every comment, each test's section opens with only
// the verdict, its root hunks, the chain and the proof, and folds all the
// rest into one <details> that ends the section.
func TestFirstScreen(t *testing.T) {
	eachGolden(t, "golden comments", func(t *testing.T, md string) { checkScreens(t, md) }, "*.comment.golden")

	docs := map[string]*result.Report{"long values": longValues()}
	var all []*result.Report
	for _, tc := range fixtures {
		docs[tc.name] = tc.doc()
		all = append(all, tc.doc())
	}
	for _, name := range slices.Sorted(maps.Keys(docs)) {
		r := docs[name]
		t.Run(name, func(t *testing.T) {
			ss := checkScreens(t, Comment([]*result.Report{r}, CommentOptions{}))
			if len(ss) != 1 {
				t.Fatalf("%d sections, want 1", len(ss))
			}
			s := ss[0]
			claimed := r.Status == result.Explained || r.Status == result.FlakyRegression
			if want := len(r.Root); claimed && s.hunks != want {
				t.Errorf("%d root hunk blocks open, want %d", s.hunks, want)
			}
			if want := len(r.Chain); r.Status == result.Explained && s.chain != want {
				t.Errorf("a chain of %d steps open, want %d", s.chain, want)
			}
			if s.proof != (r.Proof != nil) {
				t.Errorf("proof line open: %v, want %v", s.proof, r.Proof != nil)
			}
		})
	}
	t.Run("several tests", func(t *testing.T) {
		if ss := checkScreens(t, Comment(all, CommentOptions{})); len(ss) != len(all) {
			t.Errorf("%d sections, want %d", len(ss), len(all))
		}
	})
}

// TestScreensFindFaults: the reading of a section finds what it is meant
// to find.
func TestScreensFindFaults(t *testing.T) {
	const (
		verdict = "**T** fails.\n\n"
		hunk    = "**Hunk #2** `a.go:8`\n\n```diff\n-a\n+b\n```\n\n"
		chain   = "1. a\n2. b\n3. c\n\n"
		proof   = "**Proof:** reverting hunk #2 → **pass**.\n\n"
		fold    = "<details><summary>More</summary>\n\n#### Evidence\n\n- x\n\n</details>\n"
	)
	for _, tc := range []struct {
		name, body string
		ok         bool
	}{
		{"in order", verdict + hunk + hunk + chain + proof + fold, true},
		{"verdict only", verdict + fold, true},
		{"a heading open", verdict + "#### Root cause\n\n" + hunk + proof + fold, false},
		{"chain before hunks", verdict + chain + hunk + proof + fold, false},
		{"a long chain", verdict + hunk + "1. a\n2. b\n3. c\n4. d\n5. e\n6. f\n7. g\n8. h\n\n" + proof + fold, false},
		{"a list open", verdict + hunk + "- a\n\n" + proof + fold, false},
		{"a chart open", verdict + hunk + "```mermaid\nflowchart TB\n```\n\n" + proof + fold, false},
		{"no fold", verdict + hunk + proof, false},
		{"text after the fold", verdict + fold + "\n<sub>stats</sub>\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ss := screens("## culprit\n\n### `T`\n\n" + tc.body + "\n---\nfooter\n")
			if len(ss) != 1 {
				t.Fatalf("%d sections, want 1", len(ss))
			}
			ok := len(ss[0].problems) == 0 && ss[0].folded
			if ok != tc.ok {
				t.Errorf("section passes: %v, want %v (problems %q)", ok, tc.ok, ss[0].problems)
			}
		})
	}
}
