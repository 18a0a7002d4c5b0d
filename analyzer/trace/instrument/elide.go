package instrument

import (
	"go/ast"
	"go/token"
	"go/types"

	"github.com/culprit-dev/culprit/analyzer/trace"
)

// Reads of most locals need not be recorded: the decoder knows their
// value, the last one the frame wrote. A local qualifies when
//   - its type is a basic number or bool (the values the specialised
//     recorders of rt/basic.go write and read alike),
//   - nothing takes its address or captures it in a closure (so only its
//     own frame writes it, and only by assignment),
//   - it is not a named result (a return statement writes those
//     unrecorded) nor a type switch's per-clause variable, and
//   - every place the source writes it records the written value: the
//     rewriter's first pass over the file notes those places, and the
//     second leaves the reads of the qualifying locals unwrapped.
//
// A read is left unrecorded only where it surely runs before its event is
// recorded: not in the right operand of && or ||, and only at sites whose
// event follows the evaluation of all their operands. The operand is
// marked Elided, and the decoder rebuilds the read from the frame's last
// write (decode.go). This halves the words a loop over integers records.

// elidedKinds are the sites whose event is recorded once all their
// operands are evaluated.
var elidedKinds = map[trace.SiteKind]bool{
	trace.SiteAssign: true, trace.SiteDefine: true, trace.SiteIncDec: true, trace.SiteOpAssign: true,
	trace.SiteIf: true, trace.SiteFor: true, trace.SiteSwitchCase: true, trace.SiteReturn: true,
	trace.SiteCall: true, trace.SiteCallExt: true,
}

// noteWrite notes, in the first pass, that the value written to the
// location e is recorded.
func (r *rewriter) noteWrite(e ast.Expr, li locInfo) {
	if r.wrote == nil || li.global || li.path != "" {
		return
	}
	id, ok := unparen(e).(*ast.Ident)
	if !ok {
		return
	}
	v := r.varOf(id)
	if v == nil {
		return
	}
	if r.wrote[v] == nil {
		r.wrote[v] = map[token.Pos]bool{}
	}
	r.wrote[v][id.Pos()] = true
}

// elidable returns, after the first pass, the locals of the file whose
// every write was recorded.
func (r *rewriter) elidable() map[*types.Var]bool {
	out := map[*types.Var]bool{}
	bad := map[*types.Var]bool{}
	write := func(id *ast.Ident) {
		v := r.varOf(id)
		if v == nil || id.Name == "_" {
			return
		}
		if !r.wrote[v][id.Pos()] {
			bad[v] = true
			return
		}
		if _, seen := out[v]; !seen {
			out[v] = true
		}
	}
	writeExpr := func(e ast.Expr) {
		if id, ok := unparen(e).(*ast.Ident); ok {
			write(id)
		}
	}
	fields := func(fl *ast.FieldList, named bool) {
		if fl == nil {
			return
		}
		for _, f := range fl.List {
			for _, name := range f.Names {
				if v := r.varOf(name); v != nil && named {
					bad[v] = true
				}
				write(name)
			}
		}
	}
	ast.Inspect(r.file, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.FuncDecl:
			fields(x.Recv, false)
			fields(x.Type.Params, false)
			fields(x.Type.Results, true)
		case *ast.FuncLit:
			fields(x.Type.Params, false)
			fields(x.Type.Results, true)
		case *ast.AssignStmt:
			for _, e := range x.Lhs {
				writeExpr(e)
			}
		case *ast.IncDecStmt:
			writeExpr(x.X)
		case *ast.RangeStmt:
			if x.Key != nil {
				writeExpr(x.Key)
			}
			if x.Value != nil {
				writeExpr(x.Value)
			}
		case *ast.ValueSpec:
			for _, name := range x.Names {
				write(name)
			}
		case *ast.CaseClause:
			if v, ok := r.info.Implicits[x].(*types.Var); ok {
				bad[v] = true
			}
		}
		return true
	})
	for v := range out {
		if bad[v] || r.addr[v] || r.isGlobal(v) || basicName(v.Type()) == "" {
			delete(out, v)
		}
	}
	return out
}

// elided reports whether the read of e, a location li at site st, is
// left unrecorded in this pass.
func (r *rewriter) elided(e ast.Expr, st *trace.Site, li locInfo) bool {
	if r.elide == nil || r.lazy > 0 || !elidedKinds[st.Kind] || li.kind != trace.LocLocal || li.global || li.path != "" {
		return false
	}
	id, ok := unparen(e).(*ast.Ident)
	if !ok {
		return false
	}
	v := r.varOf(id)
	return v != nil && r.elide[v]
}
