package smt

import (
	"go/token"
	"math"
	"math/rand/v2"
	"testing"
)

type integer interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64
}

// goBinary computes x op y in Go; ok is false where Go panics.
func goBinary[T integer](op token.Token, x, y T) (r T, b, isBool, ok bool) {
	switch op {
	case token.ADD:
		return x + y, false, false, true
	case token.SUB:
		return x - y, false, false, true
	case token.MUL:
		return x * y, false, false, true
	case token.QUO:
		if y == 0 {
			return 0, false, false, false
		}
		return x / y, false, false, true
	case token.REM:
		if y == 0 {
			return 0, false, false, false
		}
		return x % y, false, false, true
	case token.AND:
		return x & y, false, false, true
	case token.OR:
		return x | y, false, false, true
	case token.XOR:
		return x ^ y, false, false, true
	case token.AND_NOT:
		return x &^ y, false, false, true
	case token.EQL:
		return 0, x == y, true, true
	case token.NEQ:
		return 0, x != y, true, true
	case token.LSS:
		return 0, x < y, true, true
	case token.LEQ:
		return 0, x <= y, true, true
	case token.GTR:
		return 0, x > y, true, true
	case token.GEQ:
		return 0, x >= y, true, true
	}
	panic("unknown operator " + op.String())
}

var binaryOps = []token.Token{
	token.ADD, token.SUB, token.MUL, token.QUO, token.REM, token.AND, token.OR,
	token.XOR, token.AND_NOT, token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ,
}

// checkBinary compares Binary against Go on one pair of T values.
func checkBinary[T integer](t *testing.T, c *Context, s Sort, op token.Token, x, y T) {
	t.Helper()
	want, wantB, isBool, ok := goBinary(op, x, y)
	if !ok {
		return
	}
	got, err := c.Binary(op, c.Const(s, uint64(x)), c.Const(s, uint64(y)))
	if err != nil {
		t.Fatalf("%v %v %v: %v", x, op, y, err)
	}
	v, lit := c.Simplify(got).Value()
	if !lit {
		t.Fatalf("%v %v %v: not a literal: %v", x, op, y, got)
	}
	if isBool {
		if (v == 1) != wantB {
			t.Errorf("%s: %v %v %v = %v, want %v", s, x, op, y, v == 1, wantB)
		}
		return
	}
	if T(v) != want {
		t.Errorf("%s: %v %v %v = %v, want %v", s, x, op, y, T(v), want)
	}
}

func TestBinaryTable(t *testing.T) {
	c := NewContext(Limits{})
	for _, op := range binaryOps {
		for _, p := range [][2]int8{{7, 2}, {-7, 2}, {7, -2}, {-7, -2}, {math.MinInt8, -1}, {127, 1}, {-128, 1}, {0, 5}, {3, 0}} {
			checkBinary(t, c, IntSort(8, true), op, p[0], p[1])
		}
		for _, p := range [][2]uint8{{7, 2}, {255, 1}, {0, 1}, {200, 100}, {1, 255}} {
			checkBinary(t, c, IntSort(8, false), op, p[0], p[1])
		}
		for _, p := range [][2]int64{{-7, 2}, {math.MinInt64, -1}, {math.MaxInt64, 1}, {math.MinInt64, 3}, {-1, math.MaxInt64}} {
			checkBinary(t, c, IntSort(64, true), op, p[0], p[1])
		}
		for _, p := range [][2]uint64{{math.MaxUint64, 1}, {math.MaxUint64, 7}, {1 << 63, 3}} {
			checkBinary(t, c, IntSort(64, false), op, p[0], p[1])
		}
	}
}

func TestBinaryFuzz(t *testing.T) {
	c := NewContext(Limits{})
	r := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		op := binaryOps[r.IntN(len(binaryOps))]
		switch r.IntN(4) {
		case 0:
			checkBinary(t, c, IntSort(8, true), op, int8(r.Uint64()), int8(r.Uint64()))
		case 1:
			checkBinary(t, c, IntSort(16, false), op, uint16(r.Uint64()), uint16(r.Uint64()))
		case 2:
			checkBinary(t, c, IntSort(32, true), op, int32(r.Uint64()), int32(r.Uint64()>>r.IntN(32)))
		case 3:
			checkBinary(t, c, IntSort(64, true), op, int64(r.Uint64()), int64(r.Uint64()>>r.IntN(64)))
		}
	}
}

func TestShift(t *testing.T) {
	c := NewContext(Limits{})
	type tc struct {
		name  string
		x     Term
		op    token.Token
		count Term
		want  uint64
	}
	i8 := IntSort(8, true)
	u8 := IntSort(8, false)
	u64 := IntSort(64, false)
	i32 := IntSort(32, true)
	m8 := func(v int8) uint64 { return uint64(uint8(v)) }
	tests := []tc{
		{"int8 << 3", c.Const(i8, 1), token.SHL, c.Const(u8, 3), m8(int8(1) << 3)},
		{"int8 << 8", c.Const(i8, 1), token.SHL, c.Const(u8, 8), 0},
		{"int8 -3 >> 1", c.Const(i8, m8(-3)), token.SHR, c.Const(u8, 1), m8(-3 >> 1)},
		{"int8 -3 >> 200", c.Const(i8, m8(-3)), token.SHR, c.Const(u8, 200), m8(-1)},
		{"uint8 200 >> 9", c.Const(u8, 200), token.SHR, c.Const(u8, 9), 0},
		{"int8 << uint64 1<<32", c.Const(i8, 1), token.SHL, c.Const(u64, 1<<32), 0},
		{"int8 -5 >> uint64 1<<40", c.Const(i8, m8(-5)), token.SHR, c.Const(u64, 1<<40), m8(-1)},
		{"int8 -64 >> uint64 2", c.Const(i8, m8(-64)), token.SHR, c.Const(u64, 2), m8(-16)},
		{"int32 << int8 4", c.Const(i32, 3), token.SHL, c.Const(i8, 4), 48},
		{"uint64 >> uint8 63", c.Const(u64, 1<<63), token.SHR, c.Const(u8, 63), 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := c.Binary(tt.op, tt.x, tt.count)
			if err != nil {
				t.Fatal(err)
			}
			v, ok := c.Simplify(got).Value()
			if !ok || v != tt.want {
				t.Errorf("got %d (literal %v), want %d", v, ok, tt.want)
			}
		})
	}
}

func TestUnaryConvert(t *testing.T) {
	c := NewContext(Limits{})
	i8, u16, i64 := IntSort(8, true), IntSort(16, false), IntSort(64, true)
	eval := func(t *testing.T, x Term, err error) uint64 {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		v, ok := c.Simplify(x).Value()
		if !ok {
			t.Fatalf("not a literal: %v", x)
		}
		return v
	}
	neg, err := c.Unary(token.SUB, c.Const(i8, uint64(uint8(math.MaxUint8&(1<<7)))))
	if got := int8(eval(t, neg, err)); got != math.MinInt8 {
		t.Errorf("-MinInt8 = %d", got)
	}
	com, err := c.Unary(token.XOR, c.Const(u16, 5))
	if got := uint16(eval(t, com, err)); got != ^uint16(5) {
		t.Errorf("^5 = %d", got)
	}
	ext, err := c.Convert(c.Const(i8, uint64(uint8(0xfe))), i64)
	if got := int64(eval(t, ext, err)); got != -2 {
		t.Errorf("int64(int8(-2)) = %d", got)
	}
	zext, err := c.Convert(c.Const(u16, 0xfffe), i64)
	if got := int64(eval(t, zext, err)); got != 0xfffe {
		t.Errorf("int64(uint16(0xfffe)) = %d", got)
	}
	tr, err := c.Convert(c.Const(i64, 0x1ff), i8)
	if got := int8(eval(t, tr, err)); got != -1 {
		t.Errorf("int8(0x1ff) = %d", got)
	}
	if _, err := c.Binary(token.ADD, c.Const(i8, 1), c.Const(u16, 1)); err == nil {
		t.Error("int8 + uint16: no error")
	}
}
