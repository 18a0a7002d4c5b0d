// Package cause holds the causal tree that explains a failing test: the
// domain type shared by the semantic analysis that derives it, the engine
// that returns it and the renderers that show it.
package cause

import "github.com/culprit-dev/culprit/diffhunks"

// Statement is one executed statement of the failing run, or code the
// change deleted from where the run passed.
type Statement struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Text string `json:"text"`
	// Values are the values observed when the statement ran, by the name
	// of the variable or expression as it appears in the source.
	Values map[string]string `json:"values,omitempty"`
	// Hunk is the hunk whose head lines contain the statement, 0 if none.
	Hunk diffhunks.ID `json:"hunk,omitempty"`
	// Deleted marks code the change removed, which the failing run could
	// not execute: Text is the deleted source and Line the head line it
	// stood just before; Hunk is the deletion.
	Deleted bool `json:"deleted,omitempty"`
}

// Node is one cause: a minimal set of statements that forces its target.
type Node struct {
	// Target is the predicate this cause explains: the failed assertion at
	// the root of the tree, a critical predicate below it.
	Target Statement `json:"target"`
	// Via is the critical predicate linking this node to its parent, nil at
	// the root. For a child, Via and Target name the same branch.
	Via *Statement `json:"via,omitempty"`
	// Outcome is the branch outcome observed at Target ("true"/"false"),
	// or the failure kind for the root (e.g. "failed", "panic").
	Outcome    string      `json:"outcome,omitempty"`
	Statements []Statement `json:"statements"`
	Children   []*Node     `json:"children,omitempty"`
}

// Walk calls f for n and every node below it, depth first.
func (n *Node) Walk(f func(*Node)) {
	if n == nil {
		return
	}
	f(n)
	for _, c := range n.Children {
		c.Walk(f)
	}
}
