package aid

import (
	"cmp"
	"slices"
)

// dag is the approximate causal DAG over the candidates (FLAKY.md §2),
// kept as its transitive closure: reach[i][j] means i ⇝ j. Node len(cs)
// is F. Candidates in one cycle reach each other; mergeCycles folds them
// into one.
type dag struct {
	reach [][]bool
	// order lists the candidates that reach F, earliest first: by how
	// many candidates reach them (an ancestor is reached by strictly
	// fewer), then by mean time.
	order []int
}

// buildDAG draws P→Q iff time(P) < time(Q) in every failing observed run
// where both hold (and there is one), and P→F iff P comes before F in
// every failing run where it holds.
func buildDAG(ob *Observation, cs []*Candidate) *dag {
	n := len(cs)
	reach := make([][]bool, n+1)
	for i := range reach {
		reach[i] = make([]bool, n+1)
	}
	time := func(i, k int) int {
		if i == n {
			return ob.runs[k].x.end
		}
		return cs[i].times[k]
	}
	mean := make([]float64, n)
	for i := range n + 1 {
		for j := range n + 1 {
			if i == j || i == n {
				continue
			}
			both, before := 0, 0
			for k, o := range ob.runs {
				if !o.failing {
					continue
				}
				ti, tj := time(i, k), time(j, k)
				if ti < 0 || tj < 0 {
					continue
				}
				both++
				if ti < tj {
					before++
				}
			}
			reach[i][j] = both > 0 && before == both
		}
	}
	for i := range n {
		m := 0
		for k, o := range ob.runs {
			if o.failing && cs[i].times[k] >= 0 {
				mean[i] += float64(cs[i].times[k])
				m++
			}
		}
		if m > 0 {
			mean[i] /= float64(m)
		}
	}
	for k := range n + 1 {
		for i := range n + 1 {
			if !reach[i][k] {
				continue
			}
			for j := range n + 1 {
				if reach[k][j] {
					reach[i][j] = true
				}
			}
		}
	}
	d := &dag{reach: reach}
	ancestors := make([]int, n)
	for i := range n {
		if reach[i][n] {
			d.order = append(d.order, i)
		}
		for j := range n {
			if j != i && reach[j][i] {
				ancestors[i]++
			}
		}
	}
	slices.SortStableFunc(d.order, func(a, b int) int {
		if c := cmp.Compare(ancestors[a], ancestors[b]); c != 0 {
			return c
		}
		return cmp.Compare(mean[a], mean[b])
	})
	return d
}

// ancestorOf reports whether q ⇝ p for some p in ps.
func (d *dag) ancestorOf(q int, ps []int) bool {
	for _, p := range ps {
		if d.reach[q][p] {
			return true
		}
	}
	return false
}

// mergeCycles folds each cycle of the order into its earliest member: the
// others' predicates join its Merged, their items its Item (one spec makes
// them all false), and they leave the order. Only approx candidates can
// form a cycle.
func (d *dag) mergeCycles(cs []*Candidate) {
	gone := map[int]bool{}
	for k, i := range d.order {
		if gone[i] {
			continue
		}
		for _, j := range d.order[k+1:] {
			if gone[j] || !d.reach[i][j] || !d.reach[j][i] {
				continue
			}
			gone[j] = true
			c, o := cs[i], cs[j]
			c.Merged = append(append(c.Merged, o.Pred), o.Merged...)
			c.Approx = true
			switch {
			case c.Item == "":
				c.Item = o.Item
			case o.Item != "":
				c.Item += ";" + o.Item
			}
		}
	}
	d.order = slices.DeleteFunc(d.order, func(i int) bool { return gone[i] })
}
