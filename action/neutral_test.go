package action

import (
	"strings"
	"testing"

	"github.com/culprit-dev/culprit/analyzer/result"
	"github.com/culprit-dev/culprit/report"
	"github.com/culprit-dev/culprit/report/reporttest"
)

func TestNeutral(t *testing.T) {
	details := "https://github.com/octo/calc/actions/runs/9"
	in := "<!-- culprit -->\n" +
		"TestX/cc_@octocat_and_@org/team fails; see https://evil.example/x and www.evil.example\n" +
		"[click](http://evil.example) `@inline https://code` after `` a ` @b `` @c\n" +
		"\n```go\n@fenced https://fenced\n```\n" +
		"\n````suggestion\n```\n@suggested https://suggested\n```\n````\n" +
		"\n~~~\n@tilde https://tilde\n~~~~\n" +
		"mail a@b.example, lone @ sign\n" +
		"[Full report](" + details + ")"
	got := neutral(in, details, "<!-- culprit -->")
	for _, bad := range []string{"@octocat", "@org/team", "https://evil", "http://evil", "www.evil", "@c", "a@b",
		"@inline", "https://code", "@b", "[click](http"} {
		if strings.Contains(got, bad) {
			t.Errorf("%q is still live in:\n%s", bad, got)
		}
	}
	for _, want := range []string{
		"@" + zwj + "octocat", "@" + zwj + "org/team", "https:/" + zwsp + "/evil.example/x", "www" + zwsp + ".evil",
		"`@" + zwj + "inline https:/" + zwsp + "/code`", "@fenced https://fenced",
		"@suggested https://suggested", "@tilde https://tilde", "lone @ sign",
		"[Full report](" + details + ")", "<!-- culprit -->",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
}

// TestNeutralEscapedBackticks: a backslash-escaped backtick opens no code
// span for GitHub, so it opens none for neutral either (it once did, and
// left the mention and the link between such backticks live).
func TestNeutralEscapedBackticks(t *testing.T) {
	in := "- see \\` @octo/owners \\` and \\` https://evil.example/login \\`\n" +
		"- a run of two `` closes no span of one ` @octo/owners\n"
	got := neutral(in)
	if err := reporttest.CheckMarkdown(got); err != nil {
		t.Errorf("%v:\n%s", err, got)
	}
}

// TestNeutralAttacks: each text seen in a forged artifact, put in a
// comment as it is, comes out unable to mention, link, load or forge a
// marker. Balance is left out: culprit's own tags are kept, so a stray
// </details> in data is the renderer's to escape.
func TestNeutralAttacks(t *testing.T) {
	const marker = "<!-- culprit:report -->"
	details := "https://github.com/octo/calc/actions/runs/9"
	link := "[Full report](" + details + ")"
	for _, a := range reporttest.Attacks {
		if strings.Contains(a, "</details>") || strings.Contains(a, "</summary>") {
			continue
		}
		t.Run(a, func(t *testing.T) {
			in := marker + "\n### culprit\n\n<details><summary>1 variant</summary>\n\n- " + a + " `" + a + "`\n\n</details>\n\n" +
				"<sub>" + a + "</sub>\n\n---\n" + link + "\n"
			got := neutral(in, details, marker)
			if err := reporttest.CheckMarkdown(got, marker, link); err != nil {
				t.Errorf("%v:\n%s", err, got)
			}
			for _, keep := range []string{"<details><summary>1 variant</summary>", "</details>", "<sub>", "</sub>"} {
				if !strings.Contains(got, keep) {
					t.Errorf("culprit's own %q is gone:\n%s", keep, got)
				}
			}
		})
	}
}

// TestNeutralFences: only a fence after a blank line, as culprit writes
// them, keeps its block as it is; a fence line anywhere else (in a list
// item, straight after an HTML line) is text to GitHub or may be.
func TestNeutralFences(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"after a blank line", "x\n\n```\n@a\n```\n", "@a"},
		{"after text", "x\n```\n@a\n```\n", "@" + zwj + "a"},
		{"after HTML", "<details><summary>s</summary>\n```\n@a\n```\n", "@" + zwj + "a"},
		{"indented four", "x\n\n    ```\n@a\n```\n", "@" + zwj + "a"},
		{"marker inside", "\n```\n<!-- culprit:report -->\n```\n", "<" + zwsp + "!-- culprit:report -->"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := neutral(tc.in); !strings.Contains(got, tc.want) {
				t.Errorf("neutral(%q) = %q, want it to hold %q", tc.in, got, tc.want)
			}
		})
	}
}

// TestNeutralKeepIsNotForgeable: a placeholder's bytes in the body cannot
// become a kept string.
func TestNeutralKeepIsNotForgeable(t *testing.T) {
	const marker = "<!-- culprit:report -->"
	got := neutral(marker+"\nname \x000\x00 and \x001\x00\n", marker)
	if n := strings.Count(got, marker); n != 1 || strings.Contains(got, "\x00") {
		t.Errorf("the marker appears %d times:\n%q", n, got)
	}
}

// TestNeutralKeepsRenderedCommentsInert: the sticky comment and the review
// comments of a report whose every string is an attack hold the invariant
// after neutral, as post publishes them, with culprit's marker, key and
// link kept once each.
func TestNeutralKeepsRenderedCommentsInert(t *testing.T) {
	const marker = "<!-- culprit:report:linux -->"
	details := "https://github.com/octo/calc/actions/runs/9"
	for i, attack := range reporttest.Attacks {
		r := new(result.Report)
		reporttest.Fill(r, attack, i%2 == 0)
		r.Status = result.Explained
		body := report.Comment([]*result.Report{r}, report.CommentOptions{DetailsURL: details})
		body = neutral(strings.Replace(body, report.Marker, marker, 1), details, marker)
		if err := reporttest.CheckMarkdown(body, marker, "[Full report]("+details+")", "[full report]("+details+")"); err != nil {
			t.Errorf("attack %q: comment: %v\n%s", attack, err, body)
		}
		for _, rc := range report.ReviewComments(r) {
			if got := neutral(rc.Body, rc.Key, reviewPrefix); reporttest.CheckMarkdown(got, rc.Key) != nil {
				t.Errorf("attack %q: review comment: %v\n%s", attack, reporttest.CheckMarkdown(got, rc.Key), got)
			}
		}
	}
}
