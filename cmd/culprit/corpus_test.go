package main

import (
	"strings"
	"testing"

	"github.com/culprit-dev/culprit/analyzer/result"
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

// TestTreeHits: a tree reaches the truth through a step, a branch it went
// through, or a node's target (a panic in the faulty line); a tree whose
// statements all lie elsewhere does not.
func TestTreeHits(t *testing.T) {
	c := &corpusCase{Truth: []lineRange{{File: "router.go", Lines: [2]int{415, 415}}}}
	at := func(line int) result.Statement { return result.Statement{File: "router.go", Line: line} }
	for _, tt := range []struct {
		name string
		tree *result.Node
		want bool
	}{
		{"target", &result.Node{Target: at(415), Statements: []result.Statement{at(414)}}, true},
		{"step", &result.Node{Target: at(420), Statements: []result.Statement{at(415)}}, true},
		{"via", &result.Node{Target: at(420), Children: []*result.Node{{Via: ptr(at(415)), Target: at(300)}}}, true},
		{"elsewhere", &result.Node{Target: at(420), Statements: []result.Statement{at(414)}, Children: []*result.Node{{Target: at(416)}}}, false},
	} {
		if got := c.treeHits(tt.tree); got != tt.want {
			t.Errorf("%s: treeHits = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func ptr[T any](v T) *T { return &v }
