package smt

import (
	"context"
	"fmt"
	"go/token"
	"runtime/debug"
	"testing"
)

// mulChain returns a formula whose core search makes Z3 bit-blast 64-bit
// multiplications: x_k+1 = x_k*x_k + k from x_0 = 3, soft, and the hard
// negation of the last value. Every clause is in the core.
func mulChain(t *testing.T, c *Context, n int) (hard, soft []Term) {
	t.Helper()
	m := must(t)
	u64 := IntSort(64, false)
	x := c.Var("x0", u64)
	soft = append(soft, m(c.Eq(x, c.Const(u64, 3))))
	want := uint64(3)
	for k := 1; k <= n; k++ {
		next := c.Var(fmt.Sprintf("x%d", k), u64)
		sq := m(c.Binary(token.MUL, x, x))
		sum := m(c.Binary(token.ADD, sq, c.Const(u64, uint64(k))))
		soft = append(soft, m(c.Eq(next, sum)))
		want = want*want + uint64(k)
		x = next
	}
	hard = []Term{c.Not(m(c.Eq(x, c.Const(u64, want))))}
	return hard, soft
}

// TestCoreReleasesSolver runs many core searches with Go's collector off:
// Z3's memory must not grow with their number, since each search resets
// its solver when it returns instead of waiting for a finaliser.
func TestCoreReleasesSolver(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	c := NewContext(Limits{})
	hard, soft := mulChain(t, c, 3)
	ctx := context.Background()
	search := func() {
		t.Helper()
		core, err := c.MinimalCore(ctx, hard, soft)
		if err != nil {
			t.Fatal(err)
		}
		if len(core.Soft) != len(soft) {
			t.Fatalf("core %v, want all %d clauses", core.Soft, len(soft))
		}
	}
	search() // the terms and Z3's caches of the context
	// Signed: Z3 may hold less after a search than before it (it frees
	// caches of its own).
	allocated := func() int64 { return int64(Allocated()) }
	before := allocated()
	search()
	one := max(allocated()-before, 0)
	const n = 5
	for range n {
		search()
	}
	grown := allocated() - before
	t.Logf("Z3 memory: %d bytes after the first search, %d more after one, %d after %d more", before, one, grown, n+1)
	// A search that kept its solver would leave its bit-blasted clauses
	// behind (tens of MB here); one that resets it leaves only its
	// selector literals (tens of KB).
	if grown > 4*one+1<<20 {
		t.Errorf("Z3 memory grew by %d bytes over %d core searches (%d after one): the solvers were not released", grown, n+1, one)
	}
}
