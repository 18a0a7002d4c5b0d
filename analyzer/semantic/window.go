package semantic

import (
	"context"
	"errors"
	"sort"

	"github.com/culprit-dev/culprit/analyzer/smt"
	"github.com/culprit-dev/culprit/analyzer/trace"
)

// window is the part of a target's backward dynamic slice encoded so far
// (SEMANTIC.md §2, built on demand as OFC builds its formula). It grows
// breadth first from the target, nearest dependences first. A definition
// that encoded clauses read but that lies beyond the window is pinned: a
// soft clause saying its variables hold their observed values, labelled
// by the defining event. A core that needs no pin is a core of the whole
// slice; a core that needs pins says where to grow next.
type window struct {
	a           *Analysis
	end, target int
	visited     map[int]bool // events taken into the window (encoded, or without a clause)
	labels      []int
	soft        []smt.Term
	// refs are the events whose values encoded clauses read.
	refs map[int]bool
}

func (a *Analysis) newWindow(target int) *window {
	return &window{a: a, end: a.idx.horizon(target), target: target, visited: map[int]bool{}, refs: map[int]bool{}}
}

// size is the number of events taken into the window.
func (w *window) size() int { return len(w.visited) }

// grow takes up to n more events into the window, breadth first from the
// given events; what it does not reach stays outside.
func (w *window) grow(from []int, n int) error {
	a := w.a
	queue := append([]int(nil), from...)
	for added := 0; len(queue) > 0 && added < n; {
		i := queue[0]
		queue = queue[1:]
		if w.visited[i] {
			continue
		}
		w.visited[i] = true
		if i >= w.end || i == w.target {
			// After the target's predicate was decided: left free, as
			// the slice never encodes it, and never pinned.
			continue
		}
		added++
		ec, err := a.f.eventClause(i)
		if err != nil {
			return err
		}
		if ec != nil {
			w.labels = append(w.labels, i)
			w.soft = append(w.soft, ec.term)
			for _, d := range ec.deps {
				w.refs[d] = true
			}
			queue = append(queue, ec.deps...)
		}
		if a.tr.Event(i).Kind == trace.EvEntry {
			// The call that made the frame is part of the slice.
			if c := a.tr.Frame(a.tr.Event(i).Frame).Call; c >= 0 {
				queue = append(queue, c)
			}
		}
		if b := a.control(i); b >= 0 {
			queue = append(queue, b)
		}
	}
	if len(w.visited) > a.effort.Slice {
		a.effort.Slice = len(w.visited)
	}
	return nil
}

// clauses returns the window's soft clauses, in trace order, and then the
// pins of the definitions beyond it; pinned[k] says soft[k] is a pin.
func (w *window) clauses() (labels []int, soft []smt.Term, pinned []bool, err error) {
	labels = append([]int(nil), w.labels...)
	soft = append([]smt.Term(nil), w.soft...)
	// The trace's order makes the core's order, and QuickXplain's choice
	// among equal cores, deterministic.
	sort.Sort(byLabel{labels, soft})
	pinned = make([]bool, len(labels))
	var out []int
	for d := range w.refs {
		if !w.visited[d] {
			out = append(out, d)
		}
	}
	sort.Ints(out)
	for _, d := range out {
		var p smt.Term
		if err := w.a.c.Do(func() { p = w.a.f.pin(d) }); err != nil {
			return nil, nil, nil, err
		}
		if p.Valid() {
			labels = append(labels, d)
			soft = append(soft, p)
			pinned = append(pinned, true)
		}
	}
	return labels, soft, pinned, nil
}

// pin returns the clause "what event d defined holds its observed value"
// over the variables the formula gives d's definitions, or an invalid
// term when d defines nothing recorded.
func (f *formula) pin(d int) smt.Term {
	ev := f.tr.Event(d)
	var parts []smt.Term
	is := func(x smt.Term, v trace.Value) {
		if v.Kind == trace.ValNone {
			return
		}
		eq, err := f.c.Eq(x, f.c.Const(x.Sort(), code(v)))
		if err != nil {
			panic(err) // same sort by construction
		}
		parts = append(parts, eq)
	}
	switch ev.Kind {
	case trace.EvAssign, trace.EvBranch, trace.EvEntry:
		for _, w := range ev.Writes {
			is(f.defVar(d, w.Slot), w.Value)
		}
	case trace.EvReturn:
		for k := 0; k < f.results(d) && k < len(ev.Values); k++ {
			is(f.resultVar(d, k), ev.Values[k])
		}
	case trace.EvCallExt:
		for k, v := range ev.Values {
			if r, ok := f.extRes[[2]int{d, k}]; ok {
				is(r, v)
			}
		}
	}
	if len(parts) == 0 {
		return smt.Term{}
	}
	return f.c.And(parts...)
}

// windowed returns a minimal core of t's slice under neg, growing the
// slice from deps in windows (Setup.Window events first, doubling) only
// where the last core needed a pinned definition, until a core needs none
// or Setup.MaxSlice events are encoded. cut reports the latter: the
// core then holds pins, whose events are part of the cause but whose own
// causes were not derived.
func (a *Analysis) windowed(ctx context.Context, neg smt.Term, deps []int, target int) (labels []int, core *smt.Core, cut bool, err error) {
	w := a.newWindow(target)
	from := deps
	if b := a.control(target); b >= 0 {
		from = append(from, b)
	}
	step := a.opt.Window
	for round := 0; ; round++ {
		before := w.size()
		if err := w.grow(from, min(step, a.opt.MaxSlice-w.size())); err != nil {
			return nil, nil, false, err
		}
		if round > 0 && w.size() == before {
			return nil, nil, false, errors.New("the slice cannot grow where the core needs it")
		}
		labels, soft, pinned, err := w.clauses()
		if err != nil {
			return nil, nil, false, err
		}
		core, err := a.c.MinimalCore(ctx, append(a.hard(), neg), soft)
		if err != nil {
			return nil, nil, false, err
		}
		from = from[:0:0]
		for _, k := range core.Soft {
			if pinned[k] {
				from = append(from, labels[k])
			}
		}
		if len(from) == 0 {
			return labels, core, false, nil
		}
		if w.size() >= a.opt.MaxSlice {
			return labels, core, true, nil
		}
		step *= 2
	}
}
