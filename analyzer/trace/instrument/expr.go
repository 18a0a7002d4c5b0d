package instrument

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"math"
	"path/filepath"
	"strings"

	"golang.org/x/tools/go/types/typeutil"

	"github.com/culprit-dev/culprit/analyzer/trace"
)

// expr instruments the reads in e (attributed to site st) and returns its
// shape.
func (r *rewriter) expr(e ast.Expr, st *trace.Site) *trace.Expr {
	tv := r.info.Types[e]
	out := &trace.Expr{Type: r.tab.typeOf(tv.Type), Text: r.text(e)}
	if len(out.Text) > 80 {
		out.Text = out.Text[:80]
	}
	if tv.Value != nil {
		out.Op, out.Const = trace.ExprConst, constValue(tv.Value)
		out.Decl = r.constDecl(e)
		return out
	}
	if tv.IsNil() {
		out.Op, out.Const = trace.ExprConst, trace.Value{Kind: trace.ValPointer, Nil: true}
		return out
	}
	if _, ok := tv.Type.(*types.Tuple); ok && r.commaOK(e, st, out) {
		return out
	}
	switch x := e.(type) {
	case *ast.ParenExpr:
		return r.expr(x.X, st)
	case *ast.Ident:
		if r.varOf(x) != nil {
			return r.leaf(e, st)
		}
	case *ast.SelectorExpr:
		if sel := r.info.Selections[x]; sel != nil {
			if sel.Kind() == types.FieldVal {
				return r.leaf(e, st)
			}
			break
		}
		if _, ok := r.info.Uses[x.Sel].(*types.Var); ok {
			return r.leaf(e, st)
		}
	case *ast.IndexExpr:
		switch r.under(x.X).(type) {
		case *types.Map, *types.Slice, *types.Array, *types.Pointer:
			return r.leaf(e, st)
		case *types.Basic: // string indexing: a function of the string and index
			out.Args = []*trace.Expr{r.expr(x.X, st), r.expr(x.Index, st)}
		}
	case *ast.StarExpr:
		return r.leaf(e, st)
	case *ast.UnaryExpr:
		if lit, ok := unparen(x.X).(*ast.CompositeLit); ok && x.Op == token.AND {
			if r.structLitAddr(x, lit) {
				return out
			}
		}
		switch x.Op {
		case token.SUB, token.XOR, token.NOT, token.ADD:
			out.Op, out.Tok, out.X = trace.ExprUnary, x.Op, r.expr(x.X, st)
		case token.ARROW:
			r.expr(x.X, st)
			out.Op, out.Slot = trace.ExprRead, r.valueRead(e, st)
		}
	case *ast.BinaryExpr:
		out.Op, out.Tok = trace.ExprBinary, x.Op
		out.X = r.expr(x.X, st)
		lazy := x.Op == token.LAND || x.Op == token.LOR
		if lazy {
			r.shortCircuit(x)
			r.lazy++
		}
		out.Y = r.expr(x.Y, st)
		if lazy {
			r.lazy--
		}
	case *ast.CallExpr:
		return r.callExpr(x, st, out)
	case *ast.CompositeLit:
		out.Args = r.elements(x, st)
	case *ast.FuncLit:
		r.funcLit(x)
	case *ast.TypeAssertExpr:
		out.Args = []*trace.Expr{r.expr(x.X, st)}
	case *ast.SliceExpr:
		if !isArrayOrPointerToArray(r.under(x.X)) {
			out.Args = append(out.Args, r.expr(x.X, st))
		}
		for _, i := range []ast.Expr{x.Low, x.High, x.Max} {
			if i != nil {
				out.Args = append(out.Args, r.expr(i, st))
			}
		}
	}
	return out
}

// commaOK records the operands of a comma-ok map index or receive
// (v, ok := m[k] / <-ch), which yields two values that a read wrapper
// cannot pass through. It reports whether e was one.
func (r *rewriter) commaOK(e ast.Expr, st *trace.Site, out *trace.Expr) bool {
	switch x := unparen(e).(type) {
	case *ast.IndexExpr:
		out.Args = []*trace.Expr{r.expr(x.X, st), r.expr(x.Index, st)}
		return true
	case *ast.UnaryExpr:
		if x.Op == token.ARROW {
			out.Args = []*trace.Expr{r.expr(x.X, st)}
			return true
		}
	}
	return false
}

// elements instruments a composite literal's elements, and the keys of a
// map or slice literal (a struct literal's keys are field names).
func (r *rewriter) elements(lit *ast.CompositeLit, st *trace.Site) []*trace.Expr {
	var args []*trace.Expr
	for _, el := range lit.Elts {
		if kv, ok := el.(*ast.KeyValueExpr); ok {
			if _, isStruct := r.under(lit).(*types.Struct); !isStruct {
				args = append(args, r.expr(kv.Key, st))
			}
			el = kv.Value
		}
		args = append(args, r.expr(el, st))
	}
	return args
}

// structLitAddr instruments &T{...} of a struct type T as its own
// assignment site: once the object exists, each initialised field is
// recorded as written at its address, with the element as its value.
func (r *rewriter) structLitAddr(e *ast.UnaryExpr, lit *ast.CompositeLit) bool {
	if lit.Type == nil || !r.pure(lit.Type) {
		return false
	}
	inits, ok := r.fieldInits(lit)
	if !ok {
		return false
	}
	s := r.site(trace.SiteAssign, e)
	const p = "_cp"
	var b strings.Builder
	for _, in := range inits {
		s.Exprs = append(s.Exprs, r.expr(in.val, s))
	}
	for i, in := range inits {
		if in.field.Name() == "_" {
			s.Exprs[i] = nil
			continue
		}
		slot := len(s.Operands)
		s.Operands = append(s.Operands, trace.Operand{Slot: slot, Write: true, Text: in.field.Name(), Type: r.tab.typeOf(in.field.Type())})
		fe := p + "." + in.field.Name()
		fmt.Fprintf(&b, "%s.WA(%s, %d, %s, &%s); ", rtName, r.fa(), slot, fe, fe)
	}
	exprs := s.Exprs[:0]
	for _, x := range s.Exprs {
		if x != nil {
			exprs = append(exprs, x)
		}
	}
	s.Exprs = exprs
	t := r.text(lit.Type)
	open := fmt.Sprintf("func(%s *%s) *%s { %s%s.E(%s, %d, %d); return %s }(", p, t, t, b.String(), rtName, r.fa(), trace.EvAssign, s.ID, p)
	r.es.wrap(r.off(e.Pos()), r.off(e.End()), open, ")")
	return true
}

// fieldInit is one field a struct literal initialises.
type fieldInit struct {
	field *types.Var
	val   ast.Expr
}

// fieldInits returns the fields a struct literal initialises, in the
// order of its elements; false if lit is not a struct literal or names a
// field this rewriter cannot resolve.
func (r *rewriter) fieldInits(lit *ast.CompositeLit) ([]fieldInit, bool) {
	st, ok := r.under(lit).(*types.Struct)
	if !ok || st.NumFields() == 0 {
		return nil, false
	}
	var inits []fieldInit
	for k, el := range lit.Elts {
		if kv, ok := el.(*ast.KeyValueExpr); ok {
			id, _ := kv.Key.(*ast.Ident)
			if id == nil {
				return nil, false
			}
			f, _ := r.info.Uses[id].(*types.Var)
			if f == nil {
				return nil, false
			}
			inits = append(inits, fieldInit{f, kv.Value})
			continue
		}
		if k >= st.NumFields() {
			return nil, false
		}
		inits = append(inits, fieldInit{st.Field(k), el})
	}
	return inits, true
}

// shortCircuit records the left operand of && / || as its own branch.
func (r *rewriter) shortCircuit(x *ast.BinaryExpr) {
	t := r.info.TypeOf(x.X)
	if t != nil && !types.Identical(t, types.Typ[types.Bool]) && !r.untypedOrigin(x.X) {
		return
	}
	kind := trace.SiteAndAnd
	if x.Op == token.LOR {
		kind = trace.SiteOrOr
	}
	s := r.site(kind, x)
	r.es.wrap(r.off(x.X.Pos()), r.off(x.X.End()), fmt.Sprintf("%s.SC(%s, %d, ", rtName, r.fa(), s.ID), ")")
}

func (r *rewriter) funcLit(fl *ast.FuncLit) {
	save := r.fname
	r.fname += ".func"
	r.function(nil, fl.Type, fl.Body, fl)
	r.fname = save
}

// leaf records the read of a location, with its identity.
func (r *rewriter) leaf(e ast.Expr, st *trace.Site) *trace.Expr {
	r.innerReads(e, st)
	t := r.info.TypeOf(e)
	li := r.loc(e)
	slot := r.addOperand(st, e, t, li, false)
	if r.elided(e, st, li) {
		st.Operands[slot].Elided = true
	} else {
		open, close := r.readWrap(slot, t, li)
		r.es.wrap(r.off(e.Pos()), r.off(e.End()), open, close)
	}
	return &trace.Expr{Op: trace.ExprRead, Slot: slot, Type: r.tab.typeOf(t), Text: r.text(e)}
}

// innerReads instruments index expressions and calls below a location path.
func (r *rewriter) innerReads(e ast.Expr, st *trace.Site) {
	switch x := unparen(e).(type) {
	case *ast.Ident:
	case *ast.SelectorExpr:
		sel := r.info.Selections[x]
		if sel == nil {
			break
		}
		// A field reached through a pointer held in memory (n.Next.Val):
		// the pointer is read first, so that a nil dereference keeps the
		// nil pointer it read with the panic. A local pointer needs no
		// read of its own: its last definition has its value.
		if sel.Indirect() && !r.plainLocal(x.X) {
			if li := r.loc(x.X); li.kind == trace.LocAddr {
				r.leaf(x.X, st)
				return
			}
		}
		r.innerReads(x.X, st)
	case *ast.IndexExpr:
		r.expr(x.Index, st)
		r.innerReads(x.X, st)
	case *ast.StarExpr:
		r.innerReads(x.X, st)
	default:
		r.expr(e, st)
	}
}

// plainLocal reports whether e names a local variable (not a global).
func (r *rewriter) plainLocal(e ast.Expr) bool {
	id, ok := unparen(e).(*ast.Ident)
	if !ok {
		return false
	}
	v := r.varOf(id)
	return v != nil && !r.isGlobal(v)
}

func constValue(c constant.Value) trace.Value {
	switch c.Kind() {
	case constant.Bool:
		return trace.Value{Kind: trace.ValBool, Bits: b2u(constant.BoolVal(c))}
	case constant.Int:
		if v, ok := constant.Int64Val(c); ok {
			return trace.Value{Kind: trace.ValInt, Bits: uint64(v)}
		}
		v, _ := constant.Uint64Val(c)
		return trace.Value{Kind: trace.ValUint, Bits: v}
	case constant.Float:
		f, _ := constant.Float64Val(c)
		return trace.Value{Kind: trace.ValFloat, Bits: math.Float64bits(f)}
	case constant.String:
		return stringValue(constant.StringVal(c))
	}
	return trace.Value{Kind: trace.ValOpaque}
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// stringValue encodes a string like the runtime does.
func stringValue(s string) trace.Value {
	h := uint64(14695981039346656037)
	hs := s
	if len(hs) > 1024 {
		hs = hs[:512] + hs[len(hs)-512:]
	}
	for i := 0; i < len(hs); i++ {
		h ^= uint64(hs[i])
		h *= 1099511628211
	}
	p := s
	if len(p) > 8 {
		p = p[:8]
	}
	return trace.Value{Kind: trace.ValString, Len: int64(len(s)), Hash: h, Prefix: p}
}

var failMethods = map[string]bool{"Error": true, "Errorf": true, "Fatal": true, "Fatalf": true, "Fail": true, "FailNow": true}

// tbMethods are the methods of testing.TB, by name.
var tbMethods = map[string]bool{
	"Attr": true, "ArtifactDir": true, "Chdir": true, "Cleanup": true, "Context": true, "Error": true, "Errorf": true,
	"Fail": true, "FailNow": true, "Failed": true, "Fatal": true, "Fatalf": true, "Helper": true, "Log": true,
	"Logf": true, "Name": true, "Output": true, "Setenv": true, "Skip": true, "SkipNow": true, "Skipf": true,
	"Skipped": true, "TempDir": true,
}

// testingLike reports whether t is an interface a test helper declares to
// take a *testing.T (a TestingT with Errorf and FailNow, say): one of at
// least two methods, all of them testing.TB's. A logger's interface has
// methods of its own (Info, With) and is not one.
func testingLike(t types.Type) bool {
	iface, ok := t.Underlying().(*types.Interface)
	if !ok || iface.NumMethods() < 2 {
		return false
	}
	for i := 0; i < iface.NumMethods(); i++ {
		if !tbMethods[iface.Method(i).Name()] {
			return false
		}
	}
	return true
}

func isTestify(path string) bool {
	return strings.HasPrefix(path, "github.com/stretchr/testify/assert") || strings.HasPrefix(path, "github.com/stretchr/testify/require")
}

// callKind classifies a call by its static callee.
func (r *rewriter) callKind(c *ast.CallExpr) (trace.SiteKind, *types.Func) {
	fn, _ := typeutil.Callee(r.info, c).(*types.Func)
	if fn == nil || fn.Pkg() == nil {
		return trace.SiteCall, fn
	}
	path := fn.Pkg().Path()
	sig, _ := fn.Type().(*types.Signature)
	switch {
	case path == "testing" && sig != nil && sig.Recv() != nil && failMethods[fn.Name()]:
		return trace.SiteFail, fn
	case isTestify(path) && fn.Exported() && fn.Name() != "New":
		return trace.SiteFail, fn
	case sig != nil && sig.Recv() != nil && failMethods[fn.Name()] && testingLike(sig.Recv().Type()):
		// A helper package's own TestingT: the test hands it its *testing.T.
		return trace.SiteFail, fn
	case r.scope(fn.Pkg()) && !r.leftAlone(fn.Origin().Pos()):
		return trace.SiteCall, fn
	}
	if sig != nil && sig.Recv() != nil {
		if _, isIface := sig.Recv().Type().Underlying().(*types.Interface); isIface {
			return trace.SiteCall, fn // may dispatch to instrumented code
		}
	}
	return trace.SiteCallExt, fn
}

// constDecl returns where the named constant e is declared, when that is a
// file of the module; nil otherwise.
func (r *rewriter) constDecl(e ast.Expr) *trace.Pos {
	id := namedBy(e)
	if id == nil {
		return nil
	}
	obj, ok := r.info.Uses[id].(*types.Const)
	if !ok || !obj.Pos().IsValid() {
		return nil
	}
	at := r.fset.Position(obj.Pos())
	here := filepath.ToSlash(r.fset.Position(r.file.Pos()).Filename)
	root, ok := strings.CutSuffix(here, r.rel)
	if !ok || at.Filename == "" {
		return nil
	}
	file := rel(root, at.Filename)
	if file == ".." || strings.HasPrefix(file, "../") {
		return nil
	}
	return &trace.Pos{File: file, Line: at.Line, Col: at.Column}
}

// namedBy returns the identifier that names what e refers to: e itself, or
// the selected name of pkg.Name or x.Name; nil for any other expression.
func namedBy(e ast.Expr) *ast.Ident {
	switch x := unparen(e).(type) {
	case *ast.Ident:
		return x
	case *ast.SelectorExpr:
		return x.Sel
	}
	return nil
}

// isArrayOrPointerToArray reports whether a sliced operand of type t is
// left unwrapped: an array, which a wrapper would make unaddressable, or a
// pointer to one, whose slicing through a generic wrapper's result the
// compiler rejects ("bad ptr to array in slice", an internal error that
// would leave the whole file untraced). Its read goes unrecorded.
func isArrayOrPointerToArray(t types.Type) bool {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem().Underlying()
	}
	_, ok := t.(*types.Array)
	return ok
}
