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
	locals := map[string]trace.Operand{}
	for _, o := range operands {
		if o.Obj != 0 && !o.Global && o.Path == "" && !o.Write {
			locals[o.Text] = o
		}
	}
	// A base the statement reads only through an element (xs in xs[i])
	// is no operand of its own: find the local by name among the frame's
	// definitions, only when the name denotes one variable there.
	ident := func(e ast.Expr) bool {
		id, ok := e.(*ast.Ident)
		if !ok {
			return false
		}
		if _, ok := locals[id.Name]; ok {
			return true
		}
		found, ok := a.localNamed(i, id.Name)
		if ok {
			locals[id.Name] = found
		}
		return ok
	}
	for _, o := range operands {
		if o.Write {
			return nil
		}
		if _, ok := locals[o.Text]; ok {
			continue
		}
		e, err := parser.ParseExpr(o.Text)
		if err != nil {
			return nil
		}
		switch x := e.(type) {
		case *ast.IndexExpr:
			if !ident(x.X) || !(ident(x.Index) || isLit(x.Index)) {
				return nil
			}
		case *ast.StarExpr:
			if !ident(x.X) {
				return nil
			}
		default:
			return nil
		}
	}
	var out [][2]int
	for _, o := range locals {
		loc := trace.Loc{Kind: trace.LocLocal, Frame: ev.Frame, Obj: o.Obj, Path: o.Path}
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
	if a.extCalls == nil {
		a.extCalls = map[trace.Pos]trace.SiteID{}
		for k := range a.tr.Sites {
			if s := &a.tr.Sites[k]; s.Kind == trace.SiteCallExt {
				p := s.Pos
				p.EndLine, p.EndCol = 0, 0
				a.extCalls[p] = s.ID
			}
		}
	}
	p := site.Pos
	p.EndLine, p.EndCol = 0, 0
	if id, ok := a.extCalls[p]; ok {
		return a.tr.Site(id).Operands
	}
	return nil
}

// localNamed returns the operand of the local variable named name in the
// frame of event i, when the name denotes one never address-taken local
// the frame defined before i.
func (a *Analysis) localNamed(i int, name string) (trace.Operand, bool) {
	var found trace.Operand
	for _, j := range a.idx.before(a.tr.Event(i).Frame, i) {
		for _, w := range a.tr.Event(j).Writes {
			o, ok := a.f.operand(j, w.Slot)
			if !ok || o.Text != name {
				continue
			}
			if o.Obj == 0 || o.Global || o.Path != "" || w.Loc.Kind != trace.LocLocal || found.Obj != 0 && found.Obj != o.Obj {
				return trace.Operand{}, false
			}
			found = o
		}
	}
	found.Write = false
	return found, found.Obj != 0
}
