package contrast

import (
	"container/heap"
	"errors"
	"slices"
	"sort"

	"github.com/culprit-dev/culprit/analyzer/trace"
	"github.com/culprit-dev/culprit/diffhunks"
)

// MaxSteps bounds the causal path's walk. The walk goes back latest
// first, so a failure at the end of a long computation (a regex program's
// run, after the compiling that the change altered) visits every differing
// step of that computation before it reaches the change: 2,000 steps did
// not reach regexp2's reduction pass, 20,000 did, in the same comparison
// time and 10% more peak heap.
const MaxSteps = 20000

// Step is one event of the causal path of differences.
type Step struct {
	Side   Side
	Event  int
	Source bool // no difference flows into it: the difference starts here
	// Const, when set, makes the step the declaration of a constant that
	// the event used and the change altered (the event's step follows).
	Const *Const
}

// Const is a named constant whose value differs between the runs.
type Const struct {
	Name             string
	Decl             trace.Pos // in the failing run's sources
	Failing, Passing trace.Value
	Type             trace.Type
}

// Path is the causal path of differences from the change to the failure,
// in execution order (a passing-only step stands just before the next
// shared event).
type Path struct {
	Steps []Step
	// Divergence is the index in Steps of the first step where the runs
	// part (Comparison.parts, or a statement the change deleted, which
	// ran in the passing run only), or of the failure when none does.
	Divergence int
	// Cut is set when the walk stopped at MaxSteps.
	Cut bool
}

type item struct {
	side  Side
	event int
	// part, when not zero, is the one result the walk needs of a
	// multi-value event: target part-1 of an assignment with an
	// expression per target, result part-1 of a return. Zero is all of
	// them.
	part int
	// content marks an event reached for what the references it made
	// hold: a part read through them differs, although references
	// compare by shape alone (a slice of the same length), so the walk
	// goes on through its reads of references and of call results
	// whatever their relevance.
	content bool
}

// ErrNoFailure means the failing trace records no failure to start from.
var ErrNoFailure = errors.New("the failing trace records no failure")

// Path walks back from the failing run's first failure over data and
// control dependences in both runs, keeping the events that differ from
// their counterpart or have none (COMPARATIVE.md §3).
func (c *Comparison) Path() (Path, error) {
	start, err := c.pathStart()
	if err != nil {
		return Path{}, err
	}
	kept, cut := c.walkBack(start)
	p := Path{Steps: kept, Cut: cut, Divergence: -1}
	c.order(p.Steps)
	p.Steps = failureLast(p.Steps, start)
	p.Divergence = c.divergence(p.Steps, start)
	c.path = &p
	return p, nil
}

// pathStart is the failure the walk starts from: the one the input names,
// else the failing run's first.
func (c *Comparison) pathStart() (item, error) {
	fails := c.runs[Failing].tr.Failures()
	if len(fails) == 0 {
		return item{}, ErrNoFailure
	}
	start := item{side: Failing, event: fails[0]}
	if f := c.in.Failure; f > 0 && f < len(c.runs[Failing].tr.Events) {
		start.event = f
	}
	return start, nil
}

// frontier is the walk's work list: each item is queued once, a passing
// event with a counterpart as that counterpart.
type frontier struct {
	c    *Comparison
	seen map[item]bool
	work *queue
	// stepped holds the events that made a step: an event the walk
	// reaches again for another of its parts adds dependences, not a step.
	stepped map[item]bool
}

func newFrontier(c *Comparison, start item) *frontier {
	w := &frontier{c: c, seen: map[item]bool{start: true}, work: &queue{c: c}, stepped: map[item]bool{}}
	heap.Push(w.work, start)
	return w
}

// push queues it unless it is no event or was queued before.
func (w *frontier) push(it item) {
	if it.event < 0 {
		return
	}
	if it.side == Passing {
		if j := w.c.Counterpart(Passing, it.event); j >= 0 {
			it = item{side: Failing, event: j, part: it.part, content: it.content}
		}
	}
	if !w.seen[it] {
		w.seen[it] = true
		heap.Push(w.work, it)
	}
}

// walkBack visits the events the failure depends on, latest first, and
// returns their steps in the order visited; cut is set when it stopped at
// MaxSteps.
func (c *Comparison) walkBack(start item) (kept []Step, cut bool) {
	w := newFrontier(c, start)
	for w.work.Len() > 0 {
		if len(kept) >= MaxSteps {
			return kept, true
		}
		it := heap.Pop(w.work).(item)
		kept = append(kept, c.visit(w, it)...)
	}
	return kept, false
}

// visit queues what event it depends on, through the values it read, its
// control, a missing counterpart, a moved write or untraced code, and
// returns its steps: one per changed constant it used, then its own.
func (c *Comparison) visit(w *frontier, it item) []Step {
	r := it.side
	e := it.event
	ctr := c.Counterpart(r, e)
	n := w.work.Len()
	differentIn := c.followReads(w, it, ctr)
	if b := c.runs[r].ctl[e]; b >= 0 && c.relevant(r, b) {
		w.push(item{side: r, event: b})
	}
	for _, g := range c.passedGuards(r, e) {
		w.push(item{side: r, event: g})
	}
	if ctr < 0 {
		w.push(c.why(r, e))
	}
	if ctr >= 0 && c.movedWrite(r, e, ctr) {
		for _, d := range c.baseDefs(r, e) {
			if c.relevant(r, d) {
				w.push(item{side: r, event: d})
			}
		}
	}
	if !differentIn && callsUntraced(c.runs[r].tr, c.runs[r].tr.SiteOf(e)) && c.relevant(r, e) {
		// Code the tracer does not enter behaved differently on
		// alike arguments: the memory it was handed differs.
		for _, m := range c.memoryWriters(r, e) {
			w.push(item{side: r, event: m})
		}
		for _, m := range c.objectCalls(r, e) {
			w.push(item{side: r, event: m})
		}
	}
	if !differentIn && c.relevant(r, e) {
		// A map read whole behaved differently with the same map: its
		// entries differ.
		for _, m := range c.mapWriters(r, e) {
			w.push(m)
		}
	}
	whole := item{side: r, event: e}
	if w.stepped[whole] {
		return nil
	}
	w.stepped[whole] = true
	var steps []Step
	consts := c.changedConsts(r, e, ctr)
	for k := range consts {
		steps = append(steps, Step{Side: r, Event: e, Source: true, Const: &consts[k]})
	}
	return append(steps, Step{Side: r, Event: e, Source: w.work.Len() == n && len(consts) == 0})
}

// followReads queues the definitions of the values event it read that
// may differ from its counterpart's (ctr, -1 if none), in both runs, and
// reports whether a read brings in a difference.
func (c *Comparison) followReads(w *frontier, it item, ctr int) (differentIn bool) {
	r, o := it.side, it.side.other()
	e := it.event
	exit := c.runs[r].tr.Event(e).Kind == trace.EvPanic
	for _, rd := range c.partReads(r, e, it.part) {
		alike, crossed := false, false
		counter := read{def: -1}
		switch {
		case ctr >= 0 && rd.text != "":
			var ok bool
			if counter, ok = c.counterRead(o, ctr, rd); ok {
				eq, known := c.sameIn(r, rd.value, counter.value)
				alike = eq && known
				// The two reads differ and saw writes that do not
				// correspond (an entry a cache rewrote, where the other
				// run read a fresh map): the difference is which write
				// reached the read, although the write may be alike.
				crossed = !alike && rd.def >= 0 && (counter.def < 0 || c.Counterpart(o, counter.def) != rd.def)
			}
		case rd.text == "" && rd.def >= 0:
			// A call's result, a parameter binding: alike when the
			// event that made it is.
			alike = !c.relevant(r, rd.def)
		}
		// Whatever the values compare to: the failing run may have
		// changed what the passing run's read saw where no event pairs
		// with it.
		if d := c.failingOverwrite(r, e, ctr, rd, counter); d >= 0 {
			w.push(item{side: Failing, event: d})
		}
		// The contents of a reference the walk needs may differ though
		// the reference compares alike.
		contents := it.content && (reference(rd.value) || rd.value.Kind == trace.ValNone)
		if alike && !rd.opaque && !contents {
			continue // no difference flows in through this read
		}
		different := !alike
		if ctr < 0 && rd.opaque && exit {
			// A reference handed to code the tracer does not enter
			// that never returned (the failing exit), with no
			// counterpart to compare it with: a difference flows in
			// only where its definition differs.
			different = rd.def >= 0 && c.relevant(r, rd.def)
		}
		differentIn = differentIn || different && (rd.def >= 0 || rd.text != "")
		// A differing part of a whole, or a reference whose contents
		// the walk needs: what holds it is followed for its contents.
		content := rd.whole && different || contents
		if rd.def >= 0 && (rd.opaque || content || crossed || c.relevant(r, rd.def)) {
			w.push(item{side: r, event: rd.def, part: c.defPart(r, rd), content: content})
		}
		if crossed {
			for _, a := range c.crossedCause(r, rd.def) {
				w.push(item{side: r, event: a})
			}
			w.push(item{side: r, event: c.readBase(r, e, rd)})
		}
		if different && rd.value.Kind == trace.ValSlice && !rd.value.Nil && rd.value.Hash != 0 {
			// A slice whose elements differ: the stores into them
			// came after its header was made.
			for _, u := range c.elementWriters(r, e, rd.def, rd.value) {
				w.push(item{side: r, event: u})
			}
		}
		if different {
			// A write that did not happen: a condition between the
			// write read and the read skipped one.
			for _, b := range c.untakenWrites(r, e, rd) {
				w.push(item{side: r, event: b})
			}
		}
		if different && rd.def < 0 {
			for _, d := range c.unwrittenOrigins(r, e, rd) {
				w.push(item{side: r, event: d})
			}
		}
		if (rd.def < 0 || rd.whole) && rd.text != "" && !rd.call && !rd.zero {
			// No traced write made the value read: code the tracer
			// does not enter wrote it through a reference.
			for _, u := range c.untracedWriters(r, e) {
				w.push(item{side: r, event: u})
			}
		}
		// The other run's value may have another origin, invisible
		// from this run.
		if d2 := counter.def; d2 >= 0 && (rd.def < 0 || c.Counterpart(o, d2) != rd.def) && c.relevant(o, d2) {
			w.push(item{side: o, event: d2})
		}
	}
	return differentIn
}

// guardWindow bounds how far back in a frame passedGuards looks.
const guardWindow = 4096

// passedGuards lists, latest first, the guards in changed code of event
// e's frame that ran before e and let it run: if statements whose body may
// leave the function (span.guard) and whose condition was false, in a
// hunk, and relevant (one-sided, or proven to differ). e depends on each
// as on the branch it runs under, although it lies outside the statement
// (control dependence through an early return): `return Nature{}, false`
// ran because `if n.Kind == reflect.Struct { … return … }` before it was
// false. A guard in unchanged code is left to the comparison: where its
// outcome differs, the runs part there, which why and relevant follow;
// where it does not, it only ran (a year limit not reached).
func (c *Comparison) passedGuards(s Side, e int) []int {
	r := c.runs[s]
	tr := r.tr
	evs := tr.FrameEvents(tr.Event(e).Frame)
	pos := tr.SiteOf(e).Pos
	var out []int
	at := sort.SearchInts(evs, e)
	for k := at - 1; k >= 0 && k >= at-guardWindow; k-- {
		i := evs[k]
		ev := tr.Event(i)
		if ev.Kind != trace.EvBranch || len(ev.Values) == 0 || ev.Values[0].Kind != trace.ValBool || ev.Values[0].Bool() {
			continue
		}
		if sp, ok := r.spans[ev.Site]; ok && sp.guard && !sp.holds(pos) && r.hunkOf[ev.Site] != 0 && c.relevant(s, i) {
			out = append(out, i)
		}
	}
	return out
}

// failureLast moves the failure's step to the end of the path, whatever
// the passing run did after the last shared event.
func failureLast(steps []Step, start item) []Step {
	if k := slices.IndexFunc(steps, func(s Step) bool { return s.Side == start.side && s.Event == start.event && s.Const == nil }); k >= 0 {
		f := steps[k]
		steps = append(slices.Delete(steps, k, k+1), f)
	}
	return steps
}

// divergence is the index of the first step where the runs part: a
// failing step where they do (parts), or a step of the passing run in
// code the change deleted (an omission: the failing run skipped it
// because it is no longer there); else of the failure's last step, else
// -1.
func (c *Comparison) divergence(steps []Step, start item) int {
	for k, s := range steps {
		if s.Const != nil {
			continue
		}
		if s.Side == Failing && c.parts(s.Event) || s.Side == Passing && c.deleted(s.Event) {
			return k
		}
	}
	div := -1
	for k, s := range steps {
		if s.Side == Failing && s.Event == start.event && s.Const == nil {
			div = k
		}
	}
	return div
}

// deleted reports whether event e of the passing run, which has no
// counterpart, lies in a hunk that only deletes: code the failing run
// skips because it is gone, with nothing in its place. Code the change
// rewrote is left to the failing run's steps, where its replacement ran.
func (c *Comparison) deleted(e int) bool {
	r := c.runs[Passing]
	id := r.hunkOf[r.tr.Event(e).Site]
	if id == 0 || c.Counterpart(Passing, e) >= 0 {
		return false
	}
	k := slices.IndexFunc(r.side.hunks, func(h diffhunks.Hunk) bool { return h.ID == id })
	return k >= 0 && r.side.hunks[k].DeletesOnly()
}

// parts reports whether the runs part at failing event e: an aligned
// branch whose outcome is proven to differ, or a step the passing run has
// no counterpart for although it ran the frame that holds it (an early
// return taken, a statement the change added), or a changed step of a
// frame without a counterpart that a call both runs made entered,
// directly or through other such frames (a function whose signature the
// change rewrote, or that it added and an unchanged call now reaches):
// unchanged code such frames call runs only because the changed code
// did. A frame that hangs from no aligned call lies in a goroutine the two
// runs could not align: the runs do not part there.
func (c *Comparison) parts(e int) bool {
	tr := c.runs[Failing].tr
	if c.Counterpart(Failing, e) >= 0 {
		return tr.Event(e).Kind == trace.EvBranch && c.provenDifferent(Failing, e)
	}
	fr := tr.Frame(tr.Event(e).Frame)
	if fr.Entry >= 0 && fr.Entry != e && c.Counterpart(Failing, fr.Entry) >= 0 {
		return true
	}
	return c.runs[Failing].hunkOf[tr.Event(e).Site] != 0 && c.calledFromAligned(fr)
}

// calledFromAligned reports whether frame fr of the failing run, which
// has no counterpart, was entered by a chain of such frames from a call
// the passing run made too.
func (c *Comparison) calledFromAligned(fr *trace.Frame) bool {
	tr := c.runs[Failing].tr
	for range maxCallDepth {
		if fr.Call < 0 || fr.Entry < 0 || c.Counterpart(Failing, fr.Entry) >= 0 {
			return false
		}
		if c.Counterpart(Failing, fr.Call) >= 0 {
			return true
		}
		fr = tr.Frame(tr.Event(fr.Call).Frame)
	}
	return false
}

// maxCallDepth bounds how many frames calledFromAligned climbs.
const maxCallDepth = 64

// callsUntraced reports whether the site is, or its expressions hold, a
// call of a function the tracer does not enter.
func callsUntraced(tr *trace.Trace, s *trace.Site) bool {
	if s.Kind == trace.SiteCallExt {
		return true
	}
	return slices.ContainsFunc(callSites(s), func(id trace.SiteID) bool { return tr.Site(id).Kind == trace.SiteCallExt })
}

// reference reports whether v is a non-nil pointer or slice, which the
// trace records by shape, not by what it refers to.
func reference(v trace.Value) bool {
	return (v.Kind == trace.ValPointer || v.Kind == trace.ValSlice) && !v.Nil
}

// why explains an event that ran in run s only (COMPARATIVE.md §3): the
// step of its index just past what the other run shares says where the
// runs parted.
func (c *Comparison) why(s Side, e int) item {
	none := item{side: s, event: -1}
	r, o := c.runs[s], c.runs[s.other()]
	var prev node = -1
	for a := r.node[e]; a > root; prev, a = a, c.t.parent[a] {
		if o.lastUnder(c.t, a) < 0 {
			continue
		}
		if prev < 0 {
			return none // the event itself is shared: not an omission
		}
		st := c.t.steps[prev]
		switch st.kind {
		case 'R', 'C', 'M':
			// The branch side chosen, the call made, or the map entry
			// iterated in this run only.
			if m, ok := r.made[prev]; ok {
				return item{side: s, event: m}
			}
		case 'L':
			// The other run iterated fewer times: its last check there
			// said stop. Name this run's check of that iteration.
			for m := st.n - 1; m >= 1; m-- {
				if nd, ok := c.t.child(a, step{kind: 'L', key: st.key, n: m}); ok && o.lastUnder(c.t, nd) >= 0 {
					return item{side: s, event: r.made[nd]}
				}
			}
		case 'D':
			// Called back from code the tracer does not enter: the
			// uninstrumented call that was running decided it.
			return item{side: s, event: c.runningCall(s, e)}
		case '.':
			if j, ok := r.event(prev); ok && isChanged(r.keys[r.tr.Event(j).Site]) {
				return none // changed code: the difference starts here
			}
			return item{side: s.other(), event: o.lastUnder(c.t, a)} // the other run left the region early
		}
		return none
	}
	return none
}

// runningCall returns the call of the parent frame that was running when
// event e's frame was entered from code the tracer does not enter: the
// latest call before the entry that entered no traced frame (an
// interface method of an untraced type), else the first untraced call
// after it (its CallExt event comes once it returns); -1 if there is
// none.
func (c *Comparison) runningCall(s Side, e int) int {
	tr := c.runs[s].tr
	fr := tr.Frame(tr.Event(e).Frame)
	if fr.Parent == 0 {
		return -1
	}
	evs := tr.FrameEvents(fr.Parent)
	k := sort.SearchInts(evs, fr.Entry)
	if k > 0 {
		if i := evs[k-1]; tr.Event(i).Kind == trace.EvCall && tr.Callee(i) == 0 {
			return i
		}
	}
	for ; k < len(evs); k++ {
		if ev := tr.Event(evs[k]); ev.Kind == trace.EvCallExt {
			return evs[k]
		}
	}
	return -1
}

// isChanged reports whether a site key names code inside a proof hunk.
func isChanged(key string) bool { return len(key) > 0 && key[0] == '#' }

// order sorts steps into execution order: the failing run's order, with a
// passing-only step placed just before the next shared event after it;
// passing-only steps placed at one point keep the order they ran in.
func (c *Comparison) order(steps []Step) {
	slices.SortStableFunc(steps, func(a, b Step) int {
		if d := c.when(item{side: a.Side, event: a.Event}) - c.when(item{side: b.Side, event: b.Event}); d != 0 || a.Side != b.Side {
			return d
		}
		return a.Event - b.Event
	})
}

// queue pops the latest pending item first.
type queue struct {
	c     *Comparison
	items []item
}

func (q *queue) Len() int { return len(q.items) }
func (q *queue) Less(i, j int) bool {
	return q.c.when(q.items[i]) > q.c.when(q.items[j])
}
func (q *queue) Swap(i, j int) { q.items[i], q.items[j] = q.items[j], q.items[i] }
func (q *queue) Push(x any)    { q.items = append(q.items, x.(item)) }
func (q *queue) Pop() any {
	it := q.items[len(q.items)-1]
	q.items = q.items[:len(q.items)-1]
	return it
}

// when places an item in the failing run's time, for the walk's order.
func (c *Comparison) when(it item) int {
	if it.side == Failing {
		return 2 * it.event
	}
	r := c.runs[Passing]
	if w, ok := r.when[it.event]; ok {
		return w
	}
	// Just before the next shared event: what the passing run did
	// instead of the failing run's own steps comes after them.
	w := 2*len(c.runs[Failing].tr.Events) + 1
	for i := it.event; i < len(r.tr.Events) && i < it.event+100000; i++ {
		if j := c.Counterpart(Passing, i); j >= 0 {
			w = 2*j - 1
			break
		}
	}
	if r.when == nil {
		r.when = map[int]int{}
	}
	r.when[it.event] = w
	return w
}
