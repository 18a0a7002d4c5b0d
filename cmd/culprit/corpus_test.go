package main

import (
	"strings"
	"testing"
)

// The summary counts each part of the corpus apart: a validation case's
// hits never add to the tuning set's figures.
func TestSummaryKeepsSetsApart(t *testing.T) {
	row := func(root, tree string) []string {
		return []string{"case", "3", "explained", "[1]", root, tree, "yes", "2"}
	}
	var s summary
	s.add((&corpusCase{}).set(), row("yes", "yes"))
	s.add((&corpusCase{}).set(), row("equivalent", "no"))
	s.add((&corpusCase{Set: "validation"}).set(), row("no", "no tree"))
	s.add((&corpusCase{Set: "validation"}).set(), row("yes", "yes"))
	s.add((&corpusCase{Set: "validation"}).set(), row("unminimised", "no tree"))
	var b strings.Builder
	if err := s.print(&b); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"tuning": "2  2/2  1/2", "validation": "3  1/3  1/3"}
	for set, figures := range want {
		found := false
		for _, line := range strings.Split(b.String(), "\n") {
			f := strings.Fields(line)
			if len(f) > 0 && f[0] == set {
				found = strings.Join(f[1:], "  ") == figures
			}
		}
		if !found {
			t.Errorf("summary lacks %s %s:\n%s", set, figures, b.String())
		}
	}
}
