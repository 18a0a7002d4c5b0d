package smt

import (
	"context"
	"errors"
	"fmt"
	"go/token"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// checkMinimal verifies that hard ∧ core is UNSAT and that dropping any
// one core clause makes it SAT.
func checkMinimal(t *testing.T, c *Context, hard, soft []Term, core []int) {
	t.Helper()
	ctx := context.Background()
	pick := func(skip int) []Term {
		cl := slices.Clone(hard)
		for _, i := range core {
			if i != skip {
				cl = append(cl, soft[i])
			}
		}
		return cl
	}
	if sat, err := c.Check(ctx, pick(-1)...); err != nil || sat {
		t.Fatalf("core %v: sat=%v err=%v, want UNSAT", core, sat, err)
	}
	for _, i := range core {
		if sat, err := c.Check(ctx, pick(i)...); err != nil || !sat {
			t.Errorf("core %v without %d: sat=%v err=%v, want SAT", core, i, sat, err)
		}
	}
}

func must(t *testing.T) func(Term, error) Term {
	return func(x Term, err error) Term {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
}

// TestCoreAfterExample encodes the trace formula of the AFTER paper's
// running example (head revision, F(3, 1, 2) returns 4, the test wants 5).
func TestCoreAfterExample(t *testing.T) {
	c := NewContext(Limits{})
	m := must(t)
	i64 := IntSort(64, true)
	v := func(name string) Term { return c.Var(name, i64) }
	k := func(n int64) Term { return c.Const(i64, uint64(n)) }
	sorted0 := c.Var("sorted#0", BoolSort)
	x, y, z := v("x#0"), v("y#0"), v("z#0")
	sum0, sum1, sum2, ret, got := v("sum#0"), v("sum#1"), v("sum#2"), v("ret#0"), v("got#0")
	names := []string{"sorted=false", "x=3", "y=1", "z=2", "sum=0", "!sorted", "x<y false", "sum=y", "z>0", "sum+=z+1", "return sum", "got=F()"}
	soft := []Term{
		m(c.Eq(sorted0, c.Bool(false))),
		m(c.Eq(x, k(3))),
		m(c.Eq(y, k(1))),
		m(c.Eq(z, k(2))),
		m(c.Eq(sum0, k(0))),
		m(c.Eq(c.Not(sorted0), c.Bool(true))),
		m(c.Eq(m(c.Binary(token.LSS, x, y)), c.Bool(false))),
		m(c.Eq(sum1, y)),
		m(c.Eq(m(c.Binary(token.GTR, z, k(0))), c.Bool(true))),
		m(c.Eq(sum2, m(c.Binary(token.ADD, sum1, m(c.Binary(token.ADD, z, k(1))))))),
		m(c.Eq(ret, sum2)),
		m(c.Eq(got, ret)),
	}
	// The target got != 5 was observed true; the hard clause negates it.
	hard := []Term{m(c.Eq(m(c.Binary(token.NEQ, got, k(5))), c.Bool(false)))}
	core, err := c.MinimalCore(context.Background(), hard, soft)
	if err != nil {
		t.Fatal(err)
	}
	var gotNames []string
	for _, i := range core.Soft {
		gotNames = append(gotNames, names[i])
	}
	want := []string{"y=1", "z=2", "sum=y", "sum+=z+1", "return sum", "got=F()"}
	if diff := cmp.Diff(want, gotNames); diff != "" {
		t.Errorf("core (-want +got):\n%s", diff)
	}
	if !core.Minimal || core.Calls == 0 {
		t.Errorf("Minimal=%v Calls=%d", core.Minimal, core.Calls)
	}
	t.Logf("core of %d clauses out of %d in %d solver calls", len(core.Soft), len(soft), core.Calls)
	checkMinimal(t, c, hard, soft, core.Soft)
}

func TestCoreHandBuilt(t *testing.T) {
	c := NewContext(Limits{})
	b := func(s string) Term { return c.Var(s, BoolSort) }
	a, bb, d, e := b("a"), b("b"), b("d"), b("e")
	tests := []struct {
		name string
		hard []Term
		soft []Term
		want []int // nil: any minimal core
		sat  bool
	}{
		{name: "chain", soft: []Term{a, c.Implies(a, bb), d, c.Implies(bb, e), c.Not(e)}, want: []int{0, 1, 3, 4}},
		{name: "two cores", soft: []Term{a, d, c.Not(a), e, c.Not(d)}},
		{name: "hard alone unsat", hard: []Term{a, c.Not(a)}, soft: []Term{d}, want: []int{}},
		{name: "hard and one", hard: []Term{a}, soft: []Term{d, e, c.Not(a)}, want: []int{2}},
		{name: "satisfiable", soft: []Term{a, d}, sat: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			core, err := c.MinimalCore(context.Background(), tt.hard, tt.soft)
			if tt.sat {
				if !errors.Is(err, ErrSatisfiable) {
					t.Fatalf("err = %v, want ErrSatisfiable", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.want != nil {
				if diff := cmp.Diff(tt.want, core.Soft, cmpEmpty); diff != "" {
					t.Errorf("core (-want +got):\n%s", diff)
				}
			}
			checkMinimal(t, c, tt.hard, tt.soft, core.Soft)
		})
	}
}

var cmpEmpty = cmp.Transformer("nilToEmpty", func(s []int) []int {
	if s == nil {
		return []int{}
	}
	return s
})

// TestCoreRandom checks minimality on random unsatisfiable bit-vector
// formulas of the shape the trace formula has: equalities and bounds.
func TestCoreRandom(t *testing.T) {
	c := NewContext(Limits{})
	m := must(t)
	r := rand.New(rand.NewPCG(3, 4))
	s := IntSort(8, true)
	for n := range 20 {
		vars := make([]Term, 5)
		for i := range vars {
			vars[i] = c.Var(fmt.Sprintf("r%d_%d", n, i), s)
		}
		var soft []Term
		for range 12 {
			x, y := vars[r.IntN(len(vars))], vars[r.IntN(len(vars))]
			k := c.Const(s, uint64(r.IntN(20)))
			ops := []token.Token{token.LSS, token.GTR, token.EQL, token.NEQ}
			soft = append(soft, m(c.Binary(ops[r.IntN(len(ops))], m(c.Binary(token.ADD, x, k)), y)))
		}
		core, err := c.MinimalCore(context.Background(), nil, soft)
		if errors.Is(err, ErrSatisfiable) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		checkMinimal(t, c, nil, soft, core.Soft)
	}
}

func TestDoRecoversZ3Errors(t *testing.T) {
	c := NewContext(Limits{})
	err := c.Do(func() {
		// Extracting bits beyond the width is a Z3 sort error.
		x := c.Var("w", IntSort(8, false))
		_ = x.bv().Extract(20, 0)
	})
	if err == nil {
		t.Fatal("no error from an invalid extract")
	}
}

func TestCanceled(t *testing.T) {
	c := NewContext(Limits{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Check(ctx, c.Bool(true)); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}
