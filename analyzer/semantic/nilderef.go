package semantic

import (
	"go/ast"
	"go/parser"

	"github.com/culprit-dev/culprit/analyzer/trace"
)

// nilPtr is the nil pointer a runtime panic dereferenced: a read of the
// panicking event (read >= 0), or the last definition of a local pointer
// (event def, write k).
type nilPtr struct {
	read   int
	def, k int
}

// nilDeref finds the nil pointer the runtime panic event i dereferenced.
// The runtime must have recorded the panic as one (trace.PanicNilDeref).
// Then either the last read pending when the statement panicked is a nil
// pointer operand (a pointer held in memory is read, then dereferenced),
// or a selector or star operand of the statement starts from a local
// pointer that was nil.
func (a *Analysis) nilDeref(i int) (nilPtr, bool) {
	ev := a.tr.Event(i)
	if ev.Panic != trace.PanicNilDeref {
		return nilPtr{}, false
	}
	if k := len(ev.Reads) - 1; k >= 0 {
		it := ev.Reads[k]
		o, ok := a.f.operand(i, it.Slot)
		if ok && !o.Write && o.Type.Kind == trace.TypePointer && it.Value.Kind == trace.ValPointer && it.Value.Nil {
			return nilPtr{read: k}, true
		}
	}
	if ev.Frame == 0 {
		return nilPtr{}, false
	}
	for _, o := range a.tr.SiteOf(i).Operands {
		if o.Write {
			continue
		}
		e, err := parser.ParseExpr(o.Text)
		if err != nil {
			continue
		}
		obj, ok := o.Names[derefRoot(e)]
		if !ok {
			continue
		}
		loc := trace.Loc{Kind: trace.LocLocal, Frame: ev.Frame, Obj: obj}
		d := a.tr.LastDef(loc, i)
		if d < 0 {
			continue
		}
		for k, w := range a.tr.Event(d).Writes {
			if w.Loc == loc && w.Value.Kind == trace.ValPointer && w.Value.Nil {
				return nilPtr{read: -1, def: d, k: k}, true
			}
		}
	}
	return nilPtr{}, false
}

// derefRoot returns the variable a selector chain or star expression
// dereferences first (n in n.Next.Val or *n), "" if none.
func derefRoot(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.SelectorExpr:
			e = x.X
		case *ast.StarExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

func (a *Analysis) isNilDeref(i int) bool {
	_, ok := a.nilDeref(i)
	return ok
}
