package analyzer

import (
	"context"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/culprit-dev/culprit/analyzer/contrast"
	"github.com/culprit-dev/culprit/analyzer/note"
	"github.com/culprit-dev/culprit/analyzer/result"
	"github.com/culprit-dev/culprit/analyzer/trace"
	"github.com/culprit-dev/culprit/analyzer/trace/instrument"
	"github.com/culprit-dev/culprit/diffhunks"
)

// maxTreeSteps bounds the statements of a tree made from the path of
// differences alone.
const maxTreeSteps = 40

// compare traces the proof variant, which passes, sets it beside the
// failing run and adds what the comparison shows to res: each tree step's
// passing instance, the divergence, the steps that ran in the passing run
// only, and the chain the explanation opens with (COMPARATIVE.md). When it
// cannot, res keeps the failing run's tree and a note says why.
func compare(ctx context.Context, req Request, b *budget, failing *afterLoop, res *Result) {
	start := time.Now()
	defer func() { res.Cost.Contrast = time.Since(start) }()
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < failing.took*3/2 {
		res.Notes.Add(result.Note{Code: note.ContrastBudget, Limit: limit(req)})
		return
	}
	skip := func(why string) { res.Notes.Add(result.Note{Code: note.ContrastSkipped, Detail: why}) }
	if failing.tr.Wrapped {
		// Execution indexing aligns two runs from their beginnings; a
		// trace that kept only its last events has none.
		skip("the failing run's trace kept only its last events, which cannot be aligned with the passing run from its start")
		return
	}
	dir, release, err := b.Runner.Checkout(ctx, res.Proof.Reverted)
	if err != nil {
		skip(err.Error())
		return
	}
	defer release()
	passing, why := tracePassing(ctx, failing, dir)
	if why != "" {
		skip(why)
		return
	}
	cmp, err := contrast.Compare(contrast.Runs{
		Failing: failing.tr, Passing: passing,
		FailingDir: failing.cfg.Dir, PassingDir: dir,
		Prefix:  failing.prefix,
		Hunks:   res.Hunks,
		Proof:   res.Proof.Reverted,
		Failure: failing.failure,
	})
	if err != nil {
		skip(err.Error())
		return
	}
	path, err := cmp.Path()
	if err != nil {
		skip(err.Error())
		return
	}
	if path.Cut {
		res.Notes.Add(result.Note{Code: note.ContrastCut, N: len(path.Steps)})
	}
	// Where the runs first differ outside the change is said only when the
	// tree does not reach the change either: beside a tree that does, an
	// earlier difference elsewhere (a cache filled in another order) only
	// misleads.
	outside := func() {
		if src := cmp.Sources(); len(src) > 0 && !pathTouches(cmp, path, res.Proof.Reverted) &&
			!treeTouches(res.Tree, res.Proof.Reverted) {
			st := cmp.Statement(src[0])
			res.Notes.Add(result.Note{Code: note.ContrastOutside, Detail: fmt.Sprintf("%s:%d", st.File, st.Line)})
		}
	}
	defer outside()
	res.Chain = cmp.Chain()
	if failing.causes != nil {
		// Causes whose statements make no tree (none of them ran in a
		// file the report can show) leave the tree to the path.
		if t := failing.tree(cmp); t != nil {
			res.Tree = t
			addPathSteps(res.Tree, cmp)
			return
		}
	}
	// The path may reach the change only through hunks the proof
	// reverts so that the root's revert compiles (state moved out of a
	// struct the root no longer fills, into code that uses it): their
	// steps ran otherwise without the change, which is an effect of the
	// change all the same. The test's own hunks explain nothing.
	changed := slices.DeleteFunc(slices.Clone(res.Proof.Reverted), func(id diffhunks.ID) bool { return slices.Contains(res.TestHunks, id) })
	if t := pathTree(cmp, path, changed); t != nil {
		res.Tree = t
		// The path's values are the traced failing run's: its message is
		// the one that printed them.
		res.tracedOutput = failing.tr.Result.Output
		res.Notes.Add(result.Note{Code: note.ContrastOnly})
		return
	}
	// Without a tree the chain has nothing to open; it stands alone only
	// when it reaches the change.
	if !touches(res.Chain, changed) {
		res.Chain = nil
	}
}

// addPathSteps adds to the tree's root the steps of the path of
// differences that the failing run's causes cannot name or did not keep:
// those that ran in the passing run only (the reset an early return
// skipped), those in the proof's hunks, and the divergence.
//
// Deleted code that the passing run executed is shown where it ran there,
// with its values, in place of where the failing run's analysis placed it.
func addPathSteps(tree *result.Node, cmp *contrast.Comparison) {
	if tree == nil {
		return
	}
	steps := cmp.Summary(maxTreeSteps)
	ran := map[diffhunks.ID]bool{}
	for _, st := range steps {
		if st.OnlyPassing && st.Hunk != 0 {
			ran[st.Hunk] = true
		}
	}
	tree.Walk(func(n *result.Node) {
		n.Statements = slices.DeleteFunc(n.Statements, func(s result.Statement) bool { return s.Deleted && ran[s.Hunk] })
	})
	seen := map[string]bool{}
	tree.Walk(func(n *result.Node) {
		for _, s := range append([]result.Statement{n.Target}, n.Statements...) {
			seen[fmt.Sprintf("%s:%d", s.File, s.Line)] = true
		}
	})
	for _, st := range steps {
		if !st.OnlyPassing && st.Hunk == 0 && !st.Diverges {
			continue
		}
		if k := fmt.Sprintf("%s:%d", st.File, st.Line); !seen[k] {
			seen[k] = true
			tree.Statements = append(tree.Statements, st)
		}
	}
}

// pathTree makes a one-node tree of the path of differences when it
// reaches one of the changed hunks: the failure as target, the path's
// steps as its statements. A failure in a changed line (a panic in code
// the change added) reaches the change itself, as it does for AFTER's
// causes (afterLoop.touched).
func pathTree(cmp *contrast.Comparison, path contrast.Path, changed []diffhunks.ID) *result.Node {
	if len(path.Steps) == 0 {
		return nil
	}
	steps := cmp.Summary(maxTreeSteps + 1)
	n := &result.Node{Target: steps[len(steps)-1], Outcome: "failed", Statements: steps[:len(steps)-1]}
	if !touches(steps, changed) {
		return nil
	}
	return n
}

// pathTouches reports whether a step of the path lies in one of the hunks.
func pathTouches(cmp *contrast.Comparison, path contrast.Path, hunks []diffhunks.ID) bool {
	for _, s := range path.Steps {
		if touches([]result.Statement{cmp.Statement(s)}, hunks) {
			return true
		}
	}
	return false
}

// treeTouches reports whether a step of the tree lies in one of the hunks.
func treeTouches(t *result.Node, hunks []diffhunks.ID) bool {
	on := t.Hunks(nil)
	return slices.ContainsFunc(hunks, func(id diffhunks.ID) bool { return on[id] })
}

// touches reports whether a statement lies in one of the hunks.
func touches(sts []result.Statement, hunks []diffhunks.ID) bool {
	for _, s := range sts {
		if s.Hunk != 0 && slices.Contains(hunks, s.Hunk) {
			return true
		}
	}
	return false
}

// traceFailing traces the failing run on head for a strategy that searched
// without it (ddmin, one-by-one), so that the hunks such a search proves
// are told apart (nearest, treeRoots) and explained against the passing
// run as AFTER's are: the same rules decide the roles, and the same
// comparison makes the tree, whichever search found the set. It shares
// the semantic budget as AFTER's trace does, and when it cannot trace, a
// note says why and the report has no tree. The dynamic strategy is AFTER
// without tracing, and stays so.
func traceFailing(ctx context.Context, req Request, mod module, b *budget, res *Result) *afterLoop {
	start := time.Now()
	b.enter(PhaseSemantic)
	defer b.enter(PhaseSearch)
	semCtx, cancel := context.WithTimeoutCause(ctx, req.SemanticBudget, errSemanticBudget)
	defer cancel()
	loop, err := startLoop(semCtx, req, mod, b.Runner, res)
	res.Cost.Semantic = time.Since(start)
	if err != nil {
		untraced(semCtx, req, res, err)
		return nil
	}
	if first, err := loop.an.Failure(); err != nil {
		res.Notes.Add(result.Note{Code: note.NoFailureInTrace, Detail: err.Error()})
	} else {
		loop.failure = first.Failure
	}
	loop.an.Release() // no causes are derived: the trace is what is used
	return loop
}

// tracePassing traces the passing run in the checkout dir as the failing
// run was traced, or says why it could not.
func tracePassing(ctx context.Context, failing *afterLoop, dir string) (*trace.Trace, string) {
	traceDir, err := os.MkdirTemp("", "culprit-trace-")
	if err != nil {
		return nil, err.Error()
	}
	defer os.RemoveAll(traceDir)
	cfg := failing.cfg
	cfg.Dir, cfg.TraceDir, cfg.KeepTail = dir, traceDir, false
	if failing.tr.Unentered > 0 {
		// The passing run's build instruments what the failing run's
		// did: two builds laid out alike hold the same addresses (a type
		// descriptor read as an integer, say), and the comparison sees
		// only what the change made differ. A probe of its own adds the
		// functions only the passing run enters: code that ran on one
		// side only is a difference the comparison must see.
		cfg.Probe, cfg.Functions = true, failing.tr.Functions()
	}
	passing, err := instrument.Run(ctx, cfg)
	switch {
	case err != nil:
		return nil, fmt.Sprintf("tracing the passing run: %v", err)
	case !passing.Result.Passed:
		return nil, "the passing run failed when traced"
	}
	return passing, otherWindow(cfg, failing.tr, passing)
}

// otherWindow says why two runs recorded from the same event of the test
// function's frame (instrument.Config.From) cannot be compared: unless the
// test took the same path to that event, their windows begin at other
// statements and do not correspond. "" when they can, or when the runs
// were recorded from their starts.
func otherWindow(cfg instrument.Config, failing, passing *trace.Trace) string {
	if cfg.From == 0 {
		return ""
	}
	f, fok := windowStart(failing)
	p, pok := windowStart(passing)
	if fok && pok && f.File == p.File && f.Line == p.Line && f.Col == p.Col {
		return ""
	}
	return fmt.Sprintf("the passing run, traced from the same step of the test function, starts at %s:%d, not at %s:%d", p.File, p.Line, f.File, f.Line)
}
