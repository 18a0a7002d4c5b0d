package analyzer

import (
	"testing"

	"github.com/culprit-dev/culprit/analyzer/stats"
)

// headStop runs the expected path of head's measurement at rate p (the
// failures after n runs are p·n, rounded down), batch runs at a time,
// and returns the runs where head stops, with and without the rule that
// goes on while a batch saves more than it costs.
func headStop(p float64, batch, hunks int, more bool) int {
	for n := batch; n < 2000; n += batch {
		f := int(p * float64(n))
		ci := stats.Wilson(f, n, stats.Z95)
		if f >= minHeadFailures && ci.HalfWidth() <= maxHalfWidth && (!more || !worthMoreHeadRuns(f, n, batch, hunks)) {
			return n
		}
	}
	return 2000
}

func TestWorthMoreHeadRuns(t *testing.T) {
	// otel-lastvalue's head: 5 failures in 26 runs, 32 hunks.
	if !worthMoreHeadRuns(5, 26, 2, 32) {
		t.Errorf("5 failures in 26 runs: more head runs not worth it, want worth it")
	}
	for _, c := range []struct{ f, n int }{{10, 10}, {10, 20}} {
		if worthMoreHeadRuns(c.f, c.n, 2, 32) {
			t.Errorf("%d failures in %d runs: more head runs worth it, want not", c.f, c.n)
		}
	}
	// Along the expected path, the rule never makes the whole cost more,
	// and makes it less at low rates.
	for _, p := range []float64{0.05, 0.1, 0.2, 0.3, 0.5, 0.9} {
		old, now := headStop(p, 2, 32, false), headStop(p, 2, 32, true)
		cost := func(n int) int {
			return n + runsAfterHead(stats.Wilson(int(p*float64(n)), n, stats.Z95).Lo, 32)
		}
		t.Logf("rate %.2f: head stops at %d runs (was %d), runs in all %d (was %d)", p, now, old, cost(now), cost(old))
		if cost(now) > cost(old) {
			t.Errorf("rate %.2f: %d runs in all, %d without the rule", p, cost(now), cost(old))
		}
		if p <= 0.2 && cost(now) >= cost(old) {
			t.Errorf("rate %.2f: %d runs in all, want fewer than %d", p, cost(now), cost(old))
		}
	}
}
