package aid

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/culprit-dev/culprit/analyzer/trace"
)

// Candidate is a selected predicate: discriminative, before F, and the
// representative of the predicates identical to it in every run.
type Candidate struct {
	Pred Pred
	// Merged are the other predicates with the same presence and times in
	// every observed run.
	Merged []Pred
	// Approx marks a candidate that is not fully discriminative but passes
	// recall ≥ 0.9, precision ≥ 0.9 and Fisher's one-sided p < 0.01.
	Approx           bool
	Failing, Passing int     // observed runs where it holds
	P                float64 // Fisher's one-sided p-value
	// Item is the intervention spec item that makes it false, "" when it
	// has none (FLAKY.md §3).
	Item string

	times []int // per observed run: the time, -1 when it does not hold
	dist  float64
}

// Selection thresholds (FLAKY.md §2).
const (
	minRecall    = 0.9
	minPrecision = 0.9
	maxFisherP   = 0.01
)

// selectCandidates picks the pool: fully discriminative and approx
// predicates that never come after F, merged, at most opt.MaxCandidates,
// preferred ones (opt.Prefer) first, then those nearest F.
func (ob *Observation) selectCandidates(opt Bounds) []*Candidate {
	var nf, np int
	seen := map[Pred]bool{}
	guards := map[trace.SiteID]bool{}
	var preds []Pred
	for _, o := range ob.runs {
		if !o.failing {
			np++
			continue
		}
		nf++
		if o.guard != 0 {
			guards[o.guard] = true
		}
		for p := range o.x.preds {
			if !seen[p] {
				seen[p] = true
				preds = append(preds, p)
			}
		}
	}
	slices.SortFunc(preds, comparePred)
	groups := map[string]*Candidate{}
	var out []*Candidate
	for _, p := range preds {
		if (p.Family == Branch || p.Family == Never) && guards[p.Sites[0]] {
			// The failure's own check (got != want) discriminates
			// perfectly and forcing it hides the failure: it explains
			// nothing.
			continue
		}
		c := &Candidate{Pred: p, times: make([]int, len(ob.runs))}
		after := false
		var dist float64
		for k, o := range ob.runs {
			w, ok := o.x.preds[p]
			c.times[k] = -1
			if !ok {
				continue
			}
			c.times[k] = w.Time
			if !o.failing {
				c.Passing++
				continue
			}
			c.Failing++
			if w.Time > o.x.end {
				after = true
			}
			dist += float64(o.x.end - w.Time)
		}
		if after {
			continue
		}
		full := c.Failing == nf && c.Passing == 0
		if !full {
			recall := float64(c.Failing) / float64(nf)
			precision := float64(c.Failing) / float64(c.Failing+c.Passing)
			c.P = fisherGreater(c.Failing, nf, c.Passing, np)
			if recall < minRecall || precision < minPrecision || c.P >= maxFisherP {
				continue
			}
			c.Approx = true
		} else {
			c.P = fisherGreater(c.Failing, nf, c.Passing, np)
		}
		c.dist = dist / float64(c.Failing)
		key := fmt.Sprint(c.times)
		if g := groups[key]; g != nil {
			g.Merged = append(g.Merged, p)
			continue
		}
		groups[key] = c
		out = append(out, c)
	}
	slices.SortStableFunc(out, func(a, b *Candidate) int {
		pa, pb := opt.preferred(a), opt.preferred(b)
		if pa != pb {
			if pa {
				return -1
			}
			return 1
		}
		return cmp.Compare(a.dist, b.dist)
	})
	if len(out) > opt.MaxCandidates {
		out = out[:opt.MaxCandidates]
	}
	return out
}

// preferred reports whether a site of the candidate (or of one merged
// into it) is one the caller prefers.
func (o Bounds) preferred(c *Candidate) bool {
	if o.Prefer == nil {
		return false
	}
	for _, p := range append([]Pred{c.Pred}, c.Merged...) {
		for _, s := range p.Sites[:arity(p.Family)] {
			if s != 0 && o.Prefer(s) {
				return true
			}
		}
	}
	return false
}

// arity is how many of a predicate's sites are statement sites (a
// remote-def's third is a goroutine class).
func arity(f Family) int {
	switch f {
	case Interleave:
		return 3
	case Order, RemoteDef:
		return 2
	}
	return 1
}

// familyRank orders the families a merged group is represented by: the
// most specific and intervenable first.
var familyRank = map[Family]int{Interleave: 0, RemoteDef: 1, Order: 2, Branch: 3, Never: 4, ValueOut: 5, Panic: 6, Overlap: 7}

func comparePred(a, b Pred) int {
	if c := cmp.Compare(familyRank[a.Family], familyRank[b.Family]); c != 0 {
		return c
	}
	for k := range a.Sites {
		if c := cmp.Compare(a.Sites[k], b.Sites[k]); c != 0 {
			return c
		}
	}
	return cmp.Compare(a.Arg, b.Arg)
}

// holds reports whether the candidate holds in an extracted run: any of
// its merged predicates does (they are one fact in the observed runs).
func (c *Candidate) holds(x *extracted) bool {
	if _, ok := x.preds[c.Pred]; ok {
		return true
	}
	for _, p := range c.Merged {
		if _, ok := x.preds[p]; ok {
			return true
		}
	}
	return false
}

// Describe names the candidate's predicate by its sites' positions, for
// notes and tests: "interleave(c.go:12,c.go:15,c.go:15)".
func (p Pred) Describe(sites []trace.Site) string {
	var b strings.Builder
	b.WriteString(p.Family.String())
	b.WriteByte('(')
	for k, s := range p.Sites[:arity(p.Family)] {
		if k > 0 {
			b.WriteByte(',')
		}
		if int(s) < len(sites) {
			fmt.Fprintf(&b, "%s:%d", sites[s].Pos.File, sites[s].Pos.Line)
		}
	}
	switch p.Family {
	case Branch, Never:
		fmt.Fprintf(&b, "=%d", p.Arg)
	}
	b.WriteByte(')')
	return b.String()
}
