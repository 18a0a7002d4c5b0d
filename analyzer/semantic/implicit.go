package semantic

import (
	"go/ast"
	"go/parser"
	"sort"

	"github.com/culprit-dev/culprit/analyzer/trace"
)

// implicitLocals returns, for the runtime panic event i, the definitions
// (event, index in its Writes) of the local variables read by the
// statement that panicked, when its panic is a function of them alone:
// every operand is a never-address-taken local, or an index or selector
// expression over such locals (x[i], x.f, *x; the element itself is not
// needed to decide the panic). Nil otherwise.
func (a *Analysis) implicitLocals(i int) [][2]int {
	ev := a.tr.Event(i)
	operands := a.panicOperands(i)
	if ev.Kind != trace.EvPanic || ev.Frame == 0 || len(operands) == 0 {
		return nil
	}
	// The locals the panic depends on, by Obj: the operands that are a
	// local themselves, and the base and index of an index or star operand
	// as the tracer resolved their names (xs in xs[i] is read only through
	// the element, no operand of its own).
	locals := map[int]bool{}
	for _, o := range operands {
		if o.Write {
			return nil
		}
		if o.Obj != 0 && !o.Global && o.Path == "" {
			locals[o.Obj] = true
		}
	}
	ident := func(o trace.Operand, e ast.Expr) bool {
		id, ok := e.(*ast.Ident)
		if !ok {
			return false
		}
		obj, ok := o.Names[id.Name]
		if ok {
			locals[obj] = true
		}
		return ok
	}
	for _, o := range operands {
		if o.Obj != 0 && !o.Global && o.Path == "" {
			continue
		}
		e, err := parser.ParseExpr(o.Text)
		if err != nil {
			return nil
		}
		switch x := e.(type) {
		case *ast.IndexExpr:
			if !ident(o, x.X) || !(ident(o, x.Index) || isLit(x.Index)) {
				return nil
			}
		case *ast.StarExpr:
			if !ident(o, x.X) {
				return nil
			}
		default:
			return nil
		}
	}
	var out [][2]int
	for obj := range locals {
		loc := trace.Loc{Kind: trace.LocLocal, Frame: ev.Frame, Obj: obj}
		d := a.tr.LastDef(loc, i)
		if d < 0 {
			return nil
		}
		k := -1
		for j, w := range a.tr.Event(d).Writes {
			if w.Loc == loc {
				k = j
			}
		}
		if k < 0 {
			return nil
		}
		out = append(out, [2]int{d, k})
	}
	sort.Slice(out, func(x, y int) bool {
		if out[x][0] != out[y][0] {
			return out[x][0] < out[y][0]
		}
		return out[x][1] < out[y][1]
	})
	return out
}

func isLit(e ast.Expr) bool {
	_, ok := e.(*ast.BasicLit)
	return ok
}

// panicOperands returns the operands of the statement where the panic
// event i occurred. A statement that is a call the tracer did not enter
// (a helper outside the module that called t.FailNow or panicked) has no
// operands of its own: the call's are what decided the failure, and its
// event, recorded after the call returns, never happened.
func (a *Analysis) panicOperands(i int) []trace.Operand {
	site := a.tr.SiteOf(i)
	if len(site.Operands) > 0 || site.Kind != trace.SiteStmt {
		return site.Operands
	}
	// The call that is the statement starts where it does; of calls
	// that start together (a.b().c()), the site numbered last.
	var ops []trace.Operand
	for _, id := range a.tr.ExtCallsIn(site.Pos) {
		if c := a.tr.Site(id); c.Pos.Line == site.Pos.Line && c.Pos.Col == site.Pos.Col {
			ops = c.Operands
		}
	}
	return ops
}
