package instrument

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"github.com/culprit-dev/culprit/analyzer/trace"
)

// callExpr handles conversions, builtins and calls in expression context.
func (r *rewriter) callExpr(c *ast.CallExpr, st *trace.Site, out *trace.Expr) *trace.Expr {
	if tv := r.info.Types[c.Fun]; tv.IsType() {
		if len(c.Args) == 1 {
			out.Op, out.X = trace.ExprConv, r.expr(c.Args[0], st)
		}
		return out
	}
	if id, ok := unparen(c.Fun).(*ast.Ident); ok {
		if b, ok := r.info.Uses[id].(*types.Builtin); ok {
			return r.builtin(b, c, st, out)
		}
	}
	if sel, ok := unparen(c.Fun).(*ast.SelectorExpr); ok {
		if _, ok := r.info.Uses[sel.Sel].(*types.Builtin); ok {
			return out // unsafe.*: operands must stay as written
		}
	}
	return r.call(c, st, token.NoPos)
}

func (r *rewriter) builtin(b *types.Builtin, c *ast.CallExpr, st *trace.Site, out *trace.Expr) *trace.Expr {
	switch b.Name() {
	case "len", "cap":
		out.Op, out.X = trace.ExprLen, r.expr(c.Args[0], st)
		if b.Name() == "len" {
			out.Tok = token.IDENT
		}
		return out
	case "panic":
		out.Args = []*trace.Expr{r.expr(c.Args[0], st)}
		return out
	case "append":
		if r.appendSite(c) || r.appendSpread(c, st, out) {
			return out
		}
	case "copy":
		if r.copyMove(c, st, out) {
			return out
		}
	case "recover":
		// Still called directly by the deferred function: Rec only sees
		// the value, and tells the frame's exit that it returns normally.
		r.es.wrap(r.off(c.Pos()), r.off(c.End()), rtName+".Rec(", ")")
		return out
	}
	for _, a := range c.Args {
		if r.info.Types[a].IsType() {
			continue
		}
		out.Args = append(out.Args, r.expr(a, st))
	}
	return out
}

// appendSite instruments append(s, x, y, ...) as an assignment site of
// its own: once append returns, each appended element is recorded as
// written at its address, with its argument as its value, so that a later
// read of the element (through any slice sharing the array) finds its
// definition. When s has no side effects, it is passed again as it was
// before the call, and elements that append copies into a new array are
// recorded as moved there (rt.AP); a read of one of them is defined by the
// write of the element it was copied from.
func (r *rewriter) appendSite(c *ast.CallExpr) bool {
	if c.Ellipsis.IsValid() || len(c.Args) < 2 {
		return false
	}
	sl, ok := r.under(c).(*types.Slice)
	if !ok {
		return false
	}
	s := r.site(trace.SiteAssign, c)
	r.expr(c.Args[0], s)
	base := r.text(c.Args[0])
	n := len(c.Args) - 1
	for _, a := range c.Args[1:] {
		s.Exprs = append(s.Exprs, r.expr(a, s))
	}
	slot := len(s.Operands) // the first element written
	for k := range n {
		s.Operands = append(s.Operands, trace.Operand{Slot: slot + k, Write: true, Text: fmt.Sprintf("%s[len(%s)-%d]", base, base, n-k), Type: r.tab.typeOf(sl.Elem())})
	}
	old := "nil"
	if r.pure(c.Args[0]) {
		old = base
	}
	open := fmt.Sprintf("%s.AP(%s, %d, %d, %d, %s, ", rtName, r.fa(), s.ID, slot, n, old)
	r.es.wrap(r.off(c.Pos()), r.off(c.End()), open, ")")
	return true
}

// appendSpread instruments append(s, t...) of a slice t: the elements of
// t are moved to the end of the result, and s's own when the array grew.
// The moves go with the enclosing site's event; s and t must have no side
// effects, as they are passed again as they were before the call.
func (r *rewriter) appendSpread(c *ast.CallExpr, st *trace.Site, out *trace.Expr) bool {
	if !c.Ellipsis.IsValid() || len(c.Args) != 2 || !r.pure(c.Args[0]) || !r.pure(c.Args[1]) {
		return false
	}
	if _, ok := r.under(c.Args[1]).(*types.Slice); !ok {
		return false // append([]byte, string...)
	}
	if _, ok := r.under(c).(*types.Slice); !ok {
		return false
	}
	out.Args = []*trace.Expr{r.expr(c.Args[0], st), r.expr(c.Args[1], st)}
	open := fmt.Sprintf("%s.APS(%s, %s, %s, ", rtName, r.fa(), r.text(c.Args[0]), r.text(c.Args[1]))
	r.es.wrap(r.off(c.Pos()), r.off(c.End()), open, ")")
	return true
}

// copyMove instruments copy(dst, src) of two slices as a call of rt.CP,
// which records the elements copied as moved (the move goes with the
// enclosing site's event).
func (r *rewriter) copyMove(c *ast.CallExpr, st *trace.Site, out *trace.Expr) bool {
	if len(c.Args) != 2 {
		return false
	}
	for _, a := range c.Args {
		if _, ok := r.under(a).(*types.Slice); !ok {
			return false // copy([]byte, string)
		}
	}
	out.Args = []*trace.Expr{r.expr(c.Args[0], st), r.expr(c.Args[1], st)}
	r.es.replace(r.off(c.Fun.Pos()), r.off(c.Fun.End()), fmt.Sprintf("%s.CP", rtName))
	r.es.post(r.off(c.Lparen)+1, r.fa()+", ")
	return true
}

// call instruments a call: its arguments are reads of the call's own site;
// the event before the call (instrumented callee or failure point) or after
// it (uninstrumented callee) consumes them. A single result is pushed as a
// read of the enclosing site st. at is the statement position when the call
// is a statement on its own.
func (r *rewriter) call(c *ast.CallExpr, st *trace.Site, at token.Pos) *trace.Expr {
	kind, fn := r.callKind(c)
	cs := r.site(kind, c)
	if fn != nil {
		cs.Callee = fn.FullName()
	}
	elemFun := false
	switch f := unparen(c.Fun).(type) {
	case *ast.FuncLit:
		r.funcLit(f)
	case *ast.SelectorExpr:
		if _, isCall := unparen(f.X).(*ast.CallExpr); isCall {
			r.expr(f.X, cs)
		}
	case *ast.IndexExpr:
		elemFun = r.elemFun(f, st, cs, at)
	}
	rt := r.info.TypeOf(c)
	_, tuple := rt.(*types.Tuple)
	// A call the tracer does not enter with several results or none,
	// inside a statement (`_, err := buf.WriteString(s)`), has no event
	// of its own: the statement's event takes its reads, so they are the
	// statement's operands.
	args := cs
	if kind == trace.SiteCallExt && !at.IsValid() && (rt == nil || tuple) {
		args = st
		r.receiverRead(c.Fun, st)
	}
	for _, a := range c.Args {
		if x, ok := unparen(a).(*ast.UnaryExpr); ok && x.Op == token.AND && kind == trace.SiteCallExt && !isCompositeLit(x.X) {
			cs.Exprs = append(cs.Exprs, r.addrRead(x, args))
			continue
		}
		cs.Exprs = append(cs.Exprs, r.expr(a, args))
	}
	// The call's event keeps only the call's own reads when its evaluation
	// is marked (rt.M around the function value, which is evaluated before
	// the arguments): what the statement read before the call stays
	// pending for the statement's event.
	evBefore := kind == trace.SiteCall || kind == trace.SiteFail
	evAfter := kind == trace.SiteCallExt && rt != nil && !tuple && !at.IsValid()
	marked := (evBefore || evAfter) && r.markable(c.Fun) && !elemFun
	// The receiver of a method the tracer cannot enter (t.Minute(),
	// h.ServeHTTP(w, r)) is what the call depends on: read it for the
	// enclosing statement before the call's mark, or for the call itself
	// when the call is the statement (its event, after the call, takes
	// every read since the last event).
	switch {
	case marked && evAfter:
		r.receiverRead(c.Fun, st)
	case kind == trace.SiteCallExt && at.IsValid():
		r.receiverRead(c.Fun, cs)
	}
	// Where a value receiver is copied from (recv.go).
	recvMarked := marked && kind == trace.SiteCall && r.recvOperand(cs, c.Fun)
	if x, ok := r.ifaceReceiver(c.Fun); ok && marked && evBefore {
		// A call through an interface: the receiver's dynamic value
		// decides where it goes. The mark goes around the receiver, so
		// that its read, taken after the mark, is the call's own.
		r.es.wrap(r.off(x.Pos()), r.off(x.End()), fmt.Sprintf("%s.M(%s, ", rtName, r.fa()), ")")
		r.expr(x, cs)
	} else if x, ok := callReceiver(c.Fun); ok && marked {
		// The receiver is a call's result, read as the call's own: the
		// mark goes before the receiver is evaluated.
		r.es.wrap(r.off(x.Pos()), r.off(x.End()), fmt.Sprintf("%s.R(%s.N(%s), ", rtName, rtName, r.fa()), ")")
	} else if marked && !recvMarked {
		r.es.wrap(r.off(c.Fun.Pos()), r.off(c.Fun.End()), fmt.Sprintf("%s.M(%s, ", rtName, r.fa()), ")")
	}
	if evBefore {
		ev := trace.EvCall
		if kind == trace.SiteFail {
			ev = trace.EvFail
		}
		if !r.before(c, cs, ev, marked) {
			if at.IsValid() {
				r.es.pre(r.off(at), fmt.Sprintf("%s.E(%s, %d, %d); ", rtName, r.fa(), ev, cs.ID))
			} else {
				r.skip(c, "call event not recordable before the call")
			}
		}
	}
	out := &trace.Expr{Op: trace.ExprCall, Call: cs.ID, Slot: -1, Type: r.tab.typeOf(rt), Text: cs.Text}
	if rt == nil || tuple || at.IsValid() {
		if kind == trace.SiteCallExt && at.IsValid() {
			r.untracedStmt(c, cs, at)
		}
		return out
	}
	out.Slot = r.addOperand(st, c, rt, locInfo{}, false)
	open := fmt.Sprintf("%s.V(%s, %d, ", rtName, r.fa(), out.Slot)
	if kind != trace.SiteCall {
		x := "X"
		if marked {
			x = "XM"
		}
		open = fmt.Sprintf("%s.%s(%s, %d, %d, ", rtName, x, r.fa(), cs.ID, out.Slot)
	}
	r.es.wrap(r.off(c.Pos()), r.off(c.End()), open, ")")
	return out
}

// untracedStmt records the event of a call the tracer does not enter that
// is a statement on its own (at), once the call has returned.
func (r *rewriter) untracedStmt(c *ast.CallExpr, cs *trace.Site, at token.Pos) {
	r.es.post(r.off(c.End()), fmt.Sprintf("; %s.E(%s, %d, %d)", rtName, r.fa(), trace.EvCallExt, cs.ID))
	if r.watch {
		// Test code's call (of an assertion library, say) may fail the
		// test and panic: the frame's exit is then recorded at the call,
		// whose reads are the ones pending (rt/watch.go).
		r.mark(at, cs)
	}
}

// receiverRead reads the receiver of a method call fun for site st: the
// receiver itself when reading it copies nothing the call uses
// (copyableReceiver), else its address when the method has a pointer
// receiver and the receiver is a variable or field, whose address the
// call takes itself (`buf.WriteString(s)` of a bytes.Buffer buf). The
// address names the object the call reads and writes: the comparison
// follows a result of code it does not enter back to the earlier calls
// that were handed the same object.
func (r *rewriter) receiverRead(fun ast.Expr, st *trace.Site) {
	if x, ok := r.copyableReceiver(fun); ok {
		r.expr(x, st)
		return
	}
	x, ok := r.addressedReceiver(fun)
	if !ok {
		return
	}
	slot := r.addOperand(st, x, types.NewPointer(r.info.TypeOf(x)), locInfo{}, false)
	st.Operands[slot].Text = "&" + st.Operands[slot].Text
	r.es.wrap(r.off(x.Pos()), r.off(x.End()), fmt.Sprintf("%s.V(%s, %d, &", rtName, r.fa(), slot), ")")
}

// addrRead reads an address handed to code the tracer does not enter
// (`fmt.Fprint(&buf, s)`) for site st: its value names the object that
// code may write. Other addresses are not read: a local's address on the
// stack is reused by later frames, and read everywhere it would make
// unrelated statements of two runs look different.
func (r *rewriter) addrRead(e *ast.UnaryExpr, st *trace.Site) *trace.Expr {
	return &trace.Expr{Op: trace.ExprRead, Slot: r.valueRead(e, st), Type: r.tab.typeOf(r.info.TypeOf(e)), Text: r.text(e)}
}

// valueRead reads the value of expression e, which names no location
// (`<-ch`, `&buf`), as an operand of site st, and returns its slot.
func (r *rewriter) valueRead(e ast.Expr, st *trace.Site) int {
	slot := r.addOperand(st, e, r.info.TypeOf(e), locInfo{}, false)
	r.es.wrap(r.off(e.Pos()), r.off(e.End()), fmt.Sprintf("%s.V(%s, %d, ", rtName, r.fa(), slot), ")")
	return slot
}

func isCompositeLit(e ast.Expr) bool {
	_, ok := unparen(e).(*ast.CompositeLit)
	return ok
}

// addressedReceiver returns the receiver of a call of a method with a
// pointer receiver on an addressable variable or field (not through a
// pointer already, which copyableReceiver reads).
func (r *rewriter) addressedReceiver(fun ast.Expr) (ast.Expr, bool) {
	sel, ok := unparen(fun).(*ast.SelectorExpr)
	if !ok {
		return nil, false
	}
	s := r.info.Selections[sel]
	if s == nil || s.Kind() != types.MethodVal || s.Indirect() {
		return nil, false
	}
	if !r.varOrField(sel.X) {
		return nil, false
	}
	sig, ok := s.Obj().Type().(*types.Signature)
	if !ok || sig.Recv() == nil {
		return nil, false
	}
	if _, ptr := sig.Recv().Type().(*types.Pointer); !ptr {
		return nil, false
	}
	if _, ptr := r.info.TypeOf(sel.X).Underlying().(*types.Pointer); ptr {
		return nil, false
	}
	return sel.X, true
}

// varOrField reports whether x is a variable or a field selection.
func (r *rewriter) varOrField(x ast.Expr) bool {
	switch y := unparen(x).(type) {
	case *ast.Ident:
		_, isVar := r.info.Uses[y].(*types.Var)
		return isVar
	case *ast.SelectorExpr:
		f := r.info.Selections[y]
		return f != nil && f.Kind() == types.FieldVal
	}
	return false
}

// copyableReceiver returns the receiver of a method call fun when reading
// it (which copies it) leaves the call's meaning alone: a value receiver,
// or a receiver that is a pointer or interface already; a variable, a
// field or an element.
func (r *rewriter) copyableReceiver(fun ast.Expr) (ast.Expr, bool) {
	sel, ok := unparen(fun).(*ast.SelectorExpr)
	if !ok {
		return nil, false
	}
	s := r.info.Selections[sel]
	if s == nil || s.Kind() != types.MethodVal {
		return nil, false
	}
	switch x := unparen(sel.X).(type) {
	case *ast.Ident, *ast.SelectorExpr:
	case *ast.IndexExpr:
		// An element (`items[i].Point()`); not a generic function
		// instantiated in place.
		if tv, ok := r.info.Types[x]; !ok || !tv.IsValue() {
			return nil, false
		}
	default:
		return nil, false
	}
	xt := r.info.TypeOf(sel.X)
	if xt == nil {
		return nil, false
	}
	switch xt.Underlying().(type) {
	case *types.Pointer, *types.Interface:
		return sel.X, true
	}
	sig, ok := s.Obj().Type().(*types.Signature)
	if !ok || sig.Recv() == nil {
		return nil, false
	}
	if _, ptr := sig.Recv().Type().(*types.Pointer); ptr || s.Indirect() {
		return nil, false
	}
	return sel.X, true
}

// ifaceReceiver returns the receiver of a call of an interface method
// when it is a variable or field (reading it copies the interface value
// only).
func (r *rewriter) ifaceReceiver(fun ast.Expr) (ast.Expr, bool) {
	x, ok := r.copyableReceiver(fun)
	if !ok {
		return nil, false
	}
	if _, iface := r.info.TypeOf(x).Underlying().(*types.Interface); !iface {
		return nil, false
	}
	return x, true
}

// before emits event ev once the call's operands are evaluated: around the
// last argument when its type survives a generic identity, else around the
// function value. marked selects the emitters that pop the call's mark.
func (r *rewriter) before(c *ast.CallExpr, cs *trace.Site, ev trace.EventKind, marked bool) bool {
	m := ""
	if marked {
		m = "M"
	}
	if n := len(c.Args); n > 0 {
		// The event goes after the last argument, once every argument
		// was read. A constant or comparison there gets the parameter's
		// type as the type argument, so that it converts as before.
		a := c.Args[n-1]
		tv := r.info.Types[a]
		_, tuple := tv.Type.(*types.Tuple)
		if tv.Type != nil && !tuple && !tv.IsType() {
			targ, ok := "", true
			if r.untypedOrigin(a) {
				targ, ok = r.paramTypeArg(c, n-1)
			}
			if ok {
				r.es.wrap(r.off(a.Pos()), r.off(a.End()), fmt.Sprintf("%s.CL%s%s(%s, %d, %d, ", rtName, m, targ, r.fa(), ev, cs.ID), ")")
				return true
			}
		}
	}
	// A generic function whose type arguments were inferred is not a
	// value until it is instantiated: the wrapped function names them.
	inst := ""
	if r.genericFun(c.Fun) {
		var ok bool
		if inst, ok = r.instance(c.Fun); !ok {
			return false
		}
	}
	r.es.wrap(r.off(c.Fun.Pos()), r.off(c.Fun.End()), fmt.Sprintf("%s.CF%s(%s, %d, %d, ", rtName, m, r.fa(), ev, cs.ID), inst+")")
	return true
}

// instance is the explicit type argument list ("[int, T]") of a call of
// a generic function whose type arguments were inferred, false when one
// of them cannot be named where the call is.
func (r *rewriter) instance(fun ast.Expr) (string, bool) {
	in, ok := r.info.Instances[namedBy(fun)]
	if !ok || in.TypeArgs == nil {
		return "", false
	}
	names := make([]string, in.TypeArgs.Len())
	for i := range names {
		n, ok := r.typeArgAt(in.TypeArgs.At(i), fun.Pos())
		if !ok {
			return "", false
		}
		names[i] = n
	}
	return "[" + strings.Join(names, ", ") + "]", true
}

// elemFun records, for a call statement of a function value taken from a
// slice element (handlers[i](c)), the reads of the slice and the
// index as the call's first reads: the index may be out of range, and the
// panic then keeps them. The statement's site gets the same operands in
// the same slots, for the panic event, which names the statement. Nothing
// else is pending when a call statement begins, so the call needs no mark.
func (r *rewriter) elemFun(f *ast.IndexExpr, st, cs *trace.Site, at token.Pos) bool {
	if !at.IsValid() || cs.Kind != trace.SiteCall || len(st.Operands) > 0 || len(cs.Operands) > 0 || st.Kind != trace.SiteStmt {
		return false
	}
	if _, ok := r.under(f.X).(*types.Slice); !ok {
		return false
	}
	r.expr(f.X, cs)
	r.expr(f.Index, cs)
	st.Operands = append(st.Operands, cs.Operands...)
	return true
}

// paramTypeArg spells, as a type argument list, the type of the
// parameter that argument i of call c is passed to; false when the type
// cannot be written in this file.
func (r *rewriter) paramTypeArg(c *ast.CallExpr, i int) (string, bool) {
	sig, ok := r.info.TypeOf(c.Fun).Underlying().(*types.Signature)
	if !ok || sig.Params().Len() == 0 {
		return "", false
	}
	ps := sig.Params()
	var t types.Type
	switch {
	case sig.Variadic() && i >= ps.Len()-1 && !c.Ellipsis.IsValid():
		sl, ok := ps.At(ps.Len() - 1).Type().Underlying().(*types.Slice)
		if !ok {
			return "", false
		}
		t = sl.Elem()
	case i < ps.Len():
		t = ps.At(i).Type()
	default:
		return "", false
	}
	targ, ok := r.typeArg(t)
	if !ok {
		return "", false
	}
	return "[" + targ + "]", true
}

// markable reports whether the start of a call's evaluation can be
// marked: not a generic function with inferred type arguments (not a
// value as written). A method call on a call's result is marked before
// its receiver (callReceiver), not around its function value, whose
// receiver's read would come before the mark.
func (r *rewriter) markable(fun ast.Expr) bool {
	return !r.genericFun(fun)
}

// callReceiver returns the receiver of a method call fun when it is a
// call (`get().M(x)`).
func callReceiver(fun ast.Expr) (ast.Expr, bool) {
	sel, ok := unparen(fun).(*ast.SelectorExpr)
	if !ok {
		return nil, false
	}
	if _, isCall := unparen(sel.X).(*ast.CallExpr); !isCall {
		return nil, false
	}
	return sel.X, true
}

// genericFun reports whether fun names a generic function whose type
// arguments are inferred (it cannot be used as a value unchanged).
func (r *rewriter) genericFun(fun ast.Expr) bool {
	id := namedBy(fun)
	if id == nil {
		return false // explicit type arguments (f[T]) or no name at all
	}
	_, ok := r.info.Instances[id]
	return ok
}

// callAt instruments a call that is a statement by itself.
func (r *rewriter) callAt(c *ast.CallExpr, st *trace.Site, at token.Pos) {
	if tv := r.info.Types[c.Fun]; tv.IsType() {
		return
	}
	if id, ok := unparen(c.Fun).(*ast.Ident); ok {
		if b, ok := r.info.Uses[id].(*types.Builtin); ok {
			r.builtin(b, c, st, &trace.Expr{})
			return
		}
	}
	r.call(c, st, at)
}
