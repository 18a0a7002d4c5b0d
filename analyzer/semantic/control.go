package semantic

import (
	"github.com/culprit-dev/culprit/analyzer/trace"
)

// control returns the closest enclosing branch event of event i that i
// does not post-dominate (its dynamic control dependence), looking into
// the calling frames when i's own frame has none; -1 if none.
func (a *Analysis) control(i int) int {
	if b, ok := a.ctl[i]; ok {
		return b
	}
	b := a.controlUncached(i)
	a.ctl[i] = b
	return b
}

func (a *Analysis) controlUncached(i int) int {
	for i >= 0 {
		ev := a.tr.Event(i)
		gp := a.place(a.siteOfStmt(i))
		for _, j := range a.idx.before(ev.Frame, i) {
			bj := a.tr.Event(j)
			if bj.Kind != trace.EvBranch {
				continue
			}
			if k := a.tr.SiteOf(j).Kind; k == trace.SiteAndAnd || k == trace.SiteOrOr {
				// A short-circuit decides part of an expression, not
				// whether a later statement runs.
				continue
			}
			if gp == nil {
				return j // no source: the closest branch is the best guess
			}
			bp := a.place(a.tr.SiteOf(j))
			if bp != nil && !postDominatesBranch(gp, bp) {
				return j
			}
		}
		if ev.Frame == 0 || int(ev.Frame) >= len(a.tr.Frames) {
			return -1
		}
		i = a.tr.Frame(ev.Frame).Call
	}
	return -1
}

// siteOfStmt is the site where event i's statement is written: an entry
// is its call.
func (a *Analysis) siteOfStmt(i int) *trace.Site {
	ev := a.tr.Event(i)
	if ev.Kind == trace.EvEntry && ev.Frame > 0 {
		if c := a.tr.Frame(ev.Frame).Call; c >= 0 {
			return a.tr.SiteOf(c)
		}
	}
	return a.tr.SiteOf(i)
}

func (a *Analysis) place(s *trace.Site) *place {
	if s == nil || s.Pos.File == "" {
		return nil
	}
	if p, ok := a.places[s.ID]; ok {
		return p
	}
	p, err := a.src.find(s.Pos.File, s.Pos.Line, s.Pos.Col)
	if err != nil || p.block == nil {
		p = nil
	}
	a.places[s.ID] = p
	return p
}
