package semantic

import (
	"fmt"
	"go/token"
	"slices"
	"strings"

	"github.com/culprit-dev/culprit/analyzer/smt"
	"github.com/culprit-dev/culprit/analyzer/trace"
)

// formula encodes the trace formula (SEMANTIC.md §2) one event at a time,
// on demand: an event's soft clause is built the first time the slice
// reaches it, and records the events it depends on, so the slice grows
// backwards from a target as OFC grows its formula.
type formula struct {
	tr  *trace.Trace
	c   *smt.Context
	idx *index

	clause map[int]*evClause // by labelling event; nil entry: no clause
	// inputs are the hard clauses v = observed, by variable name.
	inputs     map[string]smt.Term
	inputOrder []string
	// callExt result variables, by event and result index.
	extRes map[[2]int]smt.Term
	// opaque counts point-wise encodings.
	pointWise int
	// exact leaves out the premises that make an uninstrumented call
	// depend on reads no expression models (unmodelled, receiverCall).
	exact bool
}

// evClause is the soft clause of one event.
type evClause struct {
	term smt.Term
	deps []int // events whose clauses this one reads
}

func newFormula(tr *trace.Trace, c *smt.Context, idx *index) *formula {
	return &formula{
		tr: tr, c: c, idx: idx,
		clause: map[int]*evClause{},
		inputs: map[string]smt.Term{},
		extRes: map[[2]int]smt.Term{},
	}
}

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

// sortOf maps a Go type to a solver sort. Types without a precise model
// (strings, floats, pointers, …) are 64-bit codes of their recorded
// values: equality of codes is their equality; anything else about them is
// point-wise.
func sortOf(t trace.Type) (s smt.Sort, precise bool) {
	switch t.Kind {
	case trace.TypeBool:
		return smt.BoolSort, true
	case trace.TypeInt, trace.TypeUint:
		bits := t.Bits
		if bits == 0 {
			bits = 64
		}
		return smt.IntSort(bits, t.Kind == trace.TypeInt), true
	}
	return smt.IntSort(64, false), false
}

// code returns the bits a recorded value is encoded by.
func code(v trace.Value) uint64 {
	switch v.Kind {
	case trace.ValBool, trace.ValInt, trace.ValUint, trace.ValFloat:
		return v.Bits
	case trace.ValString:
		return v.Hash ^ uint64(v.Len)*0x9e3779b97f4a7c15
	case trace.ValPointer, trace.ValSlice, trace.ValIface:
		if v.Nil {
			return 0
		}
		return v.Bits ^ v.Hash*0x9e3779b97f4a7c15 ^ uint64(v.Len)<<1
	}
	return v.Hash
}

func (f *formula) constOf(v trace.Value, t trace.Type) smt.Term {
	s, _ := sortOf(t)
	if t.Kind == trace.TypeOther || t.Kind == 0 && v.Kind != trace.ValNone {
		switch v.Kind {
		case trace.ValBool:
			s = smt.BoolSort
		case trace.ValInt:
			s = smt.IntSort(64, true)
		}
	}
	return f.c.Const(s, code(v))
}

func (f *formula) operand(ev, slot int) (trace.Operand, bool) {
	for _, o := range f.tr.SiteOf(ev).Operands {
		if o.Slot == slot {
			return o, true
		}
	}
	return trace.Operand{}, false
}

// defVar is the SSA variable of the value event d wrote in slot.
func (f *formula) defVar(d, slot int) smt.Term {
	o, _ := f.operand(d, slot)
	s, _ := sortOf(o.Type)
	return f.c.Var(fmt.Sprintf("v%d.%d", d, slot), s)
}

// input returns the variable name with the hard clause name = v.
func (f *formula) input(name string, v trace.Value, t trace.Type) smt.Term {
	s, _ := sortOf(t)
	x := f.c.Var(name, s)
	if _, ok := f.inputs[name]; !ok {
		eq, err := f.c.Eq(x, f.c.Const(s, code(v)))
		if err != nil {
			// Both sides were made with sort s.
			panic(err)
		}
		f.inputs[name] = eq
		f.inputOrder = append(f.inputOrder, name)
	}
	return x
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

// eventClause returns the soft clause of event i, building it on first
// use; nil if the event constrains nothing (calls, failures, branches
// without a boolean condition).
func (f *formula) eventClause(i int) (ec *evClause, err error) {
	if ec, ok := f.clause[i]; ok {
		return ec, nil
	}
	err = f.c.Do(func() { ec = f.build(i) })
	if err != nil {
		return nil, fmt.Errorf("encoding event %d: %w", i, err)
	}
	f.clause[i] = ec
	return ec, nil
}

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

// resultVar is the variable of result k bound by the return event ret;
// its sort follows the returned expression's type, so that the binding
// and every use of the call's result agree.
func (f *formula) resultVar(ret, k int) smt.Term {
	ev := f.tr.Event(ret)
	site := f.tr.SiteOf(ret)
	var t trace.Type
	if n := f.results(ret); len(site.Exprs) == n && site.Exprs[k] != nil {
		t = site.Exprs[k].Type
	} else if k < len(ev.Values) {
		t = typeOfValue(ev.Values[k])
	}
	s, _ := sortOf(t)
	return f.c.Var(fmt.Sprintf("r%d.%d", ev.Frame, k), s)
}

// results returns the number of results the return event ret binds: its
// recorded values, or one per result expression when trailing constant
// results were not recorded (not for `return f()` forwarding a tuple).
func (f *formula) results(ret int) int {
	ev := f.tr.Event(ret)
	site := f.tr.SiteOf(ret)
	n := len(ev.Values)
	if len(site.Exprs) > n && !(len(site.Exprs) == 1 && site.Exprs[0] != nil && site.Exprs[0].Op == trace.ExprCall && site.Exprs[0].Slot < 0) {
		n = len(site.Exprs)
	}
	return n
}

func typeOfValue(v trace.Value) trace.Type {
	switch v.Kind {
	case trace.ValBool:
		return trace.Type{Kind: trace.TypeBool}
	case trace.ValInt:
		return trace.Type{Kind: trace.TypeInt, Bits: 64}
	case trace.ValUint:
		return trace.Type{Kind: trace.TypeUint, Bits: 64}
	}
	return trace.Type{Kind: trace.TypeOther}
}

func dedup(xs []int) []int {
	seen := map[int]bool{}
	var out []int
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
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
