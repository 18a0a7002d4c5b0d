// Package stats holds the statistics that judge a flaky test: confidence
// bounds for a failure rate measured in repeated runs, and the sequential
// probability ratio test (SPRT) that decides, run by run, whether a variant
// fails like head or passes like base.
//
// Decisions worth knowing:
//   - Rates get a Wilson score interval, not the normal approximation: with
//     a few dozen runs and rates near 0 or 1 the normal interval leaves
//     [0, 1] and is too narrow.
//   - For zero failures in n runs the one-sided bound is exact:
//     1 − α^{1/n} (about 3/n at α = 0.05).
//   - The SPRT's thresholds are Wald's: ln((1−β)/α) and ln(β/(1−α)).
package stats

import "math"

// Z95 is the two-sided 95 % normal quantile.
const Z95 = 1.959963984540054

// Interval is a closed range of rates.
type Interval struct {
	Lo, Hi float64
}

// HalfWidth is half the interval's length.
func (i Interval) HalfWidth() float64 { return (i.Hi - i.Lo) / 2 }

// Rate is failures/runs, 0 for no runs.
func Rate(failures, runs int) float64 {
	if runs <= 0 {
		return 0
	}
	return float64(failures) / float64(runs)
}

// Wilson is the Wilson score interval for failures in runs at normal
// quantile z (Z95 for 95 %). With no runs it is [0, 1].
func Wilson(failures, runs int, z float64) Interval {
	if runs <= 0 {
		return Interval{0, 1}
	}
	n := float64(runs)
	p := float64(failures) / n
	z2 := z * z
	den := 1 + z2/n
	mid := (p + z2/(2*n)) / den
	half := z / den * math.Sqrt(p*(1-p)/n+z2/(4*n*n))
	return Interval{Lo: math.Max(0, mid-half), Hi: math.Min(1, mid+half)}
}

// ZeroUpper is the exact one-sided upper bound, at error alpha, of a rate
// that gave no failure in runs: 1 − alpha^{1/runs}. With no runs it is 1.
func ZeroUpper(runs int, alpha float64) float64 {
	if runs <= 0 {
		return 1
	}
	return 1 - math.Pow(alpha, 1/float64(runs))
}

// RunsToRuleOut is the number of passing runs in a row that a rate of at
// least p would give with probability at most alpha: the least n with
// (1−p)^n ≤ alpha. It is 0 when p ≤ 0 or p ≥ 1 has no meaning here (p ≤ 0
// can never be ruled out; the caller must check), and 1 for p ≥ 1.
func RunsToRuleOut(p, alpha float64) int {
	switch {
	case p <= 0:
		return 0
	case p >= 1:
		return 1
	}
	return int(math.Ceil(math.Log(alpha)/math.Log(1-p) - 1e-9))
}

// Decision is an SPRT's verdict so far.
type Decision int

const (
	Undecided Decision = iota
	Fails              // the rate is head-like (H1 accepted)
	Passes             // the rate is base-like (H0 accepted)
)

func (d Decision) String() string {
	switch d {
	case Fails:
		return "fails"
	case Passes:
		return "passes"
	}
	return "undecided"
}

// SPRT tests H0: rate = P0 (base-like) against H1: rate = P1 (head-like),
// with Alpha the chance of calling a base-like variant failing and Beta
// the chance of calling a head-like variant passing.
type SPRT struct {
	P0, P1      float64
	Alpha, Beta float64
}

// NewSPRT is the test of the noisy revert search (FLAKY.md §5): P1 is
// head's lower rate bound, P0 = min(0.005, P1/20), α = 0.05, β = 0.01. A
// false pass misleads the search; a false fail only costs a split.
func NewSPRT(headLower float64) SPRT {
	return SPRT{P0: math.Min(0.005, headLower/20), P1: headLower, Alpha: 0.05, Beta: 0.01}
}

// LLR is the log-likelihood ratio of H1 to H0 after failures in runs.
func (s SPRT) LLR(failures, runs int) float64 {
	f, n := float64(failures), float64(runs)
	return f*math.Log(s.P1/s.P0) + (n-f)*math.Log((1-s.P1)/(1-s.P0))
}

// Decide is the verdict after failures in runs.
func (s SPRT) Decide(failures, runs int) Decision {
	l := s.LLR(failures, runs)
	switch {
	case l >= math.Log((1-s.Beta)/s.Alpha):
		return Fails
	case l <= math.Log(s.Beta/(1-s.Alpha)):
		return Passes
	}
	return Undecided
}

// PassesNeeded is how many passing runs in a row decide Passes.
func (s SPRT) PassesNeeded() int {
	for n := 1; ; n++ {
		if s.Decide(0, n) == Passes {
			return n
		}
	}
}
