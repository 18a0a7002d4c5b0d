package action

import (
	"strings"
	"testing"
)

func TestNeutral(t *testing.T) {
	const zwj, zwsp = "\u200d", "\u200b"
	details := "https://github.com/octo/calc/actions/runs/9"
	in := "<!-- culprit -->\n" +
		"TestX/cc_@octocat_and_@org/team fails; see https://evil.example/x and www.evil.example\n" +
		"[click](http://evil.example) `@inline https://code` after `` a ` @b `` @c\n" +
		"```go\n@fenced https://fenced\n```\n" +
		"````suggestion\n```\n@suggested https://suggested\n```\n````\n" +
		"~~~\n@tilde https://tilde\n~~~~\n" +
		"mail a@b.example, lone @ sign\n" +
		"[Full report](" + details + ")"
	got := neutral(in, details, "<!-- culprit -->")
	for _, bad := range []string{"@octocat", "@org/team", "https://evil", "http://evil", "www.evil", "@c", "a@b"} {
		if strings.Contains(got, bad) {
			t.Errorf("%q is still live in:\n%s", bad, got)
		}
	}
	for _, want := range []string{
		"@" + zwj + "octocat", "@" + zwj + "org/team", "https:" + zwsp + "//evil.example/x", "www" + zwsp + ".evil",
		"`@inline https://code`", "`` a ` @b ``", "@fenced https://fenced",
		"@suggested https://suggested", "@tilde https://tilde", "lone @ sign",
		"[Full report](" + details + ")", "<!-- culprit -->",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
}
