package reporttest

import (
	"strings"
	"testing"
)

func TestCheckMarkdown(t *testing.T) {
	const marker = "<!-- culprit:report -->"
	ok := marker + "\n## culprit\n\n**TestF** fails: `calc.go:8` (x = 3).\n\n" +
		"<details><summary>2 variants</summary>\n\n| a | b |\n|---|---|\n\n</details>\n\n" +
		"```diff\n-@octocat https://example.com <img> </details>\n```\n\n" +
		"````mermaid\nflowchart BT\n  n0[\"a<br/>b\"]\n````\n\n" +
		"escaped &lt;/details&gt; &amp;#64;alice @\u200doctocat https:/\u200b/x\n<sub>7 trials</sub>\n"
	if err := CheckMarkdown(ok, marker); err != nil {
		t.Fatalf("culprit's own markup refused: %v", err)
	}
	tests := []struct{ name, md, want string }{
		{"other tag", `<img src="x">`, "raw HTML"},
		{"stray close", "</details>", "closes what it did not open"},
		{"left open", "<details><summary>x</summary>", "left open"},
		{"misnested", "<details><summary>x</details></summary>", "closes what it did not open"},
		{"comment", "<!-- culprit:report:other -->", "<!--"},
		{"comment in a code block", "\n```\n<!-- culprit:hunk x -->\n```\n", "<!--"},
		{"marker twice", marker + "\n" + marker, "appears 2 times"},
		{"mention", "hi @octocat", "mention"},
		{"team", "`@octo/owners`", "mention"},
		{"entity mention", "&#64;alice", "mention"},
		{"url", "see https://evil.example", "link"},
		{"entity url", "https&#58;&#47;&#47;evil.example", "link"},
		{"host link", "[click](//evil.example)", "link"},
		{"www", "WWW.evil.example", "link"},
		{"relative link", "[click](login)", "link"},
		{"fence after text", "x\n```\n@octocat\n```\n", "mention"},
		{"unclosed fence", "\n```\n@octocat\n", "not closed"},
		{"control", "a\x00b", "control character"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckMarkdown(tc.md, marker)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("CheckMarkdown(%q) = %v, want an error about %q", tc.md, err, tc.want)
			}
		})
	}
}

func TestCheckText(t *testing.T) {
	if err := CheckText("culprit: TestF fails at calc.go:8 (x < y)"); err != nil {
		t.Errorf("plain text refused: %v", err)
	}
	for _, s := range []string{"<!-- x -->", "@octocat", "<details>", "https://x"} {
		if CheckText(s) == nil {
			t.Errorf("CheckText(%q) passed", s)
		}
	}
}

func TestFill(t *testing.T) {
	type node struct {
		Name     string
		Kids     []*node
		Values   map[string]string
		Kind     kind
		Lines    [2]int
		Optional *struct{ Text string }
	}
	var n node
	Fill(&n, "X", true)
	if n.Name != "X" || n.Kind != "X" || n.Values["X"] != "X" || n.Lines != [2]int{1, 1} || n.Optional == nil || n.Optional.Text != "X" {
		t.Errorf("Fill left a field unset: %+v", n)
	}
	depth := 0
	for p := &n; len(p.Kids) == 1 && p.Kids[0] != nil; p = p.Kids[0] {
		depth++
	}
	if depth != maxNesting {
		t.Errorf("a recursive type was filled %d levels deep, want %d", depth, maxNesting)
	}
}

type kind string
