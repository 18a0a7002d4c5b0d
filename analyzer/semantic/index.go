package semantic

import (
	"sort"
	"strings"

	"github.com/culprit-dev/culprit/analyzer/trace"
)

// index holds the lookups the analysis needs over a trace. It keeps its
// own definition index rather than the trace's, which only trace.Read
// fills in, so that traces built in memory work too.
type index struct {
	tr     *trace.Trace
	defs   map[trace.Loc][]int
	callee map[int]trace.FrameID // Call event -> the frame it entered
	// byFrame lists each frame's events in order.
	byFrame map[trace.FrameID][]int
}

func newIndex(tr *trace.Trace) *index {
	x := &index{
		tr:      tr,
		defs:    map[trace.Loc][]int{},
		callee:  map[int]trace.FrameID{},
		byFrame: map[trace.FrameID][]int{},
	}
	for i := range tr.Events {
		ev := &tr.Events[i]
		for _, w := range ev.Writes {
			if w.Loc.Kind != trace.LocNone {
				x.defs[w.Loc] = append(x.defs[w.Loc], i)
			}
		}
		x.byFrame[ev.Frame] = append(x.byFrame[ev.Frame], i)
	}
	for id := 1; id < len(tr.Frames); id++ {
		if c := tr.Frames[id].Call; c >= 0 {
			x.callee[c] = trace.FrameID(id)
		}
	}
	return x
}

// def returns the event whose write event i read in slot, or -1 for an
// input: no earlier definition of the location, unknown identity, or a
// different value (an untraced write came between).
func (x *index) def(i, slot int) int {
	it, ok := x.tr.Event(i).Read(slot)
	if !ok || it.Loc.Kind == trace.LocNone {
		return -1
	}
	d := x.lastDef(it.Loc, i)
	if d < 0 {
		return -1
	}
	// A later write of the whole variable (or of an enclosing field)
	// defines the part too, with a value the trace does not break down.
	for p := it.Loc; p.Path != ""; {
		p.Path = parentPath(p.Path)
		if w := x.lastDef(p, i); w > d {
			return -1
		}
	}
	for _, w := range x.tr.Event(d).Writes {
		if w.Loc == it.Loc && w.Value == it.Value {
			return d
		}
	}
	return -1
}

func (x *index) lastDef(loc trace.Loc, before int) int {
	ds := x.defs[loc]
	k := sort.SearchInts(ds, before)
	if k == 0 {
		return -1
	}
	return ds[k-1]
}

// lastCall returns the latest Call or CallExt event of site call in the
// frame of event i, before i.
func (x *index) lastCall(i int, call trace.SiteID) int {
	evs := x.byFrame[x.tr.Event(i).Frame]
	k := sort.SearchInts(evs, i)
	for j := k - 1; j >= 0; j-- {
		e := x.tr.Event(evs[j])
		if e.Site == call && (e.Kind == trace.EvCall || e.Kind == trace.EvCallExt) {
			return evs[j]
		}
	}
	return -1
}

// before returns the events of frame fr before event i, latest first.
func (x *index) before(fr trace.FrameID, i int) []int {
	evs := x.byFrame[fr]
	k := sort.SearchInts(evs, i)
	out := make([]int, k)
	for j := range k {
		out[j] = evs[k-1-j]
	}
	return out
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
	evs := x.byFrame[ev.Frame]
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
		if fr := x.callee[last]; fr != 0 {
			if exit := x.tr.Frame(fr).Exit; exit > last {
				return exit + 1
			}
		}
	}
	return last + 1
}

// parentPath drops the last field or index step of a location path
// (".a.b" -> ".a", ".a[2]" -> ".a", ".a" -> "").
func parentPath(p string) string {
	if k := strings.LastIndexAny(p, ".["); k >= 0 {
		return p[:k]
	}
	return ""
}
