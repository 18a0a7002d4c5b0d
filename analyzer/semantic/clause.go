package semantic

import (
	"fmt"
	"slices"
	"strings"

	"github.com/culprit-dev/culprit/analyzer/smt"
	"github.com/culprit-dev/culprit/analyzer/trace"
)

// build encodes the soft clause of event i by its kind: the bindings it
// makes (an assignment, a parameter, a result), the condition it decided
// (a branch), or the results of an uninstrumented call; nil if it binds
// nothing.
func (f *formula) build(i int) *evClause {
	b := &builder{f: f, ev: i}
	var parts []smt.Term
	switch f.tr.Event(i).Kind {
	case trace.EvAssign:
		parts = b.assignParts()
	case trace.EvBranch:
		parts = b.branchParts()
	case trace.EvEntry:
		parts = b.entryParts()
	case trace.EvReturn:
		parts = b.returnParts()
	case trace.EvCallExt:
		parts = b.callExtParts()
	default:
		return nil
	}
	if len(parts) == 0 {
		return nil
	}
	return &evClause{term: f.c.And(parts...), deps: dedup(b.deps)}
}

// bind appends to parts the clause lhs = [[e]] at event src, point-wise
// when e cannot be modelled, and adds what it read to b's dependencies.
// An unmodelled expression whose value was not recorded adds nothing.
func (b *builder) bind(parts []smt.Term, src int, lhs smt.Term, e *trace.Expr, v trace.Value) []smt.Term {
	f := b.f
	eb := &builder{f: f, ev: src}
	rhs := eb.expr(e)
	var cl smt.Term
	if !eb.opaque {
		if rhs.Sort() != lhs.Sort() {
			if r, err := f.c.Convert(rhs, lhs.Sort()); err == nil {
				rhs = r
			}
		}
		eq, err := f.c.Eq(lhs, rhs)
		if err != nil {
			eb.opaque = true
		} else {
			cl = eq
		}
	}
	if eb.opaque {
		if v.Kind == trace.ValNone {
			// Not recorded (a constant result): nothing true to say.
			return parts
		}
		eb.deps = nil
		cl = eb.pointWise(lhs, v)
	}
	if pre := eb.unmodelled(e); len(pre) > 0 {
		cl = f.c.Implies(f.c.And(pre...), cl)
	}
	b.deps = append(b.deps, eb.deps...)
	return append(parts, cl)
}

// assignParts binds each variable an assignment wrote to its expression,
// when the site has one per write.
func (b *builder) assignParts() []smt.Term {
	f, i := b.f, b.ev
	ev, site := f.tr.Event(i), f.tr.SiteOf(i)
	var parts []smt.Term
	for k, w := range ev.Writes {
		var e *trace.Expr
		if len(site.Exprs) == len(ev.Writes) {
			e = site.Exprs[k]
		}
		parts = b.bind(parts, i, f.defVar(i, w.Slot), e, w.Value)
	}
	return parts
}

// branchParts encodes a branch: the key and value a range iteration wrote,
// point-wise, and the boolean condition's outcome.
func (b *builder) branchParts() []smt.Term {
	f, i := b.f, b.ev
	ev, site := f.tr.Event(i), f.tr.SiteOf(i)
	var parts []smt.Term
	// A range iteration writes its key and value from memory the
	// tracer does not model: point-wise over what it read.
	for _, w := range ev.Writes {
		parts = append(parts, b.pointWise(f.defVar(i, w.Slot), w.Value))
	}
	// A range site's Exprs describe the ranged value (read by its
	// header event), not a condition.
	if len(ev.Values) > 0 && ev.Values[0].Kind == trace.ValBool && len(site.Exprs) > 0 && site.Kind != trace.SiteRange {
		parts = b.bind(parts, i, f.c.Bool(ev.Values[0].Bool()), site.Exprs[0], ev.Values[0])
	}
	return parts
}

// entryParts binds each parameter of a frame's entry to the call's
// argument, evaluated at the call; a parameter without one is an input.
func (b *builder) entryParts() []smt.Term {
	f, i := b.f, b.ev
	ev := f.tr.Event(i)
	fr := f.tr.Frame(ev.Frame)
	call := -1
	if fr.Call >= 0 && fr.Call < len(f.tr.Events) && f.tr.Event(fr.Call).Kind == trace.EvCall {
		call = fr.Call
	}
	var args []*trace.Expr
	if call >= 0 {
		args = f.tr.SiteOf(call).Exprs
	}
	var parts []smt.Term
	for k, w := range ev.Writes {
		lhs := f.defVar(i, w.Slot)
		// Arguments bind positionally; a receiver or variadic
		// parameter shifts them, and the extra parameters are inputs.
		off := len(ev.Writes) - len(args)
		if call < 0 || k < off || off < 0 {
			o, _ := f.operand(i, w.Slot)
			x := f.input(fmt.Sprintf("p%d.%d", i, w.Slot), w.Value, o.Type)
			eq, err := f.c.Eq(lhs, x)
			if err != nil {
				panic(err) // same sort by construction
			}
			parts = append(parts, eq)
			continue
		}
		parts = b.bind(parts, call, lhs, args[k-off], w.Value)
	}
	return parts
}

// returnParts binds each result variable of a return to its expression.
func (b *builder) returnParts() []smt.Term {
	f, i := b.f, b.ev
	ev, site := f.tr.Event(i), f.tr.SiteOf(i)
	var parts []smt.Term
	n := f.results(i)
	for k := 0; k < n; k++ {
		var v trace.Value
		if k < len(ev.Values) {
			v = ev.Values[k]
		}
		var e *trace.Expr
		if len(site.Exprs) == n {
			e = site.Exprs[k]
		}
		parts = b.bind(parts, i, f.resultVar(i, k), e, v)
	}
	return parts
}

// callExtParts encodes the results of an uninstrumented call that some
// clause uses, point-wise over what the call read.
func (b *builder) callExtParts() []smt.Term {
	f, i := b.f, b.ev
	ev := f.tr.Event(i)
	if !f.exact {
		b.extra = f.receiverCall(b, i)
	}
	var parts []smt.Term
	for k, v := range ev.Values {
		r, ok := f.extRes[[2]int{i, k}]
		if !ok {
			continue
		}
		parts = append(parts, b.pointWise(r, v))
	}
	return parts
}

// unmodelled returns, when e calls an uninstrumented function, the premise
// that the reads of the event no part of e names have their observed
// values. Such a read is what the call depends on without being an
// argument: the receiver of a method the tracer cannot enter
// (`re.FindString(s)` depends on re), which the tracer reads for the
// statement. Without the premise the result would not depend on it.
func (b *builder) unmodelled(e *trace.Expr) []smt.Term {
	if e == nil || b.f.exact || !b.callsExt(e) {
		return nil
	}
	named := map[int]bool{}
	var walk func(e *trace.Expr)
	walk = func(e *trace.Expr) {
		if e == nil {
			return
		}
		switch e.Op {
		case trace.ExprRead, trace.ExprCall:
			named[e.Slot] = true
		}
		walk(e.X)
		walk(e.Y)
		for _, a := range e.Args {
			walk(a)
		}
	}
	walk(e)
	site := b.f.tr.SiteOf(b.ev)
	var pre []smt.Term
	for _, it := range b.f.tr.Event(b.ev).Reads {
		if named[it.Slot] {
			continue
		}
		o, ok := b.f.operand(b.ev, it.Slot)
		if !ok || o.Write {
			continue
		}
		if slices.ContainsFunc(site.Exprs, func(x *trace.Expr) bool { return x != nil && x.Op == trace.ExprCall && x.Slot == it.Slot }) {
			continue
		}
		x := b.read(it.Slot, o.Type)
		if eq, err := b.f.c.Eq(x, b.f.c.Const(x.Sort(), code(it.Value))); err == nil {
			pre = append(pre, eq)
		}
	}
	return pre
}

// callsExt reports whether e calls an uninstrumented function at event
// b.ev.
func (b *builder) callsExt(e *trace.Expr) bool {
	if e == nil {
		return false
	}
	if e.Op == trace.ExprCall {
		if ci := b.f.tr.LastCall(b.ev, e.Call); ci >= 0 && b.f.tr.Event(ci).Kind == trace.EvCallExt {
			return true
		}
	}
	if b.callsExt(e.X) || b.callsExt(e.Y) {
		return true
	}
	return slices.ContainsFunc(e.Args, b.callsExt)
}

// maxReceiverScan bounds how far back receiverCall looks in the frame.
const maxReceiverScan = 64

// receiverCall returns, for the uninstrumented method call event i whose
// receiver is itself a call (`lazy().MatchString(s)`), the premise that
// the receiver call returned what it did. The tracer records no read of
// such a receiver for the method's event; without the premise the
// method's result would not depend on the object it was called on. The
// receiver call starts where the method call starts and its text, with a
// selector, begins the method call's.
func (f *formula) receiverCall(b *builder, i int) []smt.Term {
	site := f.tr.SiteOf(i)
	evs := f.idx.before(f.tr.Event(i).Frame, i)
	for k, j := range evs {
		if k >= maxReceiverScan {
			break
		}
		ej := f.tr.Event(j)
		if ej.Kind != trace.EvCall && ej.Kind != trace.EvCallExt {
			continue
		}
		sj := f.tr.SiteOf(j)
		if sj.Pos.File != site.Pos.File || sj.Pos.Line != site.Pos.Line || sj.Pos.Col != site.Pos.Col || !strings.HasPrefix(site.Text, sj.Text+".") {
			continue
		}
		var x smt.Term
		var v trace.Value
		switch ej.Kind {
		case trace.EvCall:
			fr := f.tr.Callee(j)
			if fr == 0 {
				return nil
			}
			exit := f.tr.Frame(fr).Exit
			if exit < 0 || f.tr.Event(exit).Kind != trace.EvReturn || f.results(exit) < 1 || len(f.tr.Event(exit).Values) < 1 {
				return nil
			}
			x, v = f.resultVar(exit, 0), f.tr.Event(exit).Values[0]
			b.deps = append(b.deps, exit)
		case trace.EvCallExt:
			if len(ej.Values) < 1 {
				return nil
			}
			v = ej.Values[0]
			key := [2]int{j, 0}
			r, ok := f.extRes[key]
			if !ok {
				r = f.c.Var(fmt.Sprintf("x%d.%d", j, 0), smt.IntSort(64, false))
				f.extRes[key] = r
			}
			x = r
			b.deps = append(b.deps, j)
		}
		eq, err := f.c.Eq(x, f.c.Const(x.Sort(), code(v)))
		if err != nil {
			return nil
		}
		return []smt.Term{eq}
	}
	return nil
}
