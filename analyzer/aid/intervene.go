package aid

import (
	"fmt"

	"github.com/culprit-dev/culprit/analyzer/trace"
)

// witnessed returns a kept failing trace where the candidate holds, with
// its witness there; nil when no kept trace has it.
func (ob *Observation) witnessed(c *Candidate) (*trace.Trace, Witness) {
	for _, o := range ob.runs {
		if o.tr == nil {
			continue
		}
		for _, p := range append([]Pred{c.Pred}, c.Merged...) {
			if w, ok := o.x.preds[p]; ok {
				return o.tr, w
			}
		}
	}
	return nil, Witness{}
}

// item is the spec item that makes the candidate false (FLAKY.md §3), ""
// when there is none in this version: values, panics, clause choices,
// and forcing a loop condition true (which would never end).
func (ob *Observation) item(c *Candidate) string {
	tr, w := ob.witnessed(c)
	if tr == nil {
		return ""
	}
	p := c.Pred
	switch p.Family {
	case Branch, Never:
		s := tr.Site(p.Sites[0])
		if !boolBranch(s.Kind) || p.Arg < 0 || p.Arg > 1 {
			return ""
		}
		want := p.Arg // never(S,v): make S take v
		if p.Family == Branch {
			want = 1 - p.Arg
		}
		if want == 1 && (s.Kind == trace.SiteFor || s.Kind == trace.SiteRange) {
			return ""
		}
		return fmt.Sprintf("force:%d=%d", p.Sites[0], want)
	case Overlap:
		return fmt.Sprintf("serial:%d", p.Sites[0])
	case Interleave, Order, RemoteDef:
		// Witness events: interleave A1, A', A2; order A, B; remote-def
		// W, R. The first two are on different goroutines.
		if f := commonFunc(tr, tr.Events[w.Events[0]].Frame, tr.Events[w.Events[1]].Frame); f != 0 {
			return fmt.Sprintf("serial:%d", f)
		}
	}
	return ""
}

func boolBranch(k trace.SiteKind) bool {
	switch k {
	case trace.SiteIf, trace.SiteFor, trace.SiteSwitchCase, trace.SiteRange, trace.SiteAndAnd, trace.SiteOrOr:
		return true
	}
	return false
}

// commonFunc is the innermost function on goroutine a's stack at frame a
// that is also on goroutine b's stack at frame b, 0 if none.
//
// One serial item is one mutex, so excluding the two goroutines from each
// other needs one function that both run: the innermost shared one keeps
// the exclusion as narrow as possible (both run `Add` in a lost update;
// the two loops of one `go func` literal share the literal). Serialising
// each witness's own function would give each its own mutex and exclude
// nothing; two goroutines with no function in common (different bodies)
// are left without an intervention here: a lock across two functions, or
// a gate between the accesses, is the runtime's to offer.
func commonFunc(tr *trace.Trace, a, b trace.FrameID) trace.SiteID {
	onB := map[trace.SiteID]bool{}
	for f := b; f != 0; f = tr.Frames[f].Parent {
		onB[tr.Frames[f].Func] = true
	}
	for f := a; f != 0; f = tr.Frames[f].Parent {
		if onB[tr.Frames[f].Func] {
			return tr.Frames[f].Func
		}
	}
	return 0
}
