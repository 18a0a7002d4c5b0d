package instrument

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/types"

	"github.com/culprit-dev/culprit/analyzer/trace"
)

// A method with a value receiver works on a copy, and so does a function
// on a parameter of struct or array type: their reads of the copy's parts
// are defined by the copy the entry made, not by the caller's writes that
// gave those parts their values. Two records join them. The reads of the
// parts carry their byte offsets in the copy (copyOffset), and the call
// names what it copied: its argument reads do, and for a receiver, which
// is no argument, the call reads the address the receiver is copied from
// or names the variable (valueReceiver). The comparison then finds the
// caller's last write of the same part.

// copiesOf returns the value receiver declared by recv and the parameters
// of params whose parts are locals of the function's frame, by their Obj,
// each with its trace.Operand.Param: structs or arrays whose layout no
// type parameter decides, never address-taken (then their parts are
// memory, recorded by address).
func (r *rewriter) copiesOf(recv, params *ast.FieldList) map[int]int {
	if r.tab.sizes == nil {
		return nil
	}
	out := map[int]int{}
	note := func(name *ast.Ident, param int) {
		v := r.varOf(name)
		if v == nil || name.Name == "_" || r.addr[v] || dependsOnTypeParam(v.Type()) {
			return
		}
		switch v.Type().Underlying().(type) {
		case *types.Struct, *types.Array:
			out[r.tab.obj(v)] = param
		}
	}
	if recv != nil && len(recv.List) == 1 && len(recv.List[0].Names) == 1 {
		note(recv.List[0].Names[0], 0)
	}
	if params != nil {
		k := 0
		for _, f := range params.List {
			if len(f.Names) == 0 {
				k++
			}
			for _, name := range f.Names {
				k++
				note(name, k)
			}
		}
	}
	return out
}

// copyOffset returns the byte offset of location e in the copy it lies
// in (rewriter.copies): e is the copy, a field of a location in it (not
// through a pointer), or an element at a constant index of an array in
// it.
func (r *rewriter) copyOffset(e ast.Expr) (int, bool) {
	switch x := unparen(e).(type) {
	case *ast.Ident:
		v := r.varOf(x)
		if v == nil {
			return 0, false
		}
		_, ok := r.copies[r.tab.obj(v)]
		return 0, ok
	case *ast.SelectorExpr:
		sel := r.info.Selections[x]
		if sel == nil || sel.Kind() != types.FieldVal || sel.Indirect() {
			return 0, false
		}
		off, ok := r.copyOffset(x.X)
		if !ok {
			return 0, false
		}
		t := r.info.TypeOf(x.X)
		for _, i := range sel.Index() {
			st, ok := t.Underlying().(*types.Struct)
			if !ok {
				return 0, false
			}
			off += int(r.tab.offsetsof(st)[i])
			t = st.Field(i).Type()
		}
		return off, true
	case *ast.IndexExpr:
		a, ok := r.under(x.X).(*types.Array)
		c := r.info.Types[x.Index].Value
		if !ok || c == nil || c.Kind() != constant.Int {
			return 0, false
		}
		i, exact := constant.Int64Val(c)
		off, ok := r.copyOffset(x.X)
		if !ok || !exact {
			return 0, false
		}
		return off + int(i*r.tab.sizes.Sizeof(a.Elem())), true
	}
	return 0, false
}

// recvFrom is how a call names the location its value receiver is
// copied from.
type recvFrom int

const (
	recvNone    recvFrom = iota
	recvPointer          // the receiver is a pointer's target: read the pointer
	recvAddress          // memory whose writes are recorded by address: read &x
	recvLocal            // a local of the frame or a global: named statically
)

// valueReceiver returns the receiver x of a call of a method with a value
// receiver of struct or array type, declared on the receiver's own type
// (not promoted from an embedded field), when x is a variable or a field,
// and how the call names the location the receiver is copied from.
func (r *rewriter) valueReceiver(fun ast.Expr) (ast.Expr, recvFrom) {
	sel, isSel := unparen(fun).(*ast.SelectorExpr)
	if !isSel || r.tab.sizes == nil {
		return nil, recvNone
	}
	s := r.info.Selections[sel]
	if s == nil || s.Kind() != types.MethodVal || len(s.Index()) != 1 {
		return nil, recvNone
	}
	sig, isSig := s.Obj().Type().(*types.Signature)
	if !isSig || sig.Recv() == nil {
		return nil, recvNone
	}
	switch sig.Recv().Type().Underlying().(type) {
	case *types.Struct, *types.Array:
	default:
		return nil, recvNone
	}
	if !r.varOrField(sel.X) || !r.pure(sel.X) {
		return nil, recvNone
	}
	if _, ptr := r.info.TypeOf(sel.X).Underlying().(*types.Pointer); ptr {
		return sel.X, recvPointer
	}
	switch r.loc(sel.X).kind {
	case trace.LocAddr:
		return sel.X, recvAddress
	case trace.LocLocal:
		return sel.X, recvLocal
	}
	return nil, recvNone
}

// recvOperand adds to call site cs, of a call of fun, the operand that
// names where a value receiver x is copied from (valueReceiver), and wraps
// x to read its address when that is how it is named: after the call's
// mark, as the call's own read. It reports whether it wrapped x (which
// then carries the mark).
func (r *rewriter) recvOperand(cs *trace.Site, fun ast.Expr) bool {
	x, from := r.valueReceiver(fun)
	switch from {
	case recvLocal:
		slot := r.addOperand(cs, x, r.info.TypeOf(x), r.loc(x), false)
		cs.Operands[slot].RecvFrom = true
		return false
	case recvPointer, recvAddress:
		t, amp := r.info.TypeOf(x), ""
		if from == recvAddress {
			t, amp = types.NewPointer(t), "&"
		}
		slot := r.addOperand(cs, x, t, locInfo{}, false)
		cs.Operands[slot].Text = amp + cs.Operands[slot].Text
		cs.Operands[slot].RecvFrom = true
		r.es.wrap(r.off(x.Pos()), r.off(x.End()), fmt.Sprintf("%s.R(%s.N(%s), %s.V(%s, %d, %s", rtName, rtName, r.fa(), rtName, r.fa(), slot, amp), "))")
		return true
	}
	return false
}
