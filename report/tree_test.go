package report

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/culprit-dev/culprit/analyzer/result"
)

func TestMermaidText(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"x < y", "x #60; y"},
		{`s == "a"`, "s == #quot;a#quot;"},
		{"a[i] > m{k}", "a#91;i#93; #62; m#123;k#125;"},
		{"f(x) | g", "f#40;x#41; #124; g"},
		{"p && q", "p #38;#38; q"},
		{"hunk #3", "hunk #35;3"},
		{"`raw`; next", "#96;raw#96;#59; next"},
		{"<br/>", "#60;\u200bbr/#62;"}, // defanged before it is escaped
		{"two\nlines", "two lines"},
		{"ünïcödé 日本", "ünïcödé 日本"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, mermaidText(tc.in)); diff != "" {
				t.Errorf("mermaidText(%q) (-want +got):\n%s", tc.in, diff)
			}
		})
	}
}

// TestMermaidLabels checks that no source text can end a label or the
// code block the flowchart sits in.
func TestMermaidLabels(t *testing.T) {
	nasty := result.Statement{File: "a.go", Line: 3, Text: "s == \"]\"] --> x[\"```", Values: map[string]string{"m[\"k\"]": "<b>"}, Hunk: 1}
	tree := &result.Node{Target: nasty, Outcome: "fail\"ed", Statements: []result.Statement{nasty},
		Children: []*result.Node{{Target: nasty, Via: &nasty, Outcome: "|true|", Statements: []result.Statement{nasty}}}}
	got := mermaid(tree)
	for _, line := range strings.Split(strings.TrimSpace(got), "\n")[1:] {
		if strings.Count(line, `"`)%2 != 0 || strings.ContainsAny(strings.Map(insideQuotes(), strings.ReplaceAll(line, "<br/>", "")), "<>`") {
			t.Errorf("unescaped label in %q", line)
		}
	}
	if strings.Contains(got, "```") {
		t.Errorf("flowchart can close its code block:\n%s", got)
	}
}

// insideQuotes keeps only the characters between double quotes.
func insideQuotes() func(rune) rune {
	in := false
	return func(r rune) rune {
		if r == '"' {
			in = !in
			return -1
		}
		if in {
			return r
		}
		return -1
	}
}

func TestTreeList(t *testing.T) {
	tests := []struct {
		name string
		d    detail
		want string
	}{
		{"full", detail{treeItems: 100, treeDepth: 10}, "" +
			"- **failed:** `calc/calc_test.go:6` `got != 5` (got = 4)\n" +
			"  - `calc/calc.go:17` `sum += z + 1` (sum = 4, z = 2) ← hunk #3\n" +
			"  - `calc/calc.go:11` `sum = y` (sum = 1)\n" +
			"  - because `calc/calc.go:8` `x < y` was **false** (x = 3, y = 1) ← hunk #2\n" +
			"    - `calc/calc_test.go:6` `F(3, 1, 2)`\n\n"},
		{"few items", detail{treeItems: 2, treeDepth: 10}, "" +
			"- **failed:** `calc/calc_test.go:6` `got != 5` (got = 4)\n" +
			"  - `calc/calc.go:17` `sum += z + 1` (sum = 4, z = 2) ← hunk #3\n" +
			"- _… 3 more steps of the tree not shown here._\n\n"},
		{"shallow", detail{treeItems: 100, treeDepth: 1}, "" +
			"- **failed:** `calc/calc_test.go:6` `got != 5` (got = 4)\n" +
			"- _… 4 more steps of the tree not shown here._\n\n"},
		{"too big to draw", detail{treeItems: 100, treeDepth: 10, mermaid: 4}, "" +
			"- **failed:** `calc/calc_test.go:6` `got != 5` (got = 4)\n" +
			"  - `calc/calc.go:17` `sum += z + 1` (sum = 4, z = 2) ← hunk #3\n" +
			"  - `calc/calc.go:11` `sum = y` (sum = 1)\n" +
			"  - because `calc/calc.go:8` `x < y` was **false** (x = 3, y = 1) ← hunk #2\n" +
			"    - `calc/calc_test.go:6` `F(3, 1, 2)`\n\n" +
			"_The tree has 5 steps, too many to draw as a flowchart._\n\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			renderTree(&b, explainedWithTree(), tc.d, true)
			if diff := cmp.Diff(tc.want, b.String()); diff != "" {
				t.Errorf("tree (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCode(t *testing.T) {
	tests := []struct{ in, want string }{
		{"x", "`x`"},
		{"a`b", "``a`b``"},
		{"`a`", "`` `a` ``"},
		{"", "` `"},
		{"a\nb", "`a b`"},
		{"g.AddRoute(Route{\n\t\tMethod:  m,\n\t\tPath: p,\n\t})", "`g.AddRoute(Route{ Method:  m, Path: p, })`"},
		{"x := \"a\tb\"", "`x := \"a\tb\"`"},
	}
	for _, tc := range tests {
		if got := code(tc.in); got != tc.want {
			t.Errorf("code(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got, want := mermaidText("f(T{\n\t\tA: 1,\n\t})"), "f#40;T#123; A: 1, #125;#41;"; got != want {
		t.Errorf("mermaidText = %q, want %q", got, want)
	}
	if got, want := fenced("diff", "+```\n"), "````diff\n+```\n````\n"; got != want {
		t.Errorf("fenced = %q, want %q", got, want)
	}
}

// TestDeletedStep checks that code the change deleted is told apart from
// an executed statement in the list and in the flowchart.
func TestDeletedStep(t *testing.T) {
	del := result.Statement{File: "norm.go", Line: 8, Text: "x = -x", Hunk: 1, Deleted: true}
	ran := result.Statement{File: "norm.go", Line: 7, Text: "x < 0", Values: map[string]string{"x": "-2"}}
	if got := step(del); !strings.Contains(got, "deleted here by the change") || !strings.HasSuffix(got, "← hunk #1") {
		t.Errorf("step(deleted) = %q", got)
	}
	if got := step(ran); strings.Contains(got, "deleted") {
		t.Errorf("step(executed) = %q", got)
	}
	tree := &result.Node{Target: ran, Outcome: "failed", Statements: []result.Statement{ran, del}}
	if got := mermaid(tree); strings.Count(got, "deleted by the change") != 1 {
		t.Errorf("flowchart marks %d deleted steps, want 1:\n%s", strings.Count(got, "deleted by the change"), got)
	}
}

// TestTimingStep words a step found by serialising a root hunk's function
// directly (fact timing): the function's statement, what serialising did,
// and, when a delay of the same length stopped the failure too, that the
// step is correlated only, for that reason.
func TestTimingStep(t *testing.T) {
	for _, tc := range []struct {
		link, effect string
		want         []string
	}{
		{"confirmed", "0.45 → 0/26", []string{
			"calls of the function that holds `sum += z + 1` (`calc/calc.go:17`) ran at once on two goroutines",
			"**confirmed** by intervention: with its calls run one at a time, the failure stopped (failure rate 0.45 → 0/26)",
		}},
		{"correlated", "", []string{
			"calls of the function that holds `sum += z + 1` (`calc/calc.go:17`) ran at once on two goroutines",
			"_correlated only_: with its calls run one at a time the failure stopped, but a delay of the same length on entering it stopped it too",
		}},
	} {
		t.Run(tc.link, func(t *testing.T) {
			r := flakyRegression()
			st := result.Statement{File: "calc/calc.go", Line: 17, Text: "sum += z + 1", Hunk: 3}
			r.Tree.Children = []*result.Node{{Target: st, Statements: []result.Statement{st}, Link: tc.link, Effect: tc.effect, Fact: "timing"}}
			if err := validate(r); err != nil {
				t.Fatalf("the report does not validate: %v", err)
			}
			md := Markdown(r)
			for _, w := range tc.want {
				if !strings.Contains(md, w) {
					t.Errorf("the report lacks %q:\n%s", w, md)
				}
			}
			if tc.link == "correlated" && strings.Contains(md, "seen in every failing run") {
				t.Errorf("a timing step is not seen in runs; the report says it is:\n%s", md)
			}
		})
	}
}
