package instrument

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"github.com/culprit-dev/culprit/analyzer/trace"
)

// rtName is the import name of the runtime package in rewritten files; fr is
// the frame variable of an instrumented function.
const (
	rtName = "_ct"
	fr     = "_ctf"
)

// rewriter instruments one file by collecting text insertions.
type rewriter struct {
	fset  *token.FileSet
	info  *types.Info
	file  *ast.File
	src   []byte
	base  int
	rel   string
	tab   *table
	es    edits
	scope func(*types.Package) bool
	// leave lists the functions left uninstrumented, each with the reason
	// recorded as a skip; an empty reason (a test function the run never
	// calls) records nothing, as that code cannot execute.
	leave map[funcKey]string
	addr  map[*types.Var]bool
	// wrote collects, in a first pass over the file, the places where the
	// value written to a local variable is recorded; elide, in the second
	// pass, holds the locals whose reads are left unrecorded (elide.go).
	wrote map[*types.Var]map[token.Pos]bool
	elide map[*types.Var]bool
	lazy  int    // depth inside right operands of && and ||, which may not run
	fname string // enclosing function, qualified
	frame string // frame variable in scope ("_ctf", or the file's init frame)
	fsig  *types.Signature
	fbody *ast.BlockStmt // the enclosing function's body
	// copies are the enclosing function's value receiver and parameters
	// whose fields are locals of the frame (structs or arrays never
	// address-taken), by Obj, each with its trace.Operand.Param: their
	// parts' reads carry their offsets in them (recv.go).
	copies map[int]int
	watch  bool // the enclosing function's frame watches for failures (rt/watch.go)
	gvar   string
	ntmp   int // temporaries declared: hoisted locations (_ctpN, _ctmN, _ctkN), ranged maps (_cthN)
}

func (r *rewriter) off(p token.Pos) int { return int(p) - r.base }

func (r *rewriter) text(n ast.Node) string {
	return string(r.src[r.off(n.Pos()):r.off(n.End())])
}

func (r *rewriter) pos(n ast.Node) trace.Pos {
	a, b := r.fset.Position(n.Pos()), r.fset.Position(n.End())
	return trace.Pos{File: r.rel, Line: a.Line, Col: a.Column, EndLine: b.Line, EndCol: b.Column}
}

func (r *rewriter) site(kind trace.SiteKind, n ast.Node) *trace.Site {
	t := r.text(n)
	if len(t) > 200 {
		t = t[:200]
	}
	return r.tab.add(&trace.Site{Kind: kind, Pos: r.pos(n), Text: t, Func: r.fname})
}

func (r *rewriter) skip(n ast.Node, why string) {
	r.tab.Skipped = append(r.tab.Skipped, trace.Skip{Pos: r.pos(n), Reason: why})
}

// fa is "&<frame>".
func (r *rewriter) fa() string { return "&" + r.frame }

// rewriteFile instruments the file and returns its new text.
func (r *rewriter) rewriteFile(rtPath string) []byte {
	r.addr = map[*types.Var]bool{}
	r.analyzeAddr(r.file)
	r.es.post(r.off(r.file.Name.End()), fmt.Sprintf("; import %s %q", rtName, rtPath))
	r.frame = r.gvar
	usedG := false
	for _, d := range r.file.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Body == nil {
				continue
			}
			if r.leftAlone(d.Name.Pos()) {
				if why := r.leave[r.funcKey(d.Name.Pos())]; why != "" {
					r.skip(d, why)
				}
				continue
			}
			r.fname = r.funcName(d)
			r.function(d.Recv, d.Type, d.Body, d)
		case *ast.GenDecl:
			if d.Tok == token.VAR {
				r.fname = "init"
				r.frame = r.gvar
				for _, s := range d.Specs {
					usedG = r.globalSpec(s.(*ast.ValueSpec)) || usedG
				}
			}
		}
	}
	if usedG {
		r.es.post(len(r.src), fmt.Sprintf("\nvar %s %s.F\n", r.gvar, rtName))
	}
	return r.es.apply(r.src)
}

func (r *rewriter) funcName(d *ast.FuncDecl) string {
	if o, ok := r.info.Defs[d.Name].(*types.Func); ok {
		return o.FullName()
	}
	return d.Name.Name
}

// globalSpec instruments a package-level `var x = e`, `var x, y = e1, e2`
// (each variable its own initialiser, as Go initialises them one by one in
// dependency order) and `var x, y = f()` (one event writing both).
func (r *rewriter) globalSpec(vs *ast.ValueSpec) bool {
	if len(vs.Values) == 0 || allBlank(vs.Names) {
		// A blank initialiser (var _ I = T{}, a compile-time check)
		// writes nothing there is to trace.
		return false
	}
	if len(vs.Values) != len(vs.Names) {
		s := r.site(trace.SiteGlobal, vs)
		if !r.tupleInit(s, identExprs(vs.Names), vs.Values[0], true) {
			// The function literal must declare its results' types.
			r.skip(vs, "package-level multi-variable initialiser of a type that cannot be named")
			return false
		}
		return true
	}
	used := false
	for k, name := range vs.Names {
		if name.Name != "_" {
			used = r.globalVar(vs, name, vs.Values[k]) || used
		}
	}
	return used
}

func identExprs(ids []*ast.Ident) []ast.Expr {
	l := make([]ast.Expr, len(ids))
	for k, id := range ids {
		l[k] = id
	}
	return l
}

// globalVar instruments the initialiser rhs of the package-level variable
// name declared in vs.
func (r *rewriter) globalVar(vs *ast.ValueSpec, name *ast.Ident, rhs ast.Expr) bool {
	v := r.varOf(name)
	if v == nil {
		r.skip(vs, "package-level initialiser of an unknown variable")
		return false
	}
	w1 := rtName + ".W1("
	if !r.wrappableAs(rhs, v.Type(), vs.Type == nil) {
		// As in loop headers: W1[T] keeps the variable's type.
		targ, ok := r.typeArg(v.Type())
		if !ok {
			// Left as written, for the reason given in header.
			r.skip(vs, "package-level initialiser of an untyped or converted value")
			return false
		}
		w1 = rtName + ".W1[" + targ + "]("
	}
	var s *trace.Site
	if len(vs.Names) == 1 {
		s = r.site(trace.SiteGlobal, vs)
	} else {
		s = r.site(trace.SiteGlobal, name)
		s.Pos = r.pos(name)
		s.Text = name.Name + " = " + r.text(rhs)
		if len(s.Text) > 200 {
			s.Text = s.Text[:200]
		}
	}
	s.Operands = append(s.Operands, trace.Operand{Slot: 0, Write: true, Text: name.Name, Type: r.tab.typeOf(v.Type()), Obj: r.tab.obj(v), Global: true})
	s.Exprs = []*trace.Expr{r.expr(rhs, s)}
	r.es.wrap(r.off(rhs.Pos()), r.off(rhs.End()), fmt.Sprintf("%s%s, %d, 0, ", w1, r.fa(), s.ID), ")")
	return true
}

func allBlank(ids []*ast.Ident) bool {
	for _, id := range ids {
		if id.Name != "_" {
			return false
		}
	}
	return true
}

// wrappableAs reports whether rhs may be passed through a generic identity
// function and still be assignable to a variable of type t. define is set
// when t is inferred from rhs (so untyped constants take their default type).
func (r *rewriter) wrappableAs(rhs ast.Expr, t types.Type, define bool) bool {
	tv := r.info.Types[rhs]
	if tv.Type == nil || r.untypedOrigin(rhs) && !types.Identical(tv.Type, types.Typ[types.Bool]) {
		return false
	}
	if tv.Value != nil || isNil(tv) {
		return define && tv.Value != nil
	}
	return types.Identical(tv.Type, t) || define
}

func isNil(tv types.TypeAndValue) bool { return tv.IsNil() }

// untypedOrigin reports whether e's value is untyped before its implicit
// conversion (comparisons, untyped constants and shifts of them).
func (r *rewriter) untypedOrigin(e ast.Expr) bool {
	tv := r.info.Types[e]
	if tv.Value != nil || tv.IsNil() {
		return true
	}
	switch x := unparen(e).(type) {
	case *ast.BinaryExpr:
		switch x.Op {
		case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ:
			return true
		case token.LAND, token.LOR:
			return r.untypedOrigin(x.X) && r.untypedOrigin(x.Y)
		case token.SHL, token.SHR:
			return r.info.Types[x.X].Value != nil
		}
	case *ast.UnaryExpr:
		if x.Op == token.NOT {
			return r.untypedOrigin(x.X)
		}
	}
	return false
}

// function instruments a function or closure body.
func (r *rewriter) function(recv *ast.FieldList, ft *ast.FuncType, body *ast.BlockStmt, n ast.Node) {
	saveF, saveSig, saveBody, saveWatch, saveCopies := r.frame, r.fsig, r.fbody, r.watch, r.copies
	r.frame, r.fbody, r.copies = fr, body, r.copiesOf(recv, ft.Params)
	if tv, ok := r.info.Types[ft]; ok {
		r.fsig, _ = tv.Type.(*types.Signature)
	}
	if d, ok := n.(*ast.FuncDecl); ok {
		if o, ok := r.info.Defs[d.Name].(*types.Func); ok {
			r.fsig = o.Type().(*types.Signature)
		}
	}
	s := r.site(trace.SiteFunc, n)
	s.Text = strings.SplitN(s.Text, "\n", 2)[0]
	var b strings.Builder
	fmt.Fprintf(&b, "var %s %s.F; ", fr, rtName)
	for _, fl := range []*ast.FieldList{recv, ft.Params, ft.Results} {
		if fl == nil {
			continue
		}
		for _, f := range fl.List {
			for _, name := range f.Names {
				v := r.varOf(name)
				if v == nil || name.Name == "_" {
					continue
				}
				li := r.loc(name)
				slot := r.addOperand(s, name, v.Type(), li, true)
				b.WriteString(r.writeCall(slot, name.Name, v.Type(), li) + "; ")
			}
		}
	}
	// The end of the body: where a function without results returns by
	// falling off its end, and where any function returns when a deferred
	// call recovered a panic.
	end := r.tab.add(&trace.Site{Kind: trace.SiteReturn, Pos: r.pos(body), Text: "}", Func: r.fname})
	end.Pos.Line, end.Pos.Col = end.Pos.EndLine, end.Pos.EndCol-1
	fmt.Fprintf(&b, "%s.E = %d; ", fr, end.ID)
	// The frames of test code watch for failures that code the tracer
	// does not enter reports (rt/watch.go): functions of test files, test
	// helpers elsewhere, which take a testing.T or testing.TB, and the
	// closures inside them.
	inTest := strings.HasSuffix(r.rel, "_test.go")
	t, helper := testingParam(ft.Params, r.info)
	_, lit := n.(*ast.FuncLit)
	r.watch = inTest || helper || lit && saveWatch
	if r.watch {
		fmt.Fprintf(&b, "%s.T = true; ", fr)
	}
	fmt.Fprintf(&b, "defer %s.Exit(%s.Enter(&%s, %d)); ", rtName, rtName, fr, s.ID)
	if inTest && t != "" {
		fmt.Fprintf(&b, "%s.Watch(&%s, %s); ", rtName, fr, t)
	}
	r.es.post(r.off(body.Lbrace)+1, b.String())
	r.stmts(body.List)
	if r.fsig == nil || r.fsig.Results().Len() == 0 {
		r.es.pre(r.off(body.Rbrace), fmt.Sprintf("; %s.R = %d; ", fr, end.ID))
	}
	r.frame, r.fsig, r.fbody, r.watch, r.copies = saveF, saveSig, saveBody, saveWatch, saveCopies
}

// testingParam returns the name of the *testing.T parameter among params
// ("" if none), which a test function's frame hands its watch, and
// whether any parameter is a *testing.T or a testing.TB: a test helper's.
func testingParam(params *ast.FieldList, info *types.Info) (name string, helper bool) {
	for _, f := range params.List {
		t := info.TypeOf(f.Type)
		p, ptr := t.(*types.Pointer)
		if ptr {
			t = p.Elem()
		}
		n, ok := t.(*types.Named)
		if !ok || n.Obj().Pkg() == nil || n.Obj().Pkg().Path() != "testing" {
			continue
		}
		switch n.Obj().Name() {
		case "T":
			helper = true
			if ptr && len(f.Names) == 1 && f.Names[0].Name != "_" && name == "" {
				name = f.Names[0].Name
			}
		case "TB":
			helper = true
		}
	}
	return name, helper
}

// addOperand appends an operand to s and returns its slot.
func (r *rewriter) addOperand(s *trace.Site, e ast.Expr, t types.Type, li locInfo, write bool) int {
	op := trace.Operand{Slot: len(s.Operands), Write: write, Text: r.text(e), Type: r.tab.typeOf(t)}
	if li.kind == trace.LocLocal {
		op.Obj, op.Path, op.Global = li.obj, li.path, li.global
		if write {
			r.noteWrite(e, li)
		}
	}
	if !write {
		op.Names = r.localNames(e)
	}
	if f := r.fieldOf(e); f != nil {
		op.Field = r.tab.obj(f)
	}
	if param, ok := r.copies[li.obj]; ok && li.kind == trace.LocLocal && !li.global && li.path != "" {
		op.Offset, op.InCopy = r.copyOffset(e)
		op.Param = param
	}
	s.Operands = append(s.Operands, op)
	return op.Slot
}

// localNames returns trace.Operand.Names for the read of e: the Obj of every
// never-address-taken local that an identifier of an index, selector or
// star expression denotes, by name. Function literals are not entered:
// their locals belong to another frame, and they may reuse a name.
func (r *rewriter) localNames(e ast.Expr) map[string]int {
	switch unparen(e).(type) {
	case *ast.IndexExpr, *ast.SelectorExpr, *ast.StarExpr:
	default:
		return nil
	}
	var names map[string]int
	ast.Inspect(e, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.Ident:
			v, _ := r.info.Uses[x].(*types.Var)
			if v == nil || v.IsField() || r.isGlobal(v) || r.addr[v] {
				return true
			}
			if names == nil {
				names = map[string]int{}
			}
			names[x.Name] = r.tab.obj(v)
		}
		return true
	})
	return names
}

// basicName returns the suffix of the runtime's specialised push functions
// for t, or "". Those take slots below 1<<16 only (they do not mask them).
func basicName(t types.Type) string {
	b, ok := t.(*types.Basic)
	if !ok {
		return ""
	}
	switch b.Kind() {
	case types.Int, types.Int8, types.Int16, types.Int32, types.Int64, types.Uint, types.Uint8,
		types.Uint16, types.Uint32, types.Uint64, types.Uintptr, types.Bool, types.Float64, types.Float32:
		n := types.Typ[b.Kind()].Name() // byte and rune name their aliases' targets
		return strings.ToUpper(n[:1]) + n[1:]
	}
	return ""
}

// writeCall is the statement recording the value written to slot.
func (r *rewriter) writeCall(slot int, text string, t types.Type, li locInfo) string {
	switch li.kind {
	case trace.LocAddr:
		return fmt.Sprintf("%s.WA(%s, %d, %s, %s)", rtName, r.fa(), slot, text, li.addr)
	case trace.LocMap:
		return fmt.Sprintf("%s.WM(%s, %d, %s, %s, %s)", rtName, r.fa(), slot, text, li.m, li.k)
	}
	if n := basicName(t); n != "" && slot < 1<<16 {
		return fmt.Sprintf("%s.W%s(%s, %d, %s)", rtName, n, r.fa(), slot, text)
	}
	return fmt.Sprintf("%s.W(%s, %d, %s)", rtName, r.fa(), slot, text)
}

// readWrap returns the opening and closing text recording a read.
func (r *rewriter) readWrap(slot int, t types.Type, li locInfo) (string, string) {
	switch li.kind {
	case trace.LocAddr:
		return fmt.Sprintf("%s.VA(%s, %d, ", rtName, r.fa(), slot), ", " + li.addr + ")"
	case trace.LocMap:
		return fmt.Sprintf("%s.VM(%s, %d, ", rtName, r.fa(), slot), fmt.Sprintf(", %s, %s)", li.m, li.k)
	}
	if n := basicName(t); n != "" && slot < 1<<16 {
		return fmt.Sprintf("%s.V%s(%s, %d, ", rtName, n, r.fa(), slot), ")"
	}
	return fmt.Sprintf("%s.V(%s, %d, ", rtName, r.fa(), slot), ")"
}

// leftAlone reports whether the function declared with its name at pos is
// left uninstrumented (see rewriter.leave).
func (r *rewriter) leftAlone(pos token.Pos) bool {
	if len(r.leave) == 0 || !pos.IsValid() {
		return false
	}
	_, ok := r.leave[r.funcKey(pos)]
	return ok
}

func (r *rewriter) funcKey(pos token.Pos) funcKey {
	p := r.fset.Position(pos)
	return funcKey{p.Filename, p.Line}
}
