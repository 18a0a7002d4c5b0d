package smt

import (
	"fmt"
	"go/token"

	"github.com/aclements/go-z3/z3"
)

// Binary returns x op y with Go's semantics for operands of the given
// sorts. Arithmetic wraps around; / and % truncate toward zero (Z3's
// bvsdiv/bvsrem agree with Go, including MinInt / -1); shifts accept a
// count of any integer sort and yield 0 (or the sign fill for >> on a
// signed operand) once the count reaches the width. Division by zero is
// left to Z3's total semantics: a Go run never observes it, it panics.
//
// An operator Binary does not model is an error; callers fall back to a
// point-wise encoding.
func (c *Context) Binary(op token.Token, x, y Term) (Term, error) {
	if !x.Valid() || !y.Valid() {
		return Term{}, fmt.Errorf("smt: %v on an invalid term", op)
	}
	if op == token.SHL || op == token.SHR {
		if x.sort.Kind != BitVec || y.sort.Kind != BitVec {
			return Term{}, fmt.Errorf("smt: %v on %v and %v", op, x.sort, y.sort)
		}
		return c.shift(op, x, y), nil
	}
	if x.sort.Kind != y.sort.Kind || x.sort.Bits != y.sort.Bits {
		return Term{}, fmt.Errorf("smt: %v on %v and %v", op, x.sort, y.sort)
	}
	if x.sort.Kind == Bool {
		switch op {
		case token.EQL:
			return Term{x.b().Eq(y.b()), BoolSort}, nil
		case token.NEQ:
			return Term{x.b().NE(y.b()), BoolSort}, nil
		case token.LAND:
			return c.And(x, y), nil
		case token.LOR:
			return c.Or(x, y), nil
		}
		return Term{}, fmt.Errorf("smt: %v on booleans", op)
	}
	a, b, s := x.bv(), y.bv(), x.sort
	if !x.sort.Signed || !y.sort.Signed {
		// Mixed signedness cannot come from type-checked Go; treat the
		// pair as unsigned rather than guess.
		s.Signed = false
	}
	switch op {
	case token.ADD:
		return Term{a.Add(b), s}, nil
	case token.SUB:
		return Term{a.Sub(b), s}, nil
	case token.MUL:
		return Term{a.Mul(b), s}, nil
	case token.QUO:
		if s.Signed {
			return Term{a.SDiv(b), s}, nil
		}
		return Term{a.UDiv(b), s}, nil
	case token.REM:
		if s.Signed {
			return Term{a.SRem(b), s}, nil
		}
		return Term{a.URem(b), s}, nil
	case token.AND:
		return Term{a.And(b), s}, nil
	case token.OR:
		return Term{a.Or(b), s}, nil
	case token.XOR:
		return Term{a.Xor(b), s}, nil
	case token.AND_NOT:
		return Term{a.And(b.Not()), s}, nil
	case token.EQL:
		return Term{a.Eq(b), BoolSort}, nil
	case token.NEQ:
		return Term{a.NE(b), BoolSort}, nil
	case token.LSS:
		if s.Signed {
			return Term{a.SLT(b), BoolSort}, nil
		}
		return Term{a.ULT(b), BoolSort}, nil
	case token.LEQ:
		if s.Signed {
			return Term{a.SLE(b), BoolSort}, nil
		}
		return Term{a.ULE(b), BoolSort}, nil
	case token.GTR:
		if s.Signed {
			return Term{a.SGT(b), BoolSort}, nil
		}
		return Term{a.UGT(b), BoolSort}, nil
	case token.GEQ:
		if s.Signed {
			return Term{a.SGE(b), BoolSort}, nil
		}
		return Term{a.UGE(b), BoolSort}, nil
	}
	return Term{}, fmt.Errorf("smt: operator %v on %v", op, x.sort)
}

// shift implements x << y and x >> y. Z3's shifts already yield 0 (or the
// sign fill) for counts at least the width when both operands have the
// same width; a wider count is compared before it is truncated, so that
// e.g. 1<<32 as a uint64 count on an int32 is not taken as 0.
func (c *Context) shift(op token.Token, x, y Term) Term {
	a, n := x.bv(), y.bv()
	wx, wy := x.sort.Bits, y.sort.Bits
	do := func(n z3.BV) Term {
		switch {
		case op == token.SHL:
			return Term{a.Lsh(n), x.sort}
		case x.sort.Signed:
			return Term{a.SRsh(n), x.sort}
		default:
			return Term{a.URsh(n), x.sort}
		}
	}
	switch {
	case wy == wx:
		return do(n)
	case wy < wx:
		// A negative signed count panics in Go, so zero extension is
		// exact for every count a run can observe.
		return do(n.ZeroExtend(wx - wy))
	}
	big := Term{n.UGE(c.Const(IntSort(wy, false), uint64(wx)).bv()), BoolSort}
	var overflow Term
	switch {
	case op == token.SHR && x.sort.Signed:
		overflow = Term{a.SRsh(c.Const(IntSort(wx, false), uint64(wx-1)).bv()), x.sort}
	default:
		overflow = c.Const(x.sort, 0)
	}
	return c.Ite(big, overflow, do(n.Extract(wx-1, 0)))
}

// Unary returns op x: -x (wrapping), ^x (bitwise complement), +x, !x.
func (c *Context) Unary(op token.Token, x Term) (Term, error) {
	if !x.Valid() {
		return Term{}, fmt.Errorf("smt: %v on an invalid term", op)
	}
	switch {
	case op == token.NOT && x.sort.Kind == Bool:
		return c.Not(x), nil
	case op == token.ADD && x.sort.Kind == BitVec:
		return x, nil
	case op == token.SUB && x.sort.Kind == BitVec:
		return Term{x.bv().Neg(), x.sort}, nil
	case op == token.XOR && x.sort.Kind == BitVec:
		return Term{x.bv().Not(), x.sort}, nil
	}
	return Term{}, fmt.Errorf("smt: unary %v on %v", op, x.sort)
}

// Convert returns the Go conversion of integer x to sort to: sign or zero
// extension by x's signedness, truncation to a narrower width.
func (c *Context) Convert(x Term, to Sort) (Term, error) {
	if x.sort.Kind != BitVec || to.Kind != BitVec {
		if x.sort.Kind == to.Kind && x.sort.Kind == Bool {
			return x, nil
		}
		return Term{}, fmt.Errorf("smt: conversion of %v to %v", x.sort, to)
	}
	a := x.bv()
	switch {
	case to.Bits == x.sort.Bits:
		return Term{a, to}, nil
	case to.Bits < x.sort.Bits:
		return Term{a.Extract(to.Bits-1, 0), to}, nil
	case x.sort.Signed:
		return Term{a.SignExtend(to.Bits - x.sort.Bits), to}, nil
	default:
		return Term{a.ZeroExtend(to.Bits - x.sort.Bits), to}, nil
	}
}
