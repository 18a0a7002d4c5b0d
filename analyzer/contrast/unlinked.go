package contrast

import (
	"slices"
	"sort"

	"github.com/culprit-dev/culprit/analyzer/trace"
)

// unlinkedReturns lists the returns of the calls event e's statement made
// that the tracer recorded no call event for (trace.Frame.Call < 0): frames
// entered on e's goroutine from e's frame after that frame's previous
// event: calls inside a composite literal, whose results the literal
// holds (a test table whose rows call the code under test inline,
// `testList{{"1w", RelTime(…), "1 week ago"}}.validate(t)`), and the
// callbacks of code the tracer does not enter, whose results decided what
// that code returned (sort.Search's predicate). A callback that panicked
// counts too: the code that called it may recover the panic and report
// it (fmt prints it in place of the value, a test framework fails the
// test), and its panic event is where the path goes on.
func (c *Comparison) unlinkedReturns(s Side, e int) []int {
	tr := c.runs[s].tr
	ev := tr.Event(e)
	if ev.Kind == trace.EvEntry {
		return nil
	}
	kids := c.unlinkedFrames(s)[ev.Frame]
	if len(kids) == 0 {
		return nil
	}
	evs := tr.FrameEvents(ev.Frame)
	k := sort.SearchInts(evs, e) - 1
	if k < 0 {
		return nil
	}
	prev := evs[k]
	i := sort.Search(len(kids), func(i int) bool { return tr.Frame(kids[i]).Entry > prev })
	var out []int
	for ; i < len(kids) && tr.Frame(kids[i]).Entry < e; i++ {
		x := tr.Frame(kids[i]).Exit
		if x < 0 {
			continue
		}
		// A callback that panicked hands the panic to the code that
		// called it, which may recover it and report a failure (a test
		// framework running a test's closure).
		if ev := tr.Event(x); ev.Kind == trace.EvPanic || ev.Kind == trace.EvReturn && len(ev.Values) > 0 {
			out = append(out, x)
		}
	}
	return out
}

// unlinkedFrames maps each frame of run s to the frames it entered with
// no call event, in order of entry; built on first use.
func (c *Comparison) unlinkedFrames(s Side) map[trace.FrameID][]trace.FrameID {
	if c.unlinked[s] == nil {
		tr := c.runs[s].tr
		m := map[trace.FrameID][]trace.FrameID{}
		for _, f := range tr.Frames[1:] {
			if f.Call < 0 && f.Parent != 0 && !f.Cut {
				m[f.Parent] = append(m[f.Parent], f.ID)
			}
		}
		for _, kids := range m {
			slices.SortFunc(kids, func(a, b trace.FrameID) int { return tr.Frame(a).Entry - tr.Frame(b).Entry })
		}
		c.unlinked[s] = m
	}
	return c.unlinked[s]
}

// calledBackOtherwise reports whether a callback that the untraced call
// at event i of run s made (unlinkedReturns) returned what its
// counterpart did not, or ran in run s only: the code it called back
// then acted on other answers, whatever its arguments.
func (c *Comparison) calledBackOtherwise(s Side, i int) bool {
	return slices.ContainsFunc(c.unlinkedReturns(s, i), func(x int) bool { return c.relevant(s, x) })
}

// writerWindow bounds how far back untracedWriters looks.
const writerWindow = 20000

// untracedWriters lists, latest first, at most two calls of code the
// tracer does not enter that ran before event e of run s, in e's
// goroutine, and may have written what e read: a call in the proof's
// hunks (its receiver may not be recorded), or one that was handed a
// reference (a pointer, slice, interface, or a struct such as
// reflect.Value) and that the other run did not make, or made with
// callbacks that answered otherwise (sort.Slice with a changed less).
func (c *Comparison) untracedWriters(s Side, e int) []int {
	r := c.runs[s]
	tr := r.tr
	g := tr.Frame(tr.Event(e).Frame).Goroutine
	var out []int
	for i := e - 1; i >= 0 && i >= e-writerWindow && len(out) < 2; i-- {
		ev := tr.Event(i)
		if ev.Kind != trace.EvCallExt || tr.Frame(ev.Frame).Goroutine != g {
			continue
		}
		// A call outside the proof's hunks must have been handed a
		// reference before what it did is asked of its callbacks, which
		// costs a look at the frames it entered.
		if r.hunkOf[ev.Site] == 0 {
			if !slices.ContainsFunc(ev.Reads, func(it trace.Item) bool { return handle(it.Value) }) {
				continue
			}
			if c.Counterpart(s, i) >= 0 && !c.calledBackOtherwise(s, i) {
				continue
			}
		}
		out = append(out, i)
	}
	return out
}

// handle reports whether a value passed to a call lets it write memory
// the caller sees: a non-nil pointer, slice or interface, or a struct
// (which may hold one).
func handle(v trace.Value) bool {
	switch v.Kind {
	case trace.ValPointer, trace.ValSlice, trace.ValIface:
		return !v.Nil
	case trace.ValOpaque:
		return true
	}
	return false
}
