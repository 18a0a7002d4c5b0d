package semantic

import (
	"iter"
	"sort"

	"github.com/culprit-dev/culprit/analyzer/trace"
)

// index holds the lookups the analysis needs over a trace, on top of the
// trace's own def-use index.
type index struct {
	tr *trace.Trace
}

func newIndex(tr *trace.Trace) *index { return &index{tr: tr} }

// before yields the events of frame fr before event i, latest first,
// with their rank (0 for the latest). It walks the frame's own index in
// place: a long frame is not copied for each lookup.
func (x *index) before(fr trace.FrameID, i int) iter.Seq2[int, int] {
	evs := x.tr.FrameEvents(fr)
	k := sort.SearchInts(evs, i)
	return func(yield func(int, int) bool) {
		for j := range k {
			if !yield(j, evs[k-1-j]) {
				return
			}
		}
	}
}

// argCalls returns the Call and CallExt events that follow the failure
// event i in its frame without another statement between: the calls in
// the failing call's arguments, when the failure point is recorded before
// they are evaluated.
func (x *index) argCalls(i int) []int {
	ev := x.tr.Event(i)
	if ev.Kind != trace.EvFail {
		return nil
	}
	evs := x.tr.FrameEvents(ev.Frame)
	var out []int
	for k := sort.SearchInts(evs, i) + 1; k < len(evs); k++ {
		e := x.tr.Event(evs[k])
		if e.Kind != trace.EvCall && e.Kind != trace.EvCallExt {
			break
		}
		out = append(out, evs[k])
	}
	return out
}

// horizon returns the end (exclusive) of the events that happened before
// target's predicate was decided: for a failure point, after the calls in
// its arguments returned.
func (x *index) horizon(target int) int {
	calls := x.argCalls(target)
	if len(calls) == 0 {
		return target
	}
	last := calls[len(calls)-1]
	if e := x.tr.Event(last); e.Kind == trace.EvCall {
		if fr := x.tr.Callee(last); fr != 0 {
			if exit := x.tr.Frame(fr).Exit; exit > last {
				return exit + 1
			}
		}
	}
	return last + 1
}
