package semantic

import (
	"errors"

	"github.com/culprit-dev/culprit/analyzer/smt"
	"github.com/culprit-dev/culprit/analyzer/trace"
)

// Target is a predicate to explain: a branch with its observed outcome,
// or the failing assertion.
type Target struct {
	// Event is the branch or failure event.
	Event int
	// Outcome is "true" or "false" for a branch, the failure kind for the
	// failing assertion ("failed", "panic").
	Outcome string
	// Failure is the failure event for the root target, -1 otherwise.
	Failure int
	// pred says how to negate the target; via is the cause whose critical
	// predicate it is.
	pred predKind
	via  *Cause
}

type predKind uint8

const (
	predBranch   predKind = iota // [[cond]] = ¬outcome
	predObserved                 // not all of the event's reads as observed
	predNone                     // nothing to negate: the statement alone
	predAssert                   // a testify predicate that failed: assert it
	predImplicit                 // a runtime panic's implicit check over locals
	predNilDeref                 // a nil dereference: the pointer read last was nil
)

// negate returns the negation of t's predicate and the events it reads.
func (a *Analysis) negate(t Target) (neg smt.Term, deps []int, err error) {
	var bad error
	err = a.c.Do(func() {
		b := &builder{f: a.f, ev: t.Event}
		ev := a.tr.Event(t.Event)
		site := a.tr.SiteOf(t.Event)
		if t.pred == predImplicit {
			// The statement panics again whenever the locals its check
			// reads have their observed values: point-wise.
			var obs []smt.Term
			for _, d := range a.implicitLocals(t.Event) {
				w := a.tr.Event(d[0]).Writes[d[1]]
				x := a.f.defVar(d[0], w.Slot)
				eq, err := a.c.Eq(x, a.c.Const(x.Sort(), code(w.Value)))
				if err != nil {
					bad = err
					return
				}
				obs = append(obs, eq)
				deps = append(deps, d[0])
			}
			a.f.pointWise++
			neg = a.c.Not(a.c.And(obs...))
			return
		}
		if t.pred == predNilDeref {
			np, _ := a.nilDeref(t.Event)
			var p smt.Term
			if np.read >= 0 {
				it := ev.Reads[np.read]
				o, _ := a.f.operand(t.Event, it.Slot)
				p = b.read(it.Slot, o.Type)
			} else {
				p = a.f.defVar(np.def, a.tr.Event(np.def).Writes[np.k].Slot)
				b.deps = append(b.deps, np.def)
			}
			eq, err := a.c.Eq(p, a.c.Const(p.Sort(), 0))
			if err != nil {
				bad = err
				return
			}
			neg, deps = a.c.Not(eq), b.deps
			return
		}
		if h := a.rangeHeader(t.Event); h >= 0 {
			// Iteration k of a range over a slice or string happened
			// because the ranged value was long enough: point-wise, it
			// would not have happened unless that value were as observed.
			b = &builder{f: a.f, ev: h}
			if obs := b.observed(); len(obs) > 0 {
				a.f.pointWise++
				neg, deps = a.c.Not(a.c.And(obs...)), b.deps
				return
			}
			b = &builder{f: a.f, ev: t.Event}
		}
		if t.pred == predBranch && len(ev.Values) > 0 && ev.Values[0].Kind == trace.ValBool && len(site.Exprs) > 0 && site.Kind != trace.SiteRange {
			cond := b.expr(site.Exprs[0])
			if !b.opaque {
				neg, bad = a.c.Eq(cond, a.c.Bool(!ev.Values[0].Bool()))
				deps = b.deps
				return
			}
			a.f.pointWise++
		}
		if name, ok := assertPred(site); ok && t.pred == predAssert {
			holds := b.assertHolds(name, assertArgs(site))
			if !b.opaque && holds.Sort().Kind == smt.Bool {
				neg, deps = holds, b.deps
				return
			}
			a.f.pointWise++
		}
		b = &builder{f: a.f, ev: t.Event}
		obs := b.observed()
		if len(obs) == 0 {
			bad = errors.New("it reads nothing the run could have changed")
			return
		}
		neg, deps = a.c.Not(a.c.And(obs...)), b.deps
	})
	if err == nil {
		err = bad
	}
	return neg, dedup(deps), err
}

// rangeHeader returns, for an iteration event i of a range loop, the event
// that recorded the ranged value before the loop's first iteration, or -1.
func (a *Analysis) rangeHeader(i int) int {
	ev := a.tr.Event(i)
	if ev.Kind != trace.EvBranch || a.tr.SiteOf(i).Kind != trace.SiteRange {
		return -1
	}
	for _, j := range a.idx.before(ev.Frame, i) {
		e := a.tr.Event(j)
		if e.Site == ev.Site && e.Kind == trace.EvAssign {
			return j
		}
	}
	return -1
}
