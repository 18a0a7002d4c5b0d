package semantic

import (
	"fmt"
	"go/token"

	"github.com/culprit-dev/culprit/analyzer/smt"
	"github.com/culprit-dev/culprit/analyzer/trace"
)

// builder accumulates one clause: its side conditions and dependencies.
type builder struct {
	f    *formula
	ev   int
	deps []int
	side []smt.Term
	// opaque is set when an expression cannot be modelled precisely; the
	// caller then encodes the whole expression point-wise.
	opaque bool
	// extra are premises a point-wise encoding adds to the event's reads.
	extra []smt.Term
}

// read returns the term for the value event b.ev read in slot: the SSA
// variable of its definition, or an input.
func (b *builder) read(slot int, t trace.Type) smt.Term {
	f := b.f
	it, ok := f.tr.Event(b.ev).Read(slot)
	if o, ok := f.operand(b.ev, slot); ok && o.Type.Kind != 0 {
		t = o.Type
	}
	if !ok {
		// Not recorded with this event: a read the statement made
		// before a call it contains was recorded with the call's event.
		// A plain local's value is its last definition all the same.
		if d, slotD, ok := f.localDef(b.ev, slot); ok {
			b.deps = append(b.deps, d)
			x := f.defVar(d, slotD)
			s, _ := sortOf(t)
			if x.Sort() != s {
				if y, err := f.c.Convert(x, s); err == nil {
					return y
				}
			}
			return x
		}
		// A call or failure event emitted before its arguments were
		// evaluated (its last argument is a tuple, or a constant whose
		// parameter type the rewriter cannot spell) recorded none of
		// them: their reads went to a later event. The argument is not
		// known here, so it is encoded point-wise (the observed value),
		// never left free: a free argument lets the solver change what
		// the callee computes.
		if k := f.tr.Event(b.ev).Kind; k == trace.EvCall || k == trace.EvFail {
			b.opaque = true
		}
		// Not evaluated (short-circuit): unconstrained, since the run's
		// outcome did not depend on it.
		s, _ := sortOf(t)
		return f.c.Var(fmt.Sprintf("u%d.%d", b.ev, slot), s)
	}
	if d, w := f.tr.DefWrite(b.ev, slot); d >= 0 {
		b.deps = append(b.deps, d)
		x := f.defVar(d, w.Slot)
		s, _ := sortOf(t)
		if x.Sort() != s {
			if y, err := f.c.Convert(x, s); err == nil {
				return y
			}
		}
		return x
	}
	return f.input(fmt.Sprintf("in%d.%d", b.ev, slot), it.Value, t)
}

// localDef returns the last definition before event i (event and written
// slot) of the operand slot of i, when that operand is a never
// address-taken local variable of a type no partial write can change
// (written only as a whole, and only by traced statements of its frame).
func (f *formula) localDef(i, slot int) (int, int, bool) {
	o, ok := f.operand(i, slot)
	if !ok || o.Write || o.Obj == 0 || o.Global || o.Path != "" {
		return 0, 0, false
	}
	switch o.Type.Kind {
	case trace.TypeBool, trace.TypeInt, trace.TypeUint, trace.TypeFloat, trace.TypeString,
		trace.TypePointer, trace.TypeSlice, trace.TypeMap, trace.TypeChan, trace.TypeFunc, trace.TypeInterface:
	default:
		return 0, 0, false
	}
	fr := f.tr.Event(i).Frame
	if fr == 0 {
		return 0, 0, false
	}
	loc := trace.Loc{Kind: trace.LocLocal, Frame: fr, Obj: o.Obj}
	d := f.tr.LastDef(loc, i)
	if d < 0 {
		return 0, 0, false
	}
	for _, w := range f.tr.Event(d).Writes {
		if w.Loc == loc {
			return d, w.Slot, true
		}
	}
	return 0, 0, false
}

// observed returns the premise "every read of the event has its observed
// value", the left side of a point-wise encoding.
func (b *builder) observed() []smt.Term {
	var pre []smt.Term
	site := b.f.tr.SiteOf(b.ev)
	for _, it := range b.f.tr.Event(b.ev).Reads {
		var t trace.Type
		for _, o := range site.Operands {
			if o.Slot == it.Slot {
				t = o.Type
			}
		}
		x := b.read(it.Slot, t)
		eq, err := b.f.c.Eq(x, b.f.c.Const(x.Sort(), code(it.Value)))
		if err == nil {
			pre = append(pre, eq)
		}
	}
	return append(pre, b.extra...)
}

// pointWise returns (reads = observed) → (result = observed).
func (b *builder) pointWise(result smt.Term, v trace.Value) smt.Term {
	b.f.pointWise++
	post, err := b.f.c.Eq(result, b.f.c.Const(result.Sort(), code(v)))
	if err != nil {
		panic(err) // same sort by construction
	}
	return b.f.c.Implies(b.f.c.And(b.observed()...), post)
}

// expr returns [[e]] evaluated at event b.ev, or sets b.opaque.
func (b *builder) expr(e *trace.Expr) smt.Term {
	c := b.f.c
	if e == nil {
		b.opaque = true
		return c.Bool(false)
	}
	switch e.Op {
	case trace.ExprConst:
		return b.f.constOf(e.Const, e.Type)
	case trace.ExprRead:
		return b.read(e.Slot, e.Type)
	case trace.ExprCall:
		return b.call(e, 0)
	case trace.ExprOpaque:
		// One result of a call with several, as the tracer shapes the
		// targets of `x, y := f()`.
		if len(e.Args) == 1 && e.Args[0] != nil && e.Args[0].Op == trace.ExprCall && e.Args[0].Call == e.Call && e.Slot >= 0 {
			return b.call(e.Args[0], e.Slot)
		}
	case trace.ExprUnary:
		x := b.expr(e.X)
		if _, precise := sortOf(e.X.Type); !precise && e.X.Type.Kind != 0 {
			b.opaque = true
			return x
		}
		r, err := c.Unary(e.Tok, x)
		if err != nil {
			b.opaque = true
			return x
		}
		return r
	case trace.ExprBinary:
		return b.binary(e)
	case trace.ExprConv:
		x := b.expr(e.X)
		s, precise := sortOf(e.Type)
		_, xPrecise := sortOf(e.X.Type)
		if !precise || !xPrecise {
			b.opaque = true
			return x
		}
		r, err := c.Convert(x, s)
		if err != nil {
			b.opaque = true
			return x
		}
		return r
	}
	b.opaque = true
	return c.Bool(false)
}

func (b *builder) binary(e *trace.Expr) smt.Term {
	c := b.f.c
	x, y := b.expr(e.X), b.expr(e.Y)
	if b.opaque {
		return x
	}
	_, px := sortOf(e.X.Type)
	_, py := sortOf(e.Y.Type)
	if !px || !py {
		// Codes are equal exactly when the values are, except for floats
		// (NaN, ±0) and values recorded without a hash.
		if (e.Tok == token.EQL || e.Tok == token.NEQ) && e.X.Type.Kind != trace.TypeFloat && e.Y.Type.Kind != trace.TypeFloat &&
			e.X.Type.Kind != trace.TypeOther && e.X.Type.Kind != trace.TypeStruct && e.X.Type.Kind != trace.TypeArray {
			eq, err := c.Eq(x, y)
			if err == nil {
				if e.Tok == token.NEQ {
					return c.Not(eq)
				}
				return eq
			}
		}
		b.opaque = true
		return x
	}
	// An untyped constant may have been recorded with a default type.
	if e.Tok != token.SHL && e.Tok != token.SHR && x.Sort() != y.Sort() {
		switch {
		case e.Y.Op == trace.ExprConst:
			y = c.Const(x.Sort(), code(e.Y.Const))
		case e.X.Op == trace.ExprConst:
			x = c.Const(y.Sort(), code(e.X.Const))
		}
	}
	r, err := c.Binary(e.Tok, x, y)
	if err != nil {
		b.opaque = true
		return x
	}
	return r
}

// call returns the result of the call at site e.Call made by the current
// statement: the callee's return binding, or the result variable of an
// uninstrumented call.
func (b *builder) call(e *trace.Expr, res int) smt.Term {
	f := b.f
	s, _ := sortOf(e.Type)
	ci := f.tr.LastCall(b.ev, e.Call)
	if ci < 0 {
		for _, c := range f.idx.argCalls(b.ev) {
			if f.tr.Event(c).Site == e.Call {
				ci = c
				break
			}
		}
	}
	if ci < 0 {
		b.opaque = true
		return f.c.Var(fmt.Sprintf("nocall%d", b.ev), s)
	}
	ce := f.tr.Event(ci)
	switch ce.Kind {
	case trace.EvCall:
		fr := f.tr.Callee(ci)
		if fr == 0 {
			b.opaque = true
			return f.c.Var(fmt.Sprintf("nocall%d", b.ev), s)
		}
		exit := f.tr.Frame(fr).Exit
		if exit < 0 || f.tr.Event(exit).Kind != trace.EvReturn {
			b.opaque = true
			return f.c.Var(fmt.Sprintf("nocall%d", b.ev), s)
		}
		if res >= f.results(exit) {
			b.opaque = true
			return f.c.Var(fmt.Sprintf("nocall%d", b.ev), s)
		}
		b.deps = append(b.deps, exit)
		return f.resultVar(exit, res)
	case trace.EvCallExt:
		if res >= len(ce.Values) {
			b.opaque = true
			return f.c.Var(fmt.Sprintf("nocall%d", b.ev), s)
		}
		b.deps = append(b.deps, ci)
		key := [2]int{ci, res}
		if r, ok := f.extRes[key]; ok {
			return r
		}
		r := f.c.Var(fmt.Sprintf("x%d.%d", ci, res), s)
		f.extRes[key] = r
		return r
	}
	b.opaque = true
	return f.c.Var(fmt.Sprintf("nocall%d", b.ev), s)
}
