// Package smt is a thin layer over the Z3 solver (github.com/aclements/go-z3)
// that speaks Go: terms are booleans or bit-vectors of a Go integer type's
// width and signedness, operators follow the Go specification (wrap-around,
// truncated division, shift counts at least the width), and a minimal
// unsatisfiable core is computed over selector literals, since go-z3 has no
// assumptions or unsat-core API.
//
// A Context is not safe for concurrent use: use one Context per goroutine.
// Terms of one Context must not be mixed with another's.
package smt

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/aclements/go-z3/z3"
)

// Kind is the kind of a Sort.
type Kind uint8

const (
	Bool Kind = iota + 1
	BitVec
)

// Sort is the type of a term: a boolean, or a bit-vector of Bits bits that
// Go arithmetic treats as signed or unsigned.
type Sort struct {
	Kind   Kind
	Bits   int
	Signed bool
}

// BoolSort is the sort of booleans.
var BoolSort = Sort{Kind: Bool}

// IntSort returns the sort of a Go integer type of the given width.
func IntSort(bits int, signed bool) Sort { return Sort{Kind: BitVec, Bits: bits, Signed: signed} }

func (s Sort) String() string {
	switch {
	case s.Kind == Bool:
		return "bool"
	case s.Kind == BitVec && s.Signed:
		return fmt.Sprintf("int%d", s.Bits)
	case s.Kind == BitVec:
		return fmt.Sprintf("uint%d", s.Bits)
	}
	return "invalid"
}

// Term is a boolean or bit-vector expression. The zero Term is invalid.
type Term struct {
	v    z3.Value
	sort Sort
}

// Sort returns t's sort.
func (t Term) Sort() Sort { return t.sort }

// Valid reports whether t was built by a Context.
func (t Term) Valid() bool { return t.v != nil }

func (t Term) String() string {
	if t.v == nil {
		return "<invalid>"
	}
	return t.v.String()
}

func (t Term) b() z3.Bool { return t.v.(z3.Bool) }
func (t Term) bv() z3.BV  { return t.v.(z3.BV) }

// Limits bound a Context's solver calls. The zero value is usable.
type Limits struct {
	// Timeout bounds one solver call (Z3's "timeout" parameter); a call
	// that runs out reports ErrUnknown. Zero means no limit.
	Timeout time.Duration
}

// ErrUnknown is returned when the solver cannot decide a query, for
// example because it ran out of time.
var ErrUnknown = errors.New("smt: solver returned unknown")

// ErrSatisfiable is returned by MinimalCore when the clauses have no
// unsatisfiable core.
var ErrSatisfiable = errors.New("smt: formula is satisfiable")

// Context owns a Z3 context and counts the solver calls made with it.
type Context struct {
	z     *z3.Context
	calls int
}

// NewContext returns a fresh Context.
func NewContext(opt Limits) *Context {
	cfg := z3.NewContextConfig()
	if opt.Timeout > 0 {
		ms := uint(opt.Timeout / time.Millisecond)
		if ms == 0 {
			ms = 1
		}
		cfg.SetUint("timeout", ms)
	}
	return &Context{z: z3.NewContext(cfg)}
}

// Calls returns how many satisfiability checks c has run.
func (c *Context) Calls() int { return c.calls }

// Do runs f, turning a Z3 error (which go-z3 raises as a panic) into an
// error. Term construction that may hit a Z3 error should run under Do.
func (c *Context) Do(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = recovered(r)
		}
	}()
	f()
	return nil
}

func recovered(r any) error {
	switch r := r.(type) {
	case error:
		return fmt.Errorf("smt: z3: %w", r)
	default:
		return fmt.Errorf("smt: z3: %v", r)
	}
}

// Var returns the constant named name of sort s. Equal names give equal
// constants, so callers must make names unique (e.g. by SSA version).
func (c *Context) Var(name string, s Sort) Term {
	if s.Kind == Bool {
		return Term{c.z.BoolConst(name), s}
	}
	return Term{c.z.BVConst(name, s.Bits), s}
}

// Const returns the value of sort s whose bits are v (truncated to the
// width); for a boolean, v != 0 is true.
func (c *Context) Const(s Sort, v uint64) Term {
	if s.Kind == Bool {
		return c.Bool(v != 0)
	}
	if s.Bits < 64 {
		v &= 1<<uint(s.Bits) - 1
	}
	return Term{c.z.FromBigInt(new(big.Int).SetUint64(v), c.z.BVSort(s.Bits)), s}
}

// Bool returns the boolean constant b.
func (c *Context) Bool(b bool) Term { return Term{c.z.FromBool(b), BoolSort} }

// Eq returns x == y. x and y must have the same sort.
func (c *Context) Eq(x, y Term) (Term, error) {
	if x.sort.Kind != y.sort.Kind || x.sort.Bits != y.sort.Bits {
		return Term{}, fmt.Errorf("smt: == on %v and %v", x.sort, y.sort)
	}
	if x.sort.Kind == Bool {
		return Term{x.b().Eq(y.b()), BoolSort}, nil
	}
	return Term{x.bv().Eq(y.bv()), BoolSort}, nil
}

// Not returns !x for a boolean x.
func (c *Context) Not(x Term) Term { return Term{x.b().Not(), BoolSort} }

// And returns the conjunction of xs (true if empty).
func (c *Context) And(xs ...Term) Term {
	if len(xs) == 0 {
		return c.Bool(true)
	}
	rest := make([]z3.Bool, len(xs)-1)
	for i, x := range xs[1:] {
		rest[i] = x.b()
	}
	return Term{xs[0].b().And(rest...), BoolSort}
}

// Or returns the disjunction of xs (false if empty).
func (c *Context) Or(xs ...Term) Term {
	if len(xs) == 0 {
		return c.Bool(false)
	}
	rest := make([]z3.Bool, len(xs)-1)
	for i, x := range xs[1:] {
		rest[i] = x.b()
	}
	return Term{xs[0].b().Or(rest...), BoolSort}
}

// Implies returns x → y.
func (c *Context) Implies(x, y Term) Term { return Term{x.b().Implies(y.b()), BoolSort} }

// Ite returns cond ? x : y; x and y must have the same sort.
func (c *Context) Ite(cond, x, y Term) Term {
	return Term{cond.b().IfThenElse(x.v, y.v), x.sort}
}

// PointWise encodes an operation the caller does not model precisely by
// the one input/output pair observed in the run:
// (operands = observed) → (result = observed). It keeps the dependence of
// the result on its operands and is true of the run.
func (c *Context) PointWise(operands []Term, observed []uint64, result Term, resultObserved uint64) (Term, error) {
	if len(operands) != len(observed) {
		return Term{}, fmt.Errorf("smt: point-wise: %d operands, %d observed values", len(operands), len(observed))
	}
	pre := make([]Term, len(operands))
	for i, o := range operands {
		eq, err := c.Eq(o, c.Const(o.sort, observed[i]))
		if err != nil {
			return Term{}, err
		}
		pre[i] = eq
	}
	post, err := c.Eq(result, c.Const(result.sort, resultObserved))
	if err != nil {
		return Term{}, err
	}
	if len(pre) == 0 {
		return post, nil
	}
	return c.Implies(c.And(pre...), post), nil
}

// Simplify returns t simplified; on terms over constants only it yields a
// literal, which Value reads.
func (c *Context) Simplify(t Term) Term {
	return Term{c.z.Simplify(t.v, nil), t.sort}
}

// Value returns the bits of a literal term (1 or 0 for booleans) and
// whether t is a literal.
func (t Term) Value() (uint64, bool) {
	switch v := t.v.(type) {
	case z3.Bool:
		b, ok := v.AsBool()
		if b {
			return 1, ok
		}
		return 0, ok
	case z3.BV:
		n, ok := v.AsBigUnsigned()
		if !ok {
			return 0, false
		}
		return n.Uint64(), true
	}
	return 0, false
}

// Check reports whether the conjunction of clauses is satisfiable.
func (c *Context) Check(ctx context.Context, clauses ...Term) (sat bool, err error) {
	s := c.newSolver()
	defer s.Reset() // free Z3's state now, not at finalisation
	if err := c.Do(func() {
		for _, cl := range clauses {
			s.Assert(cl.b())
		}
	}); err != nil {
		return false, err
	}
	return c.check(ctx, s)
}

func (c *Context) newSolver() *z3.Solver { return z3.NewSolver(c.z) }

// check runs one satisfiability check on s, interrupting it when ctx is
// done.
func (c *Context) check(ctx context.Context, s *z3.Solver) (sat bool, err error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	c.calls++
	stop := context.AfterFunc(ctx, c.z.Interrupt)
	defer stop()
	defer func() {
		if r := recover(); r != nil {
			sat, err = false, recovered(r)
		}
	}()
	sat, err = s.Check()
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return false, ctxErr
		}
		var unk *z3.ErrSatUnknown
		if errors.As(err, &unk) {
			return false, fmt.Errorf("%w (%s)", ErrUnknown, unk.Reason)
		}
		return false, err
	}
	return sat, nil
}
