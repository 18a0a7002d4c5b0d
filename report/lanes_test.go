package report

import (
	"regexp"
	"strings"
	"testing"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"

	"github.com/culprit-dev/culprit/analyzer/result"
)

// The values of longValues: one far longer than a label's line, one the
// tracer already cut (its ellipsis is its own), and short ones.
var (
	longValue = `&Request{Method:"POST", URL:"/v1/accounts/42/transfers", Header:map[X-Trace:[a1b2c3d4e5f6]], Body:{"amount":1000,"currency":"EUR"}}`
	cutValue  = `[]string{"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta…`
)

// longValues is the AFTER example's chain with a shared first step, so
// that the lanes part below it, and values too long for a label.
func longValues() *result.Report {
	r := explainedWithChain()
	pass := func(p result.Passing) *result.Passing { return &p }
	shared := result.Statement{File: "calc/calc_test.go", Line: 5, Text: "got := F(3, 1, 2)",
		Values:  map[string]string{"req": longValue, "n": "3"},
		Passing: pass(result.Passing{Values: map[string]string{"req": longValue, "n": "3"}})}
	r.Chain = append([]result.Statement{shared}, r.Chain...)
	r.Chain[1].Values = map[string]string{"x": "3", "y": "1", "names": cutValue}
	r.Chain[2].Passing.Values = map[string]string{"req": longValue, "m": "8"}
	return r
}

// chart is a Mermaid flowchart read back: the nodes by id with their
// label and class, the subgraph each node is declared in ("" outside any),
// and the edges.
type chart struct {
	label, class, lane map[string]string
	lanes              []string
	edges              [][2]string
}

var (
	nodeRE     = regexp.MustCompile(`^\s*(\w+)\["(.*)"\](?::::(\w+))?$`)
	subgraphRE = regexp.MustCompile(`^\s*subgraph (\w+)`)
)

func readChart(t *testing.T, src string) chart {
	t.Helper()
	c := chart{label: map[string]string{}, class: map[string]string{}, lane: map[string]string{}}
	lane := ""
	for _, line := range strings.Split(src, "\n") {
		trimmed := strings.TrimSpace(line)
		switch m := nodeRE.FindStringSubmatch(line); {
		case subgraphRE.MatchString(line):
			lane = subgraphRE.FindStringSubmatch(line)[1]
			c.lanes = append(c.lanes, lane)
		case trimmed == "end":
			lane = ""
		case m != nil:
			c.label[m[1]], c.class[m[1]], c.lane[m[1]] = m[2], m[3], lane
		case strings.Contains(line, "-->"):
			ids := strings.Split(trimmed, " --> ")
			for i := 1; i < len(ids); i++ {
				c.edges = append(c.edges, [2]string{ids[i-1], ids[i]})
			}
		}
	}
	for _, e := range c.edges {
		for _, id := range e {
			if _, ok := c.label[id]; !ok {
				t.Errorf("edge %v links an undeclared node %q", e, id)
			}
		}
	}
	return c
}

// charts returns the Mermaid blocks of md, as GitHub parses it.
func charts(md string) []string {
	src := []byte(md)
	var out []string
	_ = ast.Walk(gfm.Parser().Parse(text.NewReader(src)), func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if f, ok := n.(*ast.FencedCodeBlock); ok && entering && string(f.Language(src)) == "mermaid" {
			var b strings.Builder
			for i := 0; i < f.Lines().Len(); i++ {
				seg := f.Lines().At(i)
				b.Write(seg.Value(src))
			}
			out = append(out, b.String())
		}
		return ast.WalkContinue, nil
	})
	return out
}

// TestChainLanes: the chart of a chain with a passing side is two lanes,
// one a run, that share the steps before the divergence and part at it;
// the comment and the report draw it, and no chart at all without a
// passing side.
func TestChainLanes(t *testing.T) {
	for _, tc := range []struct {
		name   string
		doc    *result.Report
		shared int // steps before the divergence
	}{
		{"divergence first", explainedWithChain(), 0},
		{"a shared step first", longValues(), 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := -1
			for i, s := range tc.doc.Chain {
				if s.Diverges {
					k = i
				}
			}
			if k != tc.shared {
				t.Fatalf("the fixture diverges at step %d, want %d", k, tc.shared)
			}
			for form, md := range map[string]string{"comment": Comment([]*result.Report{tc.doc}, CommentOptions{}), "report": Markdown(tc.doc)} {
				cs := charts(md)
				if len(cs) != 1 {
					t.Fatalf("%s: %d charts, want 1", form, len(cs))
				}
				checkLanes(t, readChart(t, cs[0]), tc.doc.Chain[k], tc.shared)
			}
		})
	}
	t.Run("no passing side", func(t *testing.T) {
		r := explainedWithChain()
		for i := range r.Chain {
			r.Chain[i].Passing, r.Chain[i].Diverges = nil, false
		}
		if cs := charts(Comment([]*result.Report{r}, CommentOptions{})); len(cs) != 0 {
			t.Errorf("the comment draws %d charts of a chain without a passing side, want none", len(cs))
		}
		if cs := charts(Markdown(r)); len(cs) != 0 {
			t.Errorf("the report draws %d charts of a chain without a passing side, want none", len(cs))
		}
	})
	t.Run("no chart of a tree in the comment", func(t *testing.T) {
		for _, r := range []*result.Report{explainedWithTree(), flakyRegression()} {
			if cs := charts(Comment([]*result.Report{r}, CommentOptions{})); len(cs) != 0 {
				t.Errorf("%s: the comment draws %d charts without a chain, want none", r.Status, len(cs))
			}
		}
	})
}

// checkLanes checks the shape of a two-lane chart: two subgraphs, each
// one path; one node outside them, the divergence step's, from which an
// edge enters each; the shared steps outside, leading to it; no edge
// across the lanes; one lane ending at the failure, the other not.
func checkLanes(t *testing.T, c chart, diverges result.Statement, shared int) {
	t.Helper()
	if len(c.lanes) != 2 {
		t.Fatalf("%d subgraphs %v, want 2, one for each run", len(c.lanes), c.lanes)
	}
	into := map[string]map[string]bool{} // node → lanes its edges enter
	var parting []string
	outside := 0
	for id := range c.label {
		if c.lane[id] == "" {
			outside++
		}
	}
	for _, e := range c.edges {
		from, to := c.lane[e[0]], c.lane[e[1]]
		if from != "" && to != "" && from != to {
			t.Errorf("edge %v crosses from lane %s to lane %s", e, from, to)
		}
		if from == "" && to != "" {
			if into[e[0]] == nil {
				into[e[0]] = map[string]bool{}
			}
			into[e[0]][to] = true
		}
	}
	for id, lanes := range into {
		if len(lanes) == 2 {
			parting = append(parting, id)
		}
	}
	if len(parting) != 1 || len(into) != 1 {
		t.Fatalf("nodes with edges into the lanes %v, want one into both", into)
	}
	place := mermaidText(diverges.File) + ":"
	if !strings.HasPrefix(c.label[parting[0]], place) {
		t.Errorf("the lanes part at %q, want the divergence at %s", c.label[parting[0]], place)
	}
	if outside != shared+1 {
		t.Errorf("%d nodes outside the lanes, want the %d shared steps and the divergence", outside, shared)
	}
	ends := map[string]string{}
	for _, lane := range c.lanes {
		// Each lane is one path: every node but its last has one edge on.
		next := map[string]int{}
		var last []string
		for _, e := range c.edges {
			if c.lane[e[0]] == lane {
				next[e[0]]++
			}
		}
		for id := range c.label {
			if c.lane[id] == lane && next[id] == 0 {
				last = append(last, id)
			}
		}
		if len(last) != 1 {
			t.Errorf("lane %s ends at %v, want one node", lane, last)
			continue
		}
		ends[c.class[last[0]]] = lane
	}
	if ends["failed"] == "" || ends["passed"] == "" {
		t.Errorf("the lanes end at nodes of classes %v, want one failed and one passed", ends)
	}
}

// TestChartKeepsValuesWhole: a label too short for a step's values leaves
// out whole pairs and says so with "…"; no value is cut in the middle,
// in the chart of the chain or of the causal tree.
func TestChartKeepsValuesWhole(t *testing.T) {
	r := longValues()
	tree := longValues()
	tree.Chain = nil
	tree.Tree.Statements[0].Values = map[string]string{"req": longValue, "names": cutValue, "k": "7"}
	var all []string
	for _, md := range []string{Comment([]*result.Report{r}, CommentOptions{}), Markdown(r), Markdown(tree)} {
		all = append(all, charts(md)...)
	}
	if len(all) != 3 {
		t.Fatalf("%d charts, want the chain's in the comment and the report, and the tree's", len(all))
	}
	for _, src := range all {
		for _, v := range []struct{ name, value string }{{"req", longValue}, {"names", cutValue}, {"x", "3"}, {"n", "3"}} {
			pair := mermaidText(v.name + " = ")
			for rest := src; ; {
				i := strings.Index(rest, pair)
				if i < 0 {
					break
				}
				rest = rest[i+len(pair):]
				if !strings.HasPrefix(rest, mermaidText(v.value)) {
					t.Errorf("a label cuts the value of %s: %.80q", v.name, rest)
				}
			}
		}
		if strings.Contains(src, mermaidText("req = ")) {
			t.Errorf("a label holds the value of req, %d characters long:\n%s", len(longValue), src)
		}
		// Each line that left req out says so.
		for _, label := range readChart(t, src).label {
			for _, line := range strings.Split(label, "<br/>") {
				for _, beside := range []string{"n = 3", "k = 7", "m = 8"} {
					if strings.Contains(line, beside) && !strings.HasSuffix(line, "…") {
						t.Errorf("a label leaves out req without saying so: %q", line)
					}
				}
			}
		}
	}
}
