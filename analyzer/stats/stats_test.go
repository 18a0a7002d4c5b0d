package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) < 5e-3 }

func TestWilson(t *testing.T) {
	for _, tc := range []struct {
		name           string
		failures, runs int
		lo, hi         float64
	}{
		{"design example", 12, 40, 0.181, 0.454},
		{"half", 5, 10, 0.237, 0.763},
		{"none", 0, 20, 0, 0.161},
		{"all", 20, 20, 0.839, 1},
		{"no runs", 0, 0, 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Wilson(tc.failures, tc.runs, Z95)
			if !near(got.Lo, tc.lo) || !near(got.Hi, tc.hi) {
				t.Errorf("Wilson(%d, %d) = %+v, want [%.3f, %.3f]", tc.failures, tc.runs, got, tc.lo, tc.hi)
			}
		})
	}
}

func TestZeroUpperAndRunsToRuleOut(t *testing.T) {
	if got := ZeroUpper(24, 0.01); !near(got, 0.1745) {
		t.Errorf("ZeroUpper(24, 0.01) = %.4f", got)
	}
	if got := ZeroUpper(0, 0.01); got != 1 {
		t.Errorf("ZeroUpper(0) = %v", got)
	}
	for _, tc := range []struct {
		p, alpha float64
		want     int
	}{
		{0.18, 0.01, 24},  // the design's base runs
		{0.18, 0.001, 35}, // the design's proof
		{0.5, 0.01, 7},
		{0, 0.01, 0},
		{1, 0.01, 1},
	} {
		if got := RunsToRuleOut(tc.p, tc.alpha); got != tc.want {
			t.Errorf("RunsToRuleOut(%v, %v) = %d, want %d", tc.p, tc.alpha, got, tc.want)
		}
		if n := RunsToRuleOut(tc.p, tc.alpha); tc.p > 0 && tc.p < 1 && math.Pow(1-tc.p, float64(n)) > tc.alpha {
			t.Errorf("(1-%v)^%d > %v", tc.p, n, tc.alpha)
		}
	}
}

func TestSPRT(t *testing.T) {
	s := NewSPRT(0.18)
	for _, tc := range []struct {
		name           string
		failures, runs int
		want           Decision
	}{
		{"one early failure decides", 1, 1, Fails},
		{"one failure in four", 1, 4, Fails},
		{"23 passes are not enough", 0, 23, Undecided},
		{"24 passes decide", 0, 24, Passes},
		{"nothing yet", 0, 0, Undecided},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := s.Decide(tc.failures, tc.runs); got != tc.want {
				t.Errorf("Decide(%d, %d) = %v (LLR %.2f), want %v", tc.failures, tc.runs, got, s.LLR(tc.failures, tc.runs), tc.want)
			}
		})
	}
	if got := s.PassesNeeded(); got != 24 {
		t.Errorf("PassesNeeded = %d, want 24", got)
	}
}

// TestSPRTErrorRates checks the test's error rates against a simulated
// runner: head-like variants rarely pass, base-like ones rarely fail.
func TestSPRTErrorRates(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	s := NewSPRT(0.18)
	decide := func(p float64) Decision {
		f := 0
		for n := 1; n <= 200; n++ {
			if rng.Float64() < p {
				f++
			}
			if d := s.Decide(f, n); d != Undecided {
				return d
			}
		}
		return Undecided
	}
	const trials = 2000
	falsePass, falseFail := 0, 0
	for range trials {
		if decide(0.18) == Passes {
			falsePass++
		}
		if decide(0) == Fails {
			falseFail++
		}
	}
	if falsePass > trials/50 || falseFail != 0 {
		t.Errorf("false passes %d, false fails %d of %d", falsePass, falseFail, trials)
	}
}
