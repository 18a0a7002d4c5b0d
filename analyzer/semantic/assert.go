package semantic

import (
	"strings"

	"github.com/culprit-dev/culprit/analyzer/smt"
	"github.com/culprit-dev/culprit/analyzer/trace"
)

// assertion makes the target of a testify call: the assertion's predicate
// over its arguments where it is one of the common ones, else the call's
// reads negated point-wise, which keeps the dependence on every argument.
func (a *Analysis) assertion(i int) (Target, bool) {
	a.seen[i] = true
	t := Target{Event: i, Outcome: "failed", Failure: i, pred: predObserved}
	if _, ok := assertPred(a.tr.SiteOf(i)); ok {
		t.pred = predAssert
		return t, true
	}
	if len(a.tr.Event(i).Reads) == 0 {
		return Target{}, false
	}
	return t, true
}

// assertPred returns the testify function name of a fail site when its
// predicate is modelled.
func assertPred(s *trace.Site) (string, bool) {
	name := s.Callee[strings.LastIndex(s.Callee, ".")+1:]
	name = strings.TrimSuffix(name, "f")
	switch name {
	case "Equal", "NotEqual", "EqualValues", "True", "False", "Nil", "NotNil", "NoError", "Error":
		return name, len(assertArgs(s)) >= 2
	}
	return "", false
}

// assertHolds returns [[p]] for the modelled testify predicate p of event
// b.ev, with the arguments after the testing.T.
func (b *builder) assertHolds(name string, args []*trace.Expr) smt.Term {
	c := b.f.c
	arg := func(k int) smt.Term {
		if k >= len(args) {
			b.opaque = true
			return c.Bool(false)
		}
		e := args[k]
		// Arguments are passed as interface values; the predicate is
		// about the operand converted.
		for e.Op == trace.ExprConv && e.Type.Kind == trace.TypeInterface && e.X != nil {
			e = e.X
		}
		return b.expr(e)
	}
	isNil := func(x smt.Term) smt.Term {
		eq, err := c.Eq(x, c.Const(x.Sort(), 0))
		if err != nil {
			b.opaque = true
			return c.Bool(false)
		}
		return eq
	}
	switch name {
	case "Equal", "EqualValues", "NotEqual":
		x, y := arg(1), arg(2)
		if b.opaque {
			return x
		}
		if x.Sort() != y.Sort() {
			if z, err := c.Convert(x, y.Sort()); err == nil {
				x = z
			}
		}
		eq, err := c.Eq(x, y)
		if err != nil {
			b.opaque = true
			return x
		}
		if name == "NotEqual" {
			return c.Not(eq)
		}
		return eq
	case "True":
		return arg(1)
	case "False":
		x := arg(1)
		if b.opaque || x.Sort().Kind != smt.Bool {
			b.opaque = true
			return x
		}
		return c.Not(x)
	case "Nil", "NoError":
		return isNil(arg(1))
	case "NotNil", "Error":
		return c.Not(isNil(arg(1)))
	}
	b.opaque = true
	return c.Bool(false)
}

func isTestifySite(s *trace.Site) bool {
	pkg, _ := testifyCall(s)
	return pkg != ""
}

// testifyCall returns the testify package s calls, "assert" or "require"
// ("" for none), and whether it calls a method of the package's
// Assertions (`is := assert.New(t); is.Equal(want, got)`), which holds
// the testing.T and takes the assertion's arguments alone.
func testifyCall(s *trace.Site) (pkg string, method bool) {
	const mod = "github.com/stretchr/testify/"
	for _, p := range []string{"assert", "require"} {
		switch {
		case strings.HasPrefix(s.Callee, mod+p+"."):
			return p, false
		case strings.HasPrefix(s.Callee, "(*"+mod+p+".Assertions)."):
			return p, true
		}
	}
	return "", false
}

// assertArgs are the expressions of a testify call's arguments, the
// testing.T first: for a method of Assertions, which has none, that place
// is nil.
func assertArgs(s *trace.Site) []*trace.Expr {
	if _, method := testifyCall(s); method {
		return append([]*trace.Expr{nil}, s.Exprs...)
	}
	return s.Exprs
}

// assertionHeld evaluates a modelled testify predicate on the values the
// call's arguments were recorded with; known is false when a value is
// missing or not comparable from its record.
func (a *Analysis) assertionHeld(i int, site *trace.Site) (held, known bool) {
	name, ok := assertPred(site)
	if !ok {
		return false, false
	}
	types := map[int]trace.Type{}
	args := assertArgs(site)
	arg := func(k int) (trace.Value, bool) {
		if k >= len(args) || args[k] == nil {
			return trace.Value{}, false
		}
		e := args[k]
		for e.Op == trace.ExprConv && e.Type.Kind == trace.TypeInterface && e.X != nil {
			e = e.X
		}
		types[k] = e.Type
		switch e.Op {
		case trace.ExprConst:
			return e.Const, e.Const.Kind != trace.ValNone
		case trace.ExprRead, trace.ExprCall:
			it, ok := a.tr.Event(i).Read(e.Slot)
			return it.Value, ok && it.Value.Kind != trace.ValNone
		}
		return trace.Value{}, false
	}
	switch name {
	case "Equal", "EqualValues", "NotEqual":
		x, okx := arg(1)
		y, oky := arg(2)
		// Equal compares the dynamic types too: values of different
		// types are unequal whatever their bits.
		if !okx || !oky || name != "EqualValues" && types[1] != types[2] {
			return false, false
		}
		eq, known := sameValue(x, y)
		if !known {
			return false, false
		}
		return eq == (name != "NotEqual"), true
	case "True", "False":
		x, ok := arg(1)
		if !ok || x.Kind != trace.ValBool {
			return false, false
		}
		return x.Bool() == (name == "True"), true
	case "Nil", "NoError", "NotNil", "Error":
		x, ok := arg(1)
		if !ok {
			return false, false
		}
		switch x.Kind {
		case trace.ValPointer, trace.ValSlice, trace.ValIface:
		default:
			return false, false
		}
		return x.Nil == (name == "Nil" || name == "NoError"), true
	}
	return false, false
}

// sameValue compares two recorded values where the record decides it:
// booleans, integers and strings (by length and hash).
func sameValue(x, y trace.Value) (eq, known bool) {
	num := func(v trace.Value) bool {
		return v.Kind == trace.ValInt || v.Kind == trace.ValUint || v.Kind == trace.ValBool
	}
	switch {
	case num(x) && num(y):
		return x.Bits == y.Bits, true
	case x.Kind == trace.ValString && y.Kind == trace.ValString:
		return x.Len == y.Len && x.Hash == y.Hash, true
	}
	return false, false
}
