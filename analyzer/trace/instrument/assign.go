package instrument

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"github.com/culprit-dev/culprit/analyzer/trace"
)

// writeStmt registers e as a written operand of st and returns the
// statement recording its current value ("" if it cannot be re-read).
func (r *rewriter) writeStmt(st *trace.Site, e ast.Expr) string {
	t := r.info.TypeOf(e)
	li := r.loc(e)
	if li.kind == trace.LocNone && !r.pure(e) {
		r.skip(e, "written location with side effects")
		return ""
	}
	slot := r.addOperand(st, e, t, li, true)
	return r.writeCall(slot, r.text(e), t, li)
}

// hoist is a written location evaluated once before its statement.
type hoist struct {
	text string  // "(*_ctpN)", what the statement uses instead
	li   locInfo // the location, identified by its address
}

// hoistLoc evaluates the location x once before the statement at pos: a
// pointer to it, or for a map entry the map and the key. The caller
// replaces x's text by h.text after registering its own pre-statements
// (edits at one offset apply in the order they were registered).
func (r *rewriter) hoistLoc(pos token.Pos, x ast.Expr) (hoist, bool) {
	if ix, ok := unparen(x).(*ast.IndexExpr); ok {
		if mt, isMap := r.under(ix.X).(*types.Map); isMap {
			r.ntmp++
			m, k := fmt.Sprintf("_ctm%d", r.ntmp), fmt.Sprintf("_ctk%d", r.ntmp)
			r.es.pre(r.off(pos), fmt.Sprintf("%s, %s := %s, %s; ", m, k, r.text(ix.X), r.text(ix.Index)))
			return hoist{text: m + "[" + k + "]", li: locInfo{kind: trace.LocMap, m: m, k: r.mapKey(mt, k)}}, true
		}
	}
	if !r.addressable(x) {
		return hoist{}, false
	}
	r.ntmp++
	p := fmt.Sprintf("_ctp%d", r.ntmp)
	r.es.pre(r.off(pos), fmt.Sprintf("%s := &%s; ", p, r.text(x)))
	return hoist{text: "(*" + p + ")", li: locInfo{kind: trace.LocAddr, addr: p}}, true
}

func assignKind(tok token.Token) trace.SiteKind {
	switch tok {
	case token.DEFINE:
		return trace.SiteDefine
	case token.ASSIGN:
		return trace.SiteAssign
	case token.INC, token.DEC:
		return trace.SiteIncDec
	}
	return trace.SiteOpAssign
}

// opOf maps an op-assign or inc/dec token to its binary operator.
func opOf(tok token.Token) token.Token {
	switch tok {
	case token.INC:
		return token.ADD
	case token.DEC:
		return token.SUB
	}
	s := tok.String()
	for t := token.ADD; t <= token.AND_NOT; t++ {
		if t.String()+"=" == s {
			return t
		}
	}
	return token.ILLEGAL
}

// assign instruments an assignment, define, inc/dec or op-assign in a
// statement list: reads wrap in place, writes are re-read right after.
func (r *rewriter) assign(s ast.Stmt, at token.Pos) {
	var lhs, rhs []ast.Expr
	var tok token.Token
	switch s := s.(type) {
	case *ast.AssignStmt:
		lhs, rhs, tok = s.Lhs, s.Rhs, s.Tok
	case *ast.IncDecStmt:
		lhs, tok = []ast.Expr{s.X}, s.Tok
	}
	// A written location with side effects (a call in an index or a
	// receiver) is evaluated once, before the statement, into a pointer
	// that the statement and the recorders share.
	hoisted := map[ast.Expr]hoist{}
	if tok != token.DEFINE {
		for _, x := range lhs {
			if isBlank(x) || r.pure(x) {
				continue
			}
			h, ok := r.hoistLoc(s.Pos(), x)
			if !ok {
				r.skip(s, "written location with side effects that is not addressable")
				return
			}
			hoisted[x] = h
		}
	}
	defer func() {
		for x, h := range hoisted {
			r.es.replace(r.off(x.Pos()), r.off(x.End()), h.text)
		}
	}()
	st := r.site(assignKind(tok), s)
	r.mark(at, st)
	if tok != token.ASSIGN && tok != token.DEFINE {
		st.Op = tok
		// The target is read first; re-evaluating it before the statement is
		// safe because it has no side effects (or was hoisted).
		x := lhs[0]
		xt, li := r.text(x), r.loc(x)
		if h, ok := hoisted[x]; ok {
			xt, li = h.text, h.li
		}
		slot := r.addOperand(st, x, r.info.TypeOf(x), li, false)
		if _, ok := hoisted[x]; !ok && r.elided(x, st, li) {
			st.Operands[slot].Elided = true
		} else {
			open, close := r.readWrap(slot, r.info.TypeOf(x), li)
			r.es.pre(r.off(s.Pos()), open+xt+close+"; ")
		}
		read := &trace.Expr{Op: trace.ExprRead, Slot: slot, Type: r.tab.typeOf(r.info.TypeOf(x)), Text: r.text(x)}
		var y *trace.Expr
		if rhs != nil {
			y = r.expr(rhs[0], st)
		} else {
			y = &trace.Expr{Op: trace.ExprConst, Const: trace.Value{Kind: constKind(read.Type), Bits: 1}, Type: read.Type, Text: "1"}
		}
		st.Exprs = []*trace.Expr{{Op: trace.ExprBinary, Tok: opOf(tok), X: read, Y: y, Type: read.Type, Text: st.Text}}
	} else {
		for _, e := range rhs {
			st.Exprs = append(st.Exprs, r.expr(e, st))
		}
		if len(rhs) == 1 && len(lhs) > 1 {
			call := st.Exprs[0]
			st.Exprs = nil
			for k := range lhs {
				st.Exprs = append(st.Exprs, &trace.Expr{Op: trace.ExprOpaque, Args: []*trace.Expr{call}, Slot: k, Call: call.Call, Text: call.Text})
			}
		}
	}
	var b strings.Builder
	for _, e := range lhs {
		if isBlank(e) {
			continue
		}
		if h, ok := hoisted[e]; ok {
			t := r.info.TypeOf(e)
			b.WriteString("; " + r.writeCall(r.addOperand(st, e, t, h.li, true), h.text, t, h.li))
			continue
		}
		if w := r.writeStmt(st, e); w != "" {
			b.WriteString("; " + w)
		}
	}
	if len(lhs) == 1 && len(rhs) == 1 && len(st.Exprs) == 1 {
		b.WriteString(r.literalFields(st, lhs[0], rhs[0], st.Exprs[0]))
	}
	fmt.Fprintf(&b, "; %s.E(%s, %d, %d)", rtName, r.fa(), trace.EvAssign, st.ID)
	r.es.post(r.off(s.End()), b.String())
}

// literalFields records, for x = T{...} of a variable x (or a field path
// of one), each initialised field as written too, x.f with the element as
// its value, so that a later read of x.f finds its definition. It returns
// the recording statements; lit is the literal's expression shape.
func (r *rewriter) literalFields(st *trace.Site, x, rhs ast.Expr, lit *trace.Expr) string {
	cl, ok := unparen(rhs).(*ast.CompositeLit)
	if !ok || isBlank(x) {
		return ""
	}
	li := r.loc(x)
	if li.kind != trace.LocLocal {
		return ""
	}
	inits, ok := r.fieldInits(cl)
	if !ok || len(inits) != len(lit.Args) {
		return ""
	}
	var b strings.Builder
	for k, in := range inits {
		if in.field.Name() == "_" {
			continue
		}
		fl := li
		fl.path += "." + in.field.Name()
		text := r.text(x) + "." + in.field.Name()
		t := in.field.Type()
		slot := len(st.Operands)
		st.Operands = append(st.Operands, trace.Operand{Slot: slot, Write: true, Text: text, Type: r.tab.typeOf(t), Obj: fl.obj, Path: fl.path, Global: fl.global})
		st.Exprs = append(st.Exprs, lit.Args[k])
		b.WriteString("; " + r.writeCall(slot, text, t, fl))
	}
	return b.String()
}

func constKind(t trace.Type) trace.ValueKind {
	switch t.Kind {
	case trace.TypeUint:
		return trace.ValUint
	case trace.TypeFloat:
		return trace.ValFloat
	}
	return trace.ValInt
}

// varDecl instruments `var x T` and `var x, y = e1, e2` inside a function.
func (r *rewriter) varDecl(gd *ast.GenDecl, at token.Pos) {
	st := r.site(trace.SiteDefine, gd)
	r.mark(at, st)
	var b strings.Builder
	for _, sp := range gd.Specs {
		vs := sp.(*ast.ValueSpec)
		for _, v := range vs.Values {
			st.Exprs = append(st.Exprs, r.expr(v, st))
		}
		for _, n := range vs.Names {
			if n.Name == "_" {
				continue
			}
			if w := r.writeStmt(st, n); w != "" {
				b.WriteString("; " + w)
			}
		}
	}
	fmt.Fprintf(&b, "; %s.E(%s, %d, %d)", rtName, r.fa(), trace.EvAssign, st.ID)
	r.es.post(r.off(gd.End()), b.String())
}

// header instruments a for-loop init or post statement, where no statement
// can be inserted: a single-variable write becomes x = _ct.W1(f, s, 0, e).
func (r *rewriter) header(s ast.Stmt) {
	var x ast.Expr
	var tok token.Token
	var rhs ast.Expr
	switch s := s.(type) {
	case *ast.AssignStmt:
		if len(s.Lhs) != len(s.Rhs) {
			r.headerTuple(s)
			return
		}
		if len(s.Lhs) > 1 {
			r.headerParallel(s)
			return
		}
		x, tok, rhs = s.Lhs[0], s.Tok, s.Rhs[0]
	case *ast.IncDecStmt:
		x, tok = s.X, s.Tok
	default:
		r.skip(s, "statement in a statement header")
		return
	}
	id, ok := x.(*ast.Ident)
	v := r.varOf(id)
	if !ok || v == nil || id.Name == "_" {
		r.skip(s, "header assignment to a non-variable")
		return
	}
	st := r.site(assignKind(tok), s)
	li := r.loc(id)
	if li.kind != trace.LocLocal {
		li = locInfo{}
	}
	slotW := r.addOperand(st, id, v.Type(), li, true)
	w1 := fmt.Sprintf("%s.W1(%s, %d, %d, ", rtName, r.fa(), st.ID, slotW)
	switch tok {
	case token.DEFINE, token.ASSIGN:
		if !r.wrappableAs(rhs, v.Type(), tok == token.DEFINE) {
			// An untyped constant or a value converted on assignment
			// keeps the variable's type through W1[T].
			targ, ok := r.typeArgAt(v.Type(), s.Pos())
			if !ok {
				// Left as written: without the type named, the value
				// would take its default type (or the wrong one) inside
				// W1 and no longer be assignable; the types typeArg
				// cannot name (struct and interface literals, types
				// of packages the file does not import, unexported
				// types of other packages) are rare here.
				r.skip(s, "header assignment of an untyped or converted value")
				return
			}
			w1 = fmt.Sprintf("%s.W1[%s](%s, %d, %d, ", rtName, targ, r.fa(), st.ID, slotW)
		}
		st.Exprs = []*trace.Expr{r.expr(rhs, st)}
		r.es.wrap(r.off(rhs.Pos()), r.off(rhs.End()), w1, ")")
	default:
		st.Op = tok
		slotR := r.addOperand(st, id, v.Type(), li, false)
		open, close := r.readWrap(slotR, v.Type(), li)
		if r.elided(id, st, li) {
			st.Operands[slotR].Elided = true
			open, close = "", ""
		}
		read := &trace.Expr{Op: trace.ExprRead, Slot: slotR, Type: r.tab.typeOf(v.Type()), Text: id.Name}
		op := opOf(tok)
		if rhs == nil {
			st.Exprs = []*trace.Expr{{Op: trace.ExprBinary, Tok: op, X: read, Y: &trace.Expr{Op: trace.ExprConst, Const: trace.Value{Kind: constKind(read.Type), Bits: 1}, Type: read.Type, Text: "1"}, Type: read.Type}}
			r.es.replace(r.off(s.Pos()), r.off(s.End()), fmt.Sprintf("%s = %s%s%s%s %s 1)", id.Name, w1, open, id.Name, close, op))
			return
		}
		y := r.expr(rhs, st)
		st.Exprs = []*trace.Expr{{Op: trace.ExprBinary, Tok: op, X: read, Y: y, Type: read.Type}}
		r.es.replace(r.off(s.Pos()), r.off(rhs.Pos()), fmt.Sprintf("%s = %s%s%s%s %s (", id.Name, w1, open, id.Name, close, op))
		r.es.post(r.off(rhs.End()), "))")
	}
}

// headerParallel instruments a parallel assignment in a for-loop header,
// `k, i = k+1, i+1`: each value is recorded as written while the right-hand
// side is evaluated (WV), the last one also ends the event (W1), so the
// statement is one event that writes every variable.
func (r *rewriter) headerParallel(s *ast.AssignStmt) {
	type part struct {
		id   *ast.Ident
		v    *types.Var
		targ string // "[T]" when the value needs the variable's type spelled out
	}
	parts := make([]part, len(s.Lhs))
	for k, x := range s.Lhs {
		id, ok := x.(*ast.Ident)
		if !ok || id.Name == "_" || r.varOf(id) == nil {
			r.skip(s, "header assignment to a non-variable")
			return
		}
		v := r.varOf(id)
		p := part{id: id, v: v}
		if !r.wrappableAs(s.Rhs[k], v.Type(), s.Tok == token.DEFINE) {
			t, ok := r.typeArgAt(v.Type(), s.Pos())
			if !ok {
				r.skip(s, "header assignment of an untyped or converted value")
				return
			}
			p.targ = "[" + t + "]"
		}
		parts[k] = p
	}
	st := r.site(assignKind(s.Tok), s)
	for k, p := range parts {
		li := r.loc(p.id)
		if li.kind != trace.LocLocal {
			li = locInfo{}
		}
		slot := r.addOperand(st, p.id, p.v.Type(), li, true)
		st.Exprs = append(st.Exprs, r.expr(s.Rhs[k], st))
		open := fmt.Sprintf("%s.WV%s(%s, %d, ", rtName, p.targ, r.fa(), slot)
		if k == len(parts)-1 {
			open = fmt.Sprintf("%s.W1%s(%s, %d, %d, ", rtName, p.targ, r.fa(), st.ID, slot)
		}
		r.es.wrap(r.off(s.Rhs[k].Pos()), r.off(s.Rhs[k].End()), open, ")")
	}
}

// headerTuple instruments `a, b := f()` (or a comma-ok form) as a for-loop
// init statement, where no statement can follow it: the values come from
// a function literal called in its place (see tupleInit). (Such a post
// statement runs as a whole statement in a function literal, see forStmt.)
func (r *rewriter) headerTuple(s *ast.AssignStmt) {
	for _, x := range s.Lhs {
		if id, ok := x.(*ast.Ident); !ok || id.Name != "_" && r.varOf(id) == nil {
			r.skip(s, "header assignment to a non-variable")
			return
		}
	}
	st := r.site(assignKind(s.Tok), s)
	if !r.tupleInit(st, s.Lhs, s.Rhs[0], false) {
		// The function literal must declare its results' types.
		r.skip(s, "multi-value assignment in a statement header of a type that cannot be named")
	}
}

// tupleInit records the values a multi-value expression (a call, or a
// comma-ok form) assigns to the variables names, where no statement can be
// added after the assignment: in a for-loop header and in a package-level
// initialiser. The expression moves into a function literal called in its
// place,
//
//	a, b = func() (A, B) { v1, v2 := f(); _ct.WV(..., v1); _ct.W1(..., v2); return v1, v2 }()
//
// which evaluates it once, at the same point, and records each value
// written as one event of st. The literal's results are the variables'
// types (or, for a blank, the expression's), spelled as in the file; it
// reports false, adding nothing, when one cannot be spelled there. Inside
// a package-level initialiser the literal keeps the dependencies that order
// package initialisation: references inside function literals count.
func (r *rewriter) tupleInit(st *trace.Site, names []ast.Expr, rhs ast.Expr, global bool) bool {
	tuple, _ := r.info.TypeOf(rhs).(*types.Tuple)
	if tuple == nil || tuple.Len() != len(names) {
		return false
	}
	results := make([]string, len(names))
	vars := make([]*types.Var, len(names))
	for k, x := range names {
		t := types.Default(tuple.At(k).Type())
		if id := x.(*ast.Ident); id.Name != "_" {
			if vars[k] = r.varOf(id); vars[k] == nil {
				return false
			}
			t = vars[k].Type()
		}
		spelled, ok := r.typeArgAt(t, rhs.Pos())
		if !ok {
			return false
		}
		results[k] = spelled
	}
	last := -1
	for k, v := range vars {
		if v != nil {
			last = k
		}
	}
	if last < 0 {
		return false
	}
	call := r.expr(rhs, st)
	r.ntmp++
	tmps := make([]string, len(names))
	for k := range names {
		tmps[k] = fmt.Sprintf("_ctv%d_%d", r.ntmp, k)
	}
	var rec strings.Builder
	for k, x := range names {
		v := vars[k]
		if v == nil {
			continue
		}
		li := r.loc(x)
		if global || li.kind != trace.LocLocal {
			li = locInfo{}
		}
		var slot int
		if global {
			slot = len(st.Operands)
			st.Operands = append(st.Operands, trace.Operand{Slot: slot, Write: true, Text: r.text(x), Type: r.tab.typeOf(v.Type()), Obj: r.tab.obj(v), Global: true})
		} else {
			slot = r.addOperand(st, x, v.Type(), li, true)
		}
		st.Exprs = append(st.Exprs, &trace.Expr{Op: trace.ExprOpaque, Args: []*trace.Expr{call}, Slot: k, Call: call.Call, Text: call.Text})
		if k == last {
			fmt.Fprintf(&rec, "%s.W1(%s, %d, %d, %s); ", rtName, r.fa(), st.ID, slot, tmps[k])
		} else {
			fmt.Fprintf(&rec, "%s.WV(%s, %d, %s); ", rtName, r.fa(), slot, tmps[k])
		}
	}
	open := fmt.Sprintf("func() (%s) { %s := ", strings.Join(results, ", "), strings.Join(tmps, ", "))
	close := fmt.Sprintf("; %sreturn %s }()", rec.String(), strings.Join(tmps, ", "))
	r.es.wrap(r.off(rhs.Pos()), r.off(rhs.End()), open, close)
	return true
}
