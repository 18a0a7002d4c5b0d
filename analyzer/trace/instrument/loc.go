package instrument

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strings"

	"github.com/culprit-dev/culprit/analyzer/trace"
)

// locInfo is the static knowledge of a location's identity.
type locInfo struct {
	kind   trace.LocKind // LocLocal covers globals too (Global set)
	obj    int
	path   string
	global bool
	addr   string // pointer expression text (LocAddr)
	m, k   string // map and key texts (LocMap)
}

func unparen(e ast.Expr) ast.Expr {
	for {
		p, ok := e.(*ast.ParenExpr)
		if !ok {
			return e
		}
		e = p.X
	}
}

func (r *rewriter) varOf(id *ast.Ident) *types.Var {
	o := r.info.Uses[id]
	if o == nil {
		o = r.info.Defs[id]
	}
	v, _ := o.(*types.Var)
	if v == nil || v.IsField() {
		return nil
	}
	return v
}

func (r *rewriter) isGlobal(v *types.Var) bool {
	return v.Pkg() != nil && v.Parent() == v.Pkg().Scope()
}

func (r *rewriter) under(e ast.Expr) types.Type {
	t := r.info.TypeOf(e)
	if t == nil {
		return nil
	}
	return t.Underlying()
}

// loc classifies the location denoted by e.
func (r *rewriter) loc(e ast.Expr) locInfo {
	none := locInfo{}
	switch x := unparen(e).(type) {
	case *ast.Ident:
		v := r.varOf(x)
		if v == nil {
			return none
		}
		if r.isGlobal(v) {
			return locInfo{kind: trace.LocLocal, obj: r.tab.obj(v), global: true}
		}
		if r.addr[v] {
			return locInfo{kind: trace.LocAddr, addr: "&" + x.Name}
		}
		return locInfo{kind: trace.LocLocal, obj: r.tab.obj(v)}
	case *ast.SelectorExpr:
		if sel := r.info.Selections[x]; sel != nil {
			if sel.Kind() != types.FieldVal {
				return none
			}
			if !sel.Indirect() {
				if b := r.loc(x.X); b.kind == trace.LocLocal {
					b.path += "." + x.Sel.Name
					return b
				}
			}
			return r.addrLoc(e)
		}
		if v, ok := r.info.Uses[x.Sel].(*types.Var); ok && r.isGlobal(v) {
			return locInfo{kind: trace.LocLocal, obj: r.tab.obj(v), global: true}
		}
	case *ast.IndexExpr:
		switch t := r.under(x.X).(type) {
		case *types.Map:
			if r.pure(x.X) && r.pure(x.Index) {
				return locInfo{kind: trace.LocMap, m: r.text(x.X), k: r.mapKey(t, r.text(x.Index))}
			}
		case *types.Array:
			if b := r.loc(x.X); b.kind == trace.LocLocal {
				if c := r.info.Types[x.Index].Value; c != nil && c.Kind() == constant.Int {
					b.path += "[" + c.ExactString() + "]"
					return b
				}
			}
			return r.addrLoc(e)
		case *types.Slice, *types.Pointer:
			_ = t
			return r.addrLoc(e)
		}
	case *ast.StarExpr:
		if r.pure(x.X) {
			return locInfo{kind: trace.LocAddr, addr: r.text(x.X)}
		}
	}
	return none
}

// fieldOf returns the struct field in which the location e lies, the one
// its last selector below any index, dereference or parentheses selects
// (xs for p.xs[i]), as declared: for a field of a generic type, the
// field of its origin, which all its instances share. It returns nil when
// e selects no field.
func (r *rewriter) fieldOf(e ast.Expr) *types.Var {
	for {
		switch x := unparen(e).(type) {
		case *ast.IndexExpr:
			e = x.X
			continue
		case *ast.StarExpr:
			e = x.X
			continue
		case *ast.SelectorExpr:
			if sel := r.info.Selections[x]; sel != nil && sel.Kind() == types.FieldVal {
				return sel.Obj().(*types.Var).Origin()
			}
		}
		return nil
	}
}

func (r *rewriter) addrLoc(e ast.Expr) locInfo {
	if r.addressable(e) && r.pure(e) {
		return locInfo{kind: trace.LocAddr, addr: "&" + r.text(e)}
	}
	return locInfo{}
}

func (r *rewriter) addressable(e ast.Expr) bool {
	switch x := unparen(e).(type) {
	case *ast.Ident:
		return r.varOf(x) != nil
	case *ast.SelectorExpr:
		if sel := r.info.Selections[x]; sel != nil {
			return sel.Kind() == types.FieldVal && (sel.Indirect() || r.addressable(x.X))
		}
		_, ok := r.info.Uses[x.Sel].(*types.Var)
		return ok
	case *ast.IndexExpr:
		switch r.under(x.X).(type) {
		case *types.Slice, *types.Pointer:
			return true
		case *types.Array:
			return r.addressable(x.X)
		}
	case *ast.StarExpr:
		return true
	}
	return false
}

// pure reports whether e can be evaluated a second time without effects:
// no calls other than conversions and len/cap, no receives, and text that
// can be copied onto one line.
func (r *rewriter) pure(e ast.Expr) bool {
	ok := true
	ast.Inspect(e, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.CallExpr:
			if tv, found := r.info.Types[x.Fun]; found && tv.IsType() {
				return true
			}
			if id, isID := unparen(x.Fun).(*ast.Ident); isID {
				if b, isB := r.info.Uses[id].(*types.Builtin); isB && (b.Name() == "len" || b.Name() == "cap") {
					return true
				}
			}
			ok = false
		case *ast.UnaryExpr:
			if x.Op == token.ARROW {
				ok = false
			}
		case *ast.FuncLit, *ast.CompositeLit:
			ok = false
		}
		return ok
	})
	t := r.text(e)
	return ok && !strings.ContainsAny(t, "\n`") && !strings.Contains(t, "/*") && !strings.Contains(t, "//")
}

// analyzeAddr marks locals whose identity must be their address: address
// taken (explicitly or by a pointer-method call, slicing an array, or a
// dynamic array index) or captured by a closure.
func (r *rewriter) analyzeAddr(root ast.Node) {
	ast.Inspect(root, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.UnaryExpr:
			if x.Op == token.AND {
				r.markRoot(x.X)
			}
		case *ast.SliceExpr:
			if _, ok := r.under(x.X).(*types.Array); ok {
				r.markRoot(x.X)
			}
		case *ast.IndexExpr:
			if _, ok := r.under(x.X).(*types.Array); ok && r.info.Types[x.Index].Value == nil {
				r.markRoot(x.X)
			}
		case *ast.SelectorExpr:
			if sel := r.info.Selections[x]; sel != nil && sel.Kind() == types.MethodVal {
				if sig, ok := sel.Obj().Type().(*types.Signature); ok && sig.Recv() != nil {
					if _, ptr := sig.Recv().Type().Underlying().(*types.Pointer); ptr {
						if _, xptr := r.under(x.X).(*types.Pointer); !xptr {
							r.markRoot(x.X)
						}
					}
				}
			}
		case *ast.FuncLit:
			lo, hi := x.Pos(), x.End()
			ast.Inspect(x.Body, func(m ast.Node) bool {
				if id, ok := m.(*ast.Ident); ok {
					if v := r.varOf(id); v != nil && !r.isGlobal(v) && (v.Pos() < lo || v.Pos() >= hi) {
						r.addr[v] = true
					}
				}
				return true
			})
		}
		return true
	})
}

func (r *rewriter) markRoot(e ast.Expr) {
	for {
		switch x := unparen(e).(type) {
		case *ast.Ident:
			if v := r.varOf(x); v != nil && !r.isGlobal(v) {
				r.addr[v] = true
			}
			return
		case *ast.SelectorExpr:
			sel := r.info.Selections[x]
			if sel == nil || sel.Indirect() {
				return
			}
			e = x.X
		case *ast.IndexExpr:
			if _, ok := r.under(x.X).(*types.Array); !ok {
				return
			}
			e = x.X
		default:
			return
		}
	}
}

// mapKey returns the text that passes key (whose text is text) to the
// runtime's map hooks as map type m's key type: the hooks infer the key's
// type from the map, so a key of a map whose key type is the empty
// interface is converted to it (a string stored in a map[any]any, or a
// key hoisted into a variable of the constant's default type). A key of
// a non-empty interface type goes as it is: when its type differs, the
// file fails to compile and is left untraced.
func (r *rewriter) mapKey(m *types.Map, text string) string {
	if _, param := m.Key().(*types.TypeParam); param {
		return text
	}
	if it, ok := m.Key().Underlying().(*types.Interface); ok && it.Empty() {
		return "interface{}(" + text + ")"
	}
	return text
}
