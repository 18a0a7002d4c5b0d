package semantic

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/culprit-dev/culprit/analyzer/trace"
)

// checkInvariant is the sanity check of SEMANTIC.md §2: the concrete run
// (every SSA variable at its observed value) satisfies the inputs and
// every clause of t's slice, and the clauses with the negated target are
// unsatisfiable.
func checkInvariant(t *testing.T, a *Analysis, tg Target) {
	t.Helper()
	ctx := context.Background()
	neg, deps, err := a.negate(tg)
	if err != nil {
		t.Fatalf("negating the target: %v", err)
	}
	labels, soft, err := a.slice(deps, tg.Event)
	if err != nil {
		t.Fatal(err)
	}
	run := append(a.hard(), soft...)
	for _, i := range labels {
		ev := a.tr.Event(i)
		for _, w := range ev.Writes {
			x := a.f.defVar(i, w.Slot)
			eq, err := a.c.Eq(x, a.c.Const(x.Sort(), code(w.Value)))
			if err != nil {
				t.Fatal(err)
			}
			run = append(run, eq)
		}
	}
	if sat, err := a.c.Check(ctx, run...); err != nil || !sat {
		t.Errorf("the concrete run does not satisfy the formula of %s (sat=%v, err=%v)", a.describe(tg.Event), sat, err)
	}
	if sat, err := a.c.Check(ctx, append(run, neg)...); err != nil || sat {
		t.Errorf("the formula of %s with the negated target is not UNSAT (sat=%v, err=%v)", a.describe(tg.Event), sat, err)
	}
	all := append(a.hard(), soft...)
	if sat, err := a.c.Check(ctx, append(all, neg)...); err != nil || sat {
		t.Errorf("clauses with the negated target: sat=%v, err=%v, want UNSAT", sat, err)
	}
}

// texts returns "file:line text" of each cause statement.
func texts(a *Analysis, c *Cause) []string {
	var out []string
	for _, i := range c.Events {
		st := a.statement(i, nil)
		out = append(out, fmt.Sprintf("%s:%d %s", st.File, st.Line, st.Text))
	}
	return out
}

func containsText(list []string, sub string) bool {
	return slices.ContainsFunc(list, func(s string) bool { return strings.Contains(s, sub) })
}

// checkAfter is the acceptance check on the AFTER running example.
func checkAfter(t *testing.T, tr *trace.Trace, dir string) {
	t.Helper()
	ctx := context.Background()
	a := New(tr, dir, Setup{})
	tg, err := a.Failure()
	if err != nil {
		t.Fatal(err)
	}
	checkInvariant(t, a, tg)
	calls := a.c.Calls()
	c, err := a.Cause(ctx, tg)
	if err != nil {
		t.Fatal(err)
	}
	got := texts(a, c)
	t.Logf("first cause (%d solver calls): %q", a.c.Calls()-calls, got)
	for _, want := range []string{"sum = y", "sum += z + 1", "return sum", "F(3, 1, 2)", "got != 5"} {
		if !containsText(got, want) {
			t.Errorf("first cause lacks %q", want)
		}
	}
	for _, l := range c.Lines() {
		if l.File == "calc/calc.go" && (l.Line == 3 || l.Line == 7 || l.Line == 8) {
			t.Errorf("first cause has calc.go:%d (sorted / x < y)", l.Line)
		}
	}
	if !c.Minimal {
		t.Error("first cause not minimal")
	}

	preds := a.CriticalPredicates(c)
	var predTexts []string
	for _, p := range preds {
		predTexts = append(predTexts, a.describe(p.Event)+" ="+p.Outcome)
	}
	t.Logf("critical predicates: %q", predTexts)
	for _, want := range []string{"x < y", "z > 0"} {
		if !containsText(predTexts, want) {
			t.Errorf("critical predicates lack %q", want)
		}
	}
	causes := []*Cause{c}
	var viaXY *Cause
	for _, p := range preds {
		checkInvariant(t, a, p)
		pc, err := a.Cause(ctx, p)
		if err != nil {
			t.Fatalf("cause of %s: %v", a.describe(p.Event), err)
		}
		t.Logf("cause of %s: %q", a.describe(p.Event), texts(a, pc))
		causes = append(causes, pc)
		if strings.Contains(a.describe(p.Event), "x < y") {
			viaXY = pc
		}
	}
	if viaXY == nil {
		t.Fatal("no cause through x < y")
	}
	if !slices.Contains(viaXY.Lines(), Loc{File: "calc/calc.go", Line: 8}) {
		t.Errorf("cause through x < y lacks calc/calc.go:8: %v", viaXY.Lines())
	}
	tree := a.Tree(causes, nil, nil)
	if tree == nil || len(tree.Children) != len(preds) {
		t.Errorf("tree: %+v, want %d children", tree, len(preds))
	}
	for _, ch := range tree.Children {
		if ch.Via == nil {
			t.Errorf("child %+v has no Via", ch.Target)
		}
	}
	st := a.Effort()
	t.Logf("effort: %+v", st)
	if st.SolverCalls == 0 || st.Clauses == 0 {
		t.Errorf("effort not counted: %+v", st)
	}
}

func TestAfterSynthetic(t *testing.T) {
	checkAfter(t, afterTrace(), afterHead(t))
}

func TestNoFailure(t *testing.T) {
	tr := afterTrace()
	tr.Events = tr.Events[:len(tr.Events)-1]
	a := New(tr, t.TempDir(), Setup{})
	if _, err := a.Failure(); err == nil {
		t.Fatal("no error for a trace without failure")
	}
}

// TestPointWise replaces an operation by an opaque one: the cause must
// still be found, through a point-wise clause, and counted.
func TestPointWise(t *testing.T) {
	tr := afterTrace()
	op := tr.Sites[13].Exprs[0]
	tr.Sites[13].Exprs[0] = &trace.Expr{Op: trace.ExprOpaque, Type: op.Type, Args: []*trace.Expr{op.X, op.Y}}
	a := New(tr, afterHead(t), Setup{})
	tg, err := a.Failure()
	if err != nil {
		t.Fatal(err)
	}
	checkInvariant(t, a, tg)
	c, err := a.Cause(context.Background(), tg)
	if err != nil {
		t.Fatal(err)
	}
	if got := texts(a, c); !containsText(got, "sum += z + 1") || !containsText(got, "sum = y") {
		t.Errorf("cause %q lacks the point-wise statement or its operands", got)
	}
	if a.Effort().PointWise == 0 {
		t.Error("point-wise encoding not counted")
	}
}

// TestTestifyEqual replaces the branch and t.Errorf by
// assert.Equal(t, 5, got): the target is the assertion's predicate.
func TestTestifyEqual(t *testing.T) {
	tr := afterTrace()
	tr.Sites[6].Callee = "github.com/stretchr/testify/assert.Equal"
	tr.Sites[6].Exprs = []*trace.Expr{rd(0, tPtr), kst(iv(5), tInt), rd(1, tInt)}
	tr.Events = append(tr.Events[:12], tr.Events[13])
	tr.Events[12].Index = 12
	a := New(tr, afterHead(t), Setup{})
	tg, err := a.Failure()
	if err != nil {
		t.Fatal(err)
	}
	if tg.pred != predAssert {
		t.Errorf("target kind %v, want the assertion's predicate", tg.pred)
	}
	checkInvariant(t, a, tg)
	c, err := a.Cause(context.Background(), tg)
	if err != nil {
		t.Fatal(err)
	}
	got := texts(a, c)
	for _, want := range []string{"sum = y", "sum += z + 1", "return sum", "t.Errorf"} {
		if !containsText(got, want) {
			t.Errorf("cause %q lacks %q", got, want)
		}
	}
	if a.Effort().PointWise != 0 {
		t.Errorf("point-wise encodings: %d, want 0", a.Effort().PointWise)
	}
}
