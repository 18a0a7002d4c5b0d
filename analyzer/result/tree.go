package result

import "maps"

// The causal tree and the chain: how the change leads to the failure,
// statement by statement. The semantic analysis derives the tree, the
// comparison with the passing run adds each step's passing instance and
// the chain, and the renderers show both.

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
	Hunk HunkID `json:"hunk,omitempty"`
	// Deleted marks code the change removed, which the failing run could
	// not execute: Text is the deleted source and Line the head line it
	// stood just before; Hunk is the deletion.
	Deleted bool `json:"deleted,omitempty"`
	// Outcome is a branch's outcome in this run ("true", "false", "case
	// 2"), set on the steps of a chain.
	Outcome string `json:"outcome,omitempty"`

	// Passing is the statement's aligned instance in the passing run (head
	// with the proof's hunks reverted), nil when unknown: that run was not
	// traced, or the step lies where the runs cannot be aligned.
	Passing *Passing `json:"passing,omitempty"`
	// Diverges marks the step where the two runs first differ.
	Diverges bool `json:"diverges,omitempty"`
	// OnlyPassing marks a step that ran in the passing run only (File and
	// Line are then the passing run's, mapped to head where the code is
	// shared): what the change kept from running.
	OnlyPassing bool `json:"only_passing,omitempty"`
	// Count is how many instances a chain step folds (iterations, repeated
	// calls), 0 or 1 for one.
	Count int `json:"count,omitempty"`
}

// Passing is a step's aligned instance in the passing run.
type Passing struct {
	// Values are the values there, by the operand's source text.
	Values map[string]string `json:"values,omitempty"`
	// Outcome is the branch's outcome there ("true", "false", "case 2").
	Outcome string `json:"outcome,omitempty"`
	// Text is the passing run's source of the step when it differs.
	Text string `json:"text,omitempty"`
	// Missing means the passing run has no instance of the step.
	Missing bool `json:"missing,omitempty"`
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
	// Link says how an intervention judged a step of a flaky failure's
	// chain: "confirmed" (intervening on it alone stopped the failure) or
	// "correlated" (on the path, not shown causal); "" elsewhere.
	Link string `json:"link,omitempty"`
	// Effect is the failure rate without → with the step's intervention,
	// e.g. "0.30 → 0/26".
	Effect string `json:"effect,omitempty"`
	// Fact is the runtime fact an intervention step stands for, with its
	// Statements in this order: "interleave" (this goroutine's access,
	// another goroutine's access of the same location, this goroutine's
	// next access), "order" (one goroutine's first access, another's
	// last), "remote-def" (the write, then the read of what it wrote),
	// "overlap" (a goroutine's entry into a function while another
	// goroutine's call of it had not returned, then that call's entry),
	// "branch", "never", "value" or "panic"; "timing" (the call of the
	// function that holds the root hunks, its Target and only statement,
	// whose calls run one at a time stopped the failure although no fact
	// the traced runs recorded discriminated); "" elsewhere.
	Fact string `json:"fact,omitempty"`
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

// Hunks returns the hunks that hold a statement of the tree (a target or
// a step) for which keep is true (every statement when keep is nil); nil
// for a nil tree.
func (n *Node) Hunks(keep func(Statement) bool) map[HunkID]bool {
	if n == nil {
		return nil
	}
	on := map[HunkID]bool{}
	n.Walk(func(m *Node) {
		for _, s := range append([]Statement{m.Target}, m.Statements...) {
			if s.Hunk != 0 && (keep == nil || keep(s)) {
				on[s.Hunk] = true
			}
		}
	})
	return on
}

// PassingDiffers reports whether the passing run did something else at
// the step: it has no instance of it, ran other source there, or saw
// other values. False when the passing run is unknown.
func (s Statement) PassingDiffers() bool {
	p := s.Passing
	return p != nil && (p.Missing || p.Text != "" || !maps.Equal(p.Values, s.Values))
}

// Changed reports whether the step shows an effect of the change: code it
// deleted, a step only the passing run ran, the divergence of the runs,
// or a step the passing run ran differently.
func (s Statement) Changed() bool {
	return s.Deleted || s.OnlyPassing || s.Diverges || s.PassingDiffers()
}
