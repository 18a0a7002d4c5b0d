package instrument

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"github.com/culprit-dev/culprit/analyzer/trace"
)

func (r *rewriter) stmts(list []ast.Stmt) {
	for _, s := range list {
		r.stmt(s, s.Pos())
	}
}

// mark inserts the current-statement marker at off.
func (r *rewriter) mark(off token.Pos, s *trace.Site) {
	r.es.pre(r.off(off), fmt.Sprintf("%s.S = %d; ", r.frame, s.ID))
}

// stmt instruments a statement in a statement list; at is where statements
// may be inserted before it (before its label, if any).
func (r *rewriter) stmt(s ast.Stmt, at token.Pos) {
	switch s := s.(type) {
	case *ast.LabeledStmt:
		r.stmt(s.Stmt, at)
	case *ast.BlockStmt:
		r.stmts(s.List)
	case *ast.AssignStmt:
		r.assign(s, at)
	case *ast.IncDecStmt:
		r.assign(s, at)
	case *ast.DeclStmt:
		if gd, ok := s.Decl.(*ast.GenDecl); ok && gd.Tok == token.VAR {
			r.varDecl(gd, at)
		}
	case *ast.ExprStmt:
		r.exprStmt(s, at)
	case *ast.ReturnStmt:
		r.ret(s, at)
	case *ast.IfStmt:
		r.ifStmt(s, at, true)
	case *ast.ForStmt:
		r.forStmt(s, at)
	case *ast.RangeStmt:
		st := r.site(trace.SiteRange, s)
		st.Text = strings.SplitN(st.Text, "\n", 2)[0]
		r.mark(at, st)
		r.rangeHeader(s, st)
		var b strings.Builder
		b.WriteString(r.rangeEntry(s, st))
		for _, e := range []ast.Expr{s.Key, s.Value} {
			if e == nil || isBlank(e) {
				continue
			}
			b.WriteString(r.writeStmt(st, e) + "; ")
		}
		fmt.Fprintf(&b, "%s.B(%s, %d, true); ", rtName, r.fa(), st.ID)
		r.es.post(r.off(s.Body.Lbrace)+1, b.String())
		r.stmts(s.Body.List)
	case *ast.SwitchStmt:
		r.withInit(s, s.Init, s.Switch, len("switch"), "switch", at)
		st := r.site(trace.SiteSwitch, s)
		st.Text = strings.SplitN(st.Text, "\n", 2)[0]
		if s.Tag != nil {
			st.Exprs = []*trace.Expr{r.expr(s.Tag, st)}
		}
		r.clauses(st, s.Body, s.Tag == nil)
	case *ast.TypeSwitchStmt:
		r.withInit(s, s.Init, s.Switch, len("switch"), "switch", at)
		st := r.site(trace.SiteSwitch, s)
		st.Text = strings.SplitN(st.Text, "\n", 2)[0]
		r.clauses(st, s.Body, false)
	case *ast.SelectStmt:
		st := r.site(trace.SiteSelect, s)
		st.Text = "select"
		for k, c := range s.Body.List {
			cc := c.(*ast.CommClause)
			var b strings.Builder
			if as, ok := cc.Comm.(*ast.AssignStmt); ok {
				for _, e := range as.Lhs {
					if !isBlank(e) {
						b.WriteString(r.writeStmt(st, e) + "; ")
					}
				}
			}
			fmt.Fprintf(&b, "%s.Sw(%s, %d, %d); ", rtName, r.fa(), st.ID, k)
			r.es.post(r.off(cc.Colon)+1, b.String())
			r.stmts(cc.Body)
		}
	case *ast.SendStmt:
		st := r.site(trace.SiteStmt, s)
		r.mark(at, st)
		r.expr(s.Value, st)
	case *ast.GoStmt:
		r.deferred(s.Call, at)
	case *ast.DeferStmt:
		r.deferred(s.Call, at)
	}
}

func isBlank(e ast.Expr) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == "_"
}

// deferred instruments the arguments of a go or defer call (evaluated now)
// and the function literal it may run.
func (r *rewriter) deferred(c *ast.CallExpr, at token.Pos) {
	st := r.site(trace.SiteStmt, c)
	r.mark(at, st)
	for _, a := range c.Args {
		r.expr(a, st)
	}
	if fl, ok := unparen(c.Fun).(*ast.FuncLit); ok {
		r.funcLit(fl)
	}
}

// withInit turns `kw init; x {...}` into `{ init; kw x {...} }` so that the
// init statement can be instrumented as an ordinary statement.
func (r *rewriter) withInit(n ast.Node, init ast.Stmt, kwPos token.Pos, kwLen int, kw string, at token.Pos) {
	if init == nil {
		return
	}
	semi := r.off(init.End())
	for semi < len(r.src) && r.src[semi] != ';' {
		semi++
	}
	if semi >= len(r.src) {
		r.skip(init, "statement header without ';'")
		return
	}
	r.es.replace(r.off(kwPos), r.off(kwPos)+kwLen, "{ ")
	r.es.replace(semi, semi+1, "; "+kw+" ")
	r.es.post(r.off(n.End()), " }")
	r.stmt(init, init.Pos())
}

func (r *rewriter) ifStmt(s *ast.IfStmt, at token.Pos, mark bool) {
	r.withInit(s, s.Init, s.If, len("if"), "if", at)
	st := r.site(trace.SiteIf, s.Cond)
	inline := !mark || s.Init != nil
	if !inline {
		r.mark(at, st)
	}
	r.branchCond(st, s.Cond, inline)
	r.stmts(s.Body.List)
	switch e := s.Else.(type) {
	case *ast.BlockStmt:
		r.stmts(e.List)
	case *ast.IfStmt:
		r.ifStmt(e, e.Pos(), false)
	}
}

// branchCond records a condition's reads and outcome: cond -> _ct.B(f, s,
// cond). With mark, the condition also makes itself the statement
// executing: _ct.B(f, s, _ct.At(f, s) && (cond)).
func (r *rewriter) branchCond(st *trace.Site, cond ast.Expr, mark bool) {
	st.Exprs = []*trace.Expr{r.expr(cond, st)}
	open, close := fmt.Sprintf("%s.B(%s, %d, ", rtName, r.fa(), st.ID), ")"
	if mark {
		open, close = open+fmt.Sprintf("%s.At(%s, %d) && (", rtName, r.fa(), st.ID), close+")"
	}
	if t := r.info.TypeOf(cond); t != nil && !types.Identical(t, types.Typ[types.Bool]) && !r.untypedOrigin(cond) {
		open, close = open+"bool(", close+")"
	}
	r.es.wrap(r.off(cond.Pos()), r.off(cond.End()), open, close)
}

func (r *rewriter) forStmt(s *ast.ForStmt, at token.Pos) {
	if s.Init != nil {
		r.header(s.Init)
	}
	if s.Cond != nil {
		st := r.site(trace.SiteFor, s.Cond)
		r.mark(at, st)
		// Evaluated again after each iteration's body, the condition
		// marks itself too.
		r.branchCond(st, s.Cond, true)
	}
	switch {
	case s.Post == nil:
	case headerStmt(s.Post):
		r.header(s.Post)
	default:
		// A post statement the header form cannot record (c.i++, a[k] =
		// v, f()) runs as the whole statement of a function literal
		// called in its place, where it is instrumented as in a body.
		r.es.pre(r.off(s.Post.Pos()), "func() { ")
		r.stmt(s.Post, s.Post.Pos())
		r.es.post(r.off(s.Post.End()), " }()")
	}
	r.stmts(s.Body.List)
}

// headerStmt reports whether header can record a for-loop header
// statement in place: an assignment (one value per variable) or
// increment of plain variables.
func headerStmt(s ast.Stmt) bool {
	var lhs []ast.Expr
	switch s := s.(type) {
	case *ast.AssignStmt:
		if len(s.Lhs) != len(s.Rhs) {
			return false
		}
		lhs = s.Lhs
	case *ast.IncDecStmt:
		lhs = []ast.Expr{s.X}
	default:
		return false
	}
	for _, x := range lhs {
		if _, ok := x.(*ast.Ident); !ok {
			return false
		}
	}
	return true
}

// clauses instruments the case clauses of a switch: the clause taken is
// recorded at its start; a default clause is added to record "none".
func (r *rewriter) clauses(st *trace.Site, body *ast.BlockStmt, tagless bool) {
	hasDefault := false
	for k, c := range body.List {
		cc := c.(*ast.CaseClause)
		if cc.List == nil {
			hasDefault = true
			st.Cases = append(st.Cases, nil)
		} else {
			var cs []*trace.Expr
			for _, e := range cc.List {
				if tagless {
					cst := r.site(trace.SiteSwitchCase, e)
					r.branchCond(cst, e, true)
					cs = append(cs, cst.Exprs[0])
				} else if r.info.Types[e].IsType() || r.info.Types[e].IsNil() {
					continue
				} else {
					cs = append(cs, r.expr(e, st))
				}
			}
			st.Cases = append(st.Cases, cs)
		}
		r.es.post(r.off(cc.Colon)+1, fmt.Sprintf(" %s.Sw(%s, %d, %d); ", rtName, r.fa(), st.ID, k))
		r.stmts(cc.Body)
	}
	if !hasDefault {
		r.es.pre(r.off(body.Rbrace), fmt.Sprintf("; default: %s.Sw(%s, %d, -1); ", rtName, r.fa(), st.ID))
	}
}

func (r *rewriter) exprStmt(s *ast.ExprStmt, at token.Pos) {
	call, ok := unparen(s.X).(*ast.CallExpr)
	if !ok {
		st := r.site(trace.SiteStmt, s)
		r.mark(at, st)
		r.expr(s.X, st)
		return
	}
	var builtin string
	if id, ok := unparen(call.Fun).(*ast.Ident); ok {
		if b, ok := r.info.Uses[id].(*types.Builtin); ok {
			builtin = b.Name()
		}
	}
	switch {
	case builtin == "delete" && r.deleteStmt(s, call, at):
		return
	case builtin == "panic":
		st := r.site(trace.SiteFail, s)
		st.Callee = "panic"
		r.mark(at, st)
		st.Exprs = []*trace.Expr{r.expr(call.Args[0], st)}
		a := call.Args[0]
		if r.info.Types[a].IsNil() {
			r.es.pre(r.off(at), fmt.Sprintf("%s.E(%s, %d, %d); ", rtName, r.fa(), trace.EvFail, st.ID))
		} else {
			r.es.wrap(r.off(a.Pos()), r.off(a.End()), fmt.Sprintf("%s.CL(%s, %d, %d, ", rtName, r.fa(), trace.EvFail, st.ID), ")")
		}
		return
	}
	st := r.site(trace.SiteStmt, s)
	r.mark(at, st)
	r.callAt(call, st, at)
}

// deleteStmt instruments delete(m, k) as an assignment that writes the
// map entry m[k] (its element's zero value, which a later read of m[k]
// gets): the entries a map holds decide what len(m) and range m give, so
// a delete is a definition like m[k] = v. The map and key are evaluated
// again after the call, so both must be free of side effects; otherwise
// it reports false and the statement is left to the plain call.
func (r *rewriter) deleteStmt(s *ast.ExprStmt, call *ast.CallExpr, at token.Pos) bool {
	if len(call.Args) != 2 || !r.pure(call.Args[0]) || !r.pure(call.Args[1]) {
		return false
	}
	mt, ok := r.under(call.Args[0]).(*types.Map)
	if !ok {
		return false
	}
	st := r.site(trace.SiteAssign, s)
	r.mark(at, st)
	m, k := r.text(call.Args[0]), r.text(call.Args[1])
	st.Exprs = []*trace.Expr{r.expr(call.Args[0], st), r.expr(call.Args[1], st)}
	slot := len(st.Operands)
	st.Operands = append(st.Operands, trace.Operand{Slot: slot, Write: true, Text: m + "[" + k + "]", Type: r.tab.typeOf(mt.Elem())})
	r.es.post(r.off(s.End()), fmt.Sprintf("; %s.Del(%s, %d, %s, %s); %s.E(%s, %d, %d)",
		rtName, r.fa(), slot, m, r.mapKey(mt, k), rtName, r.fa(), trace.EvAssign, st.ID))
	return true
}

func (r *rewriter) ret(s *ast.ReturnStmt, at token.Pos) {
	st := r.site(trace.SiteReturn, s)
	r.mark(at, st)
	if r.fsig == nil {
		return
	}
	res := r.fsig.Results()
	if len(s.Results) == 0 {
		var b strings.Builder
		for i := 0; i < res.Len(); i++ {
			v := res.At(i)
			if v.Name() == "" || v.Name() == "_" {
				continue
			}
			fmt.Fprintf(&b, "%s.Val(%s, %d, %s); ", rtName, r.fa(), i, v.Name())
		}
		fmt.Fprintf(&b, "%s.R = %d; ", r.frame, st.ID)
		r.es.pre(r.off(s.Pos()), b.String())
		return
	}
	if len(s.Results) != res.Len() { // return f() with a tuple
		st.Exprs = []*trace.Expr{r.expr(s.Results[0], st)}
		r.tupleReturn(s, st, res.Len())
		return
	}
	// A result is recorded through Val (RL for the last one, which also
	// marks the return) unless it is a constant. A comparison or other
	// untyped-origin value gets the result's type as its type argument, so
	// that the wrapped value converts as the bare one did.
	targs := make([]string, len(s.Results))
	recorded := make([]bool, len(s.Results))
	last := -1
	for i, e := range s.Results {
		st.Exprs = append(st.Exprs, r.expr(e, st))
		tv := r.info.Types[e]
		if tv.Value != nil || tv.IsNil() {
			continue
		}
		if r.untypedOrigin(e) {
			targ, ok := r.typeArg(res.At(i).Type())
			if !ok {
				continue
			}
			targs[i] = "[" + targ + "]"
		}
		recorded[i], last = true, i
	}
	if last < 0 {
		r.es.pre(r.off(s.Pos()), fmt.Sprintf("%s.R = %d; ", r.frame, st.ID))
		return
	}
	for i, e := range s.Results[:last] {
		if recorded[i] {
			r.es.wrap(r.off(e.Pos()), r.off(e.End()), fmt.Sprintf("%s.Val%s(%s, %d, ", rtName, targs[i], r.fa(), i), ")")
		}
	}
	e := s.Results[last]
	r.es.wrap(r.off(e.Pos()), r.off(e.End()), fmt.Sprintf("%s.RL%s(%s, %d, %d, ", rtName, targs[last], r.fa(), st.ID, last), ")")
}

// rangeHeader records, for a range over a slice, string or map, the reads
// of the ranged expression in an Assign event of the range site (no
// writes), emitted once the expression is evaluated, before the first
// iteration; Exprs[0] is its shape. Iteration k of the loop happened only
// if k <= len(x); a map's iterations are as many as the entries it holds,
// which the writes of its entries decide.
func (r *rewriter) rangeHeader(s *ast.RangeStmt, st *trace.Site) {
	tv := r.info.Types[s.X]
	if tv.Type == nil || tv.Value != nil || r.untypedOrigin(s.X) {
		return
	}
	switch r.under(s.X).(type) {
	case *types.Slice, *types.Map:
	case *types.Basic:
		if b, ok := r.under(s.X).(*types.Basic); !ok || b.Info()&types.IsString == 0 {
			return
		}
	default:
		return
	}
	st.Exprs = []*trace.Expr{r.expr(s.X, st)}
	r.es.wrap(r.off(s.X.Pos()), r.off(s.X.End()), fmt.Sprintf("%s.CL(%s, %d, %d, ", rtName, r.fa(), trace.EvAssign, st.ID), ")")
}

// rangeEntry returns the statement that records, in each iteration of a
// range over a map that binds the element to a variable, the element as
// a read of its map entry, m[k]: the iteration's value is what the last
// write of that entry stored, so the element's origin is that write. The
// map is held in a variable of the function's (rt.Hold around the ranged
// expression) and a blank key is given a name. A range that assigns to
// existing variables other than plain ones records nothing more.
func (r *rewriter) rangeEntry(s *ast.RangeStmt, st *trace.Site) string {
	mt, ok := r.under(s.X).(*types.Map)
	if !ok || r.fbody == nil || s.Key == nil || s.Value == nil || isBlank(s.Value) {
		return ""
	}
	key, ok1 := s.Key.(*ast.Ident)
	val, ok2 := s.Value.(*ast.Ident)
	if !ok1 || !ok2 || isBlank(key) && s.Tok != token.DEFINE {
		return ""
	}
	r.ntmp++
	m := fmt.Sprintf("_cth%d", r.ntmp)
	keyText, keyShown := key.Name, key.Name
	if isBlank(key) {
		keyText, keyShown = fmt.Sprintf("_ctk%d", r.ntmp), "…"
		r.es.replace(r.off(key.Pos()), r.off(key.End()), keyText)
	}
	r.es.post(r.off(r.fbody.Lbrace)+1, fmt.Sprintf("var %s any; ", m))
	r.es.wrap(r.off(s.X.Pos()), r.off(s.X.End()), fmt.Sprintf("%s.Hold(&%s, ", rtName, m), ")")
	slot := r.addOperand(st, val, mt.Elem(), locInfo{}, false)
	st.Operands[slot].Text = fmt.Sprintf("%s[%s]", r.text(s.X), keyShown)
	st.Operands[slot].Names = nil
	return fmt.Sprintf("%s.RM(%s, %d, %s, %s, %s); ", rtName, r.fa(), slot, m, keyText, val.Name)
}

// tupleReturn marks `return f()` with a tuple result as a normal return
// only once f has returned: the statement becomes
// `{ _ctr0, _ctr1 := f(); _ctf.R = id; return _ctr0, _ctr1 }` on the same
// line. Marked before the call, a panic in f would look like a return of
// this frame, as if a deferred call had recovered it, and the failure
// would be placed at the outermost frame instead of where it happened.
func (r *rewriter) tupleReturn(s *ast.ReturnStmt, st *trace.Site, n int) {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("_ctr%d", i)
	}
	list := strings.Join(names, ", ")
	at := r.off(s.Pos())
	r.es.replace(at, at+len("return"), fmt.Sprintf("{ %s :=", list))
	r.es.post(r.off(s.End()), fmt.Sprintf("; %s.R = %d; return %s }", r.frame, st.ID, list))
}
