package smt

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/aclements/go-z3/z3"
)

// Core is a subset of soft clauses that, with the hard clauses, is
// unsatisfiable.
type Core struct {
	// Soft holds the indices of the core's soft clauses, ascending.
	Soft []int
	// Minimal reports whether every clause was shown necessary. It is false
	// when some check came back unknown (e.g. a timeout): such a check
	// keeps its clauses, so the core is still unsatisfiable, only maybe
	// larger than needed.
	Minimal bool
	// Calls is the number of solver checks spent on this core.
	Calls int
}

// MinimalCore returns a minimal unsatisfiable subset of soft with respect to
// hard: hard ∧ core is unsatisfiable and dropping any one clause of the core
// makes it satisfiable. It returns ErrSatisfiable if hard ∧ soft is
// satisfiable.
//
// Each soft clause is guarded by a fresh selector literal (sel → clause)
// asserted once; a subset is checked by asserting its selectors between
// Push and Pop, which lets Z3 keep what it learnt across checks. The subset
// is found with QuickXplain (Junker, AAAI'04), which needs O(k log(n/k))
// checks for a core of k clauses out of n. The solver is reset when the
// search returns, so its memory does not wait for a collection.
func (c *Context) MinimalCore(ctx context.Context, hard, soft []Term) (core *Core, err error) {
	start := c.calls
	defer func() {
		if r := recover(); r != nil {
			core, err = nil, recovered(r)
		}
		if core != nil {
			core.Calls = c.calls - start
		}
	}()
	m := &mus{c: c, s: c.newSolver(), minimal: true}
	// The solver's state (the clauses bit-blasted, what it learnt) is
	// Z3's memory, which Go's collector would free only when it
	// finalises the solver: release it when the search returns.
	defer m.s.Reset()
	for _, h := range hard {
		m.s.Assert(h.b())
	}
	m.sel = make([]z3.Bool, len(soft))
	for i, cl := range soft {
		m.sel[i] = c.z.FreshConst("sel", c.z.BoolSort()).(z3.Bool)
		m.s.Assert(m.sel[i].Implies(cl.b()))
	}
	all := make([]int, len(soft))
	for i := range all {
		all[i] = i
	}
	unsat, err := m.unsat(ctx, all)
	if err != nil {
		if errors.Is(err, ErrUnknown) {
			return nil, fmt.Errorf("checking the whole formula: %w", err)
		}
		return nil, err
	}
	if !unsat {
		return nil, ErrSatisfiable
	}
	d, err := m.qx(ctx, nil, true, all)
	if err != nil {
		return nil, err
	}
	slices.Sort(d)
	return &Core{Soft: d, Minimal: m.minimal}, nil
}

type mus struct {
	c       *Context
	s       *z3.Solver
	sel     []z3.Bool
	minimal bool
}

// unsat reports whether hard ∧ the soft clauses in set is unsatisfiable.
// An unknown answer counts as satisfiable (and marks the result
// non-minimal), so that no clause is dropped without proof.
func (m *mus) unsat(ctx context.Context, set []int) (bool, error) {
	m.s.Push()
	defer m.s.Pop()
	for _, i := range set {
		m.s.Assert(m.sel[i])
	}
	sat, err := m.c.check(ctx, m.s)
	if errors.Is(err, ErrUnknown) {
		m.minimal = false
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return !sat, nil
}

// qx returns a minimal D ⊆ cs such that b ∪ D is unsatisfiable, given that
// b ∪ cs is. changed says whether b grew since the caller last checked it.
func (m *mus) qx(ctx context.Context, b []int, changed bool, cs []int) ([]int, error) {
	if changed {
		unsat, err := m.unsat(ctx, b)
		if err != nil {
			return nil, err
		}
		if unsat {
			return nil, nil
		}
	}
	if len(cs) == 1 {
		return cs, nil
	}
	half := len(cs) / 2
	c1, c2 := cs[:half], cs[half:]
	d2, err := m.qx(ctx, concat(b, c1), true, c2)
	if err != nil {
		return nil, err
	}
	d1, err := m.qx(ctx, concat(b, d2), len(d2) > 0, c1)
	if err != nil {
		return nil, err
	}
	return concat(d1, d2), nil
}

func concat(a, b []int) []int {
	r := make([]int, 0, len(a)+len(b))
	return append(append(r, a...), b...)
}
