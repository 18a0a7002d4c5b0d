package aid

import "math"

// fisherGreater is the one-sided p-value of Fisher's exact test that a
// predicate holding in f of nf failing runs and p of np passing runs is
// more frequent in failing runs than chance allows: the hypergeometric
// probability of f or more of the f+p runs where it holds being failing.
func fisherGreater(f, nf, p, np int) float64 {
	k, n := f+p, nf+np
	if k == 0 {
		return 1
	}
	lo := max(0, k-np)
	hi := min(k, nf)
	sum := 0.0
	for x := max(f, lo); x <= hi; x++ {
		sum += math.Exp(logChoose(nf, x) + logChoose(np, k-x) - logChoose(n, k))
	}
	return math.Min(1, sum)
}

func logChoose(n, k int) float64 {
	if k < 0 || k > n {
		return math.Inf(-1)
	}
	return lgamma(n+1) - lgamma(k+1) - lgamma(n-k+1)
}

func lgamma(n int) float64 {
	v, _ := math.Lgamma(float64(n))
	return v
}
