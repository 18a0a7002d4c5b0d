package contrast

import (
	"container/heap"
	"errors"
	"slices"
	"sort"
	"strings"

	"github.com/culprit-dev/culprit/analyzer/trace"
)

// MaxSteps bounds the causal path's walk.
const MaxSteps = 500

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
	// Divergence is the index in Steps of the first aligned branch whose
	// outcomes differ, or of the failure when no branch differs.
	Divergence int
	// Cut is set when the walk stopped at MaxSteps.
	Cut bool
}

type item struct {
	side  Side
	event int
}

// ErrNoFailure means the failing trace records no failure to start from.
var ErrNoFailure = errors.New("the failing trace records no failure")

// Path walks back from the failing run's first failure over data and
// control dependences in both runs, keeping the events that differ from
// their counterpart or have none (COMPARATIVE.md §3).
func (c *Comparison) Path() (Path, error) {
	fails := c.runs[Failing].tr.Failures()
	if len(fails) == 0 {
		return Path{}, ErrNoFailure
	}
	start := item{Failing, fails[0]}
	if f := c.in.Failure; f > 0 && f < len(c.runs[Failing].tr.Events) {
		start.event = f
	}
	seen := map[item]bool{start: true}
	work := &queue{c: c}
	heap.Push(work, start)
	var kept []Step
	push := func(it item) {
		if it.event < 0 {
			return
		}
		if it.side == Passing {
			if j := c.Counterpart(Passing, it.event); j >= 0 {
				it = item{Failing, j}
			}
		}
		if !seen[it] {
			seen[it] = true
			heap.Push(work, it)
		}
	}
	cut := false
	for work.Len() > 0 {
		if len(kept) >= MaxSteps {
			cut = true
			break
		}
		it := heap.Pop(work).(item)
		r, o := it.side, it.side.other()
		e := it.event
		ctr := c.Counterpart(r, e)
		n := work.Len()
		differentIn := false // a read brings in a difference
		for _, rd := range c.reads(r, e) {
			alike := false
			if ctr >= 0 && rd.text != "" {
				if v, ok := c.readOf(o, ctr, rd.text); ok {
					eq, known := c.sameIn(r, rd.value, v)
					alike = eq && known
				}
			}
			if alike && !rd.opaque {
				continue // no difference flows in through this read
			}
			differentIn = differentIn || !alike && (rd.def >= 0 || rd.text != "")
			if rd.def >= 0 && (rd.opaque || c.relevant(r, rd.def)) {
				push(item{r, rd.def})
			}
			if rd.def < 0 && rd.text != "" && !rd.call && !rd.zero {
				// No traced write made the value read: code the tracer
				// does not enter wrote it through a reference.
				for _, w := range c.untracedWriters(r, e) {
					push(item{r, w})
				}
			}
			if ctr >= 0 && rd.text != "" {
				// The passing value may have another origin, invisible
				// from the failing run.
				if d2 := c.defOf(o, ctr, rd.text); d2 >= 0 && (rd.def < 0 || c.Counterpart(o, d2) != rd.def) && c.relevant(o, d2) {
					push(item{o, d2})
				}
			}
		}
		if b := c.runs[r].ctl[e]; b >= 0 && c.relevant(r, b) {
			push(item{r, b})
		}
		if ctr < 0 {
			push(c.why(r, e))
		}
		if ctr >= 0 && c.movedWrite(r, e, ctr) {
			for _, d := range c.baseDefs(r, e) {
				if c.relevant(r, d) {
					push(item{r, d})
				}
			}
		}
		if !differentIn && callsUntraced(c.runs[r].tr, c.runs[r].tr.SiteOf(e)) && c.relevant(r, e) {
			// Code the tracer does not enter behaved differently on
			// alike arguments: the memory it was handed differs.
			for _, w := range c.memoryWriters(r, e) {
				push(item{r, w})
			}
		}
		consts := c.changedConsts(r, e, ctr)
		for k := range consts {
			kept = append(kept, Step{Side: r, Event: e, Source: true, Const: &consts[k]})
		}
		kept = append(kept, Step{Side: r, Event: e, Source: work.Len() == n && len(consts) == 0})
	}
	p := Path{Steps: kept, Cut: cut, Divergence: -1}
	c.order(p.Steps)
	// The failure ends the path, whatever the passing run did after the
	// last shared event.
	if k := slices.IndexFunc(p.Steps, func(s Step) bool { return s.Side == start.side && s.Event == start.event && s.Const == nil }); k >= 0 {
		f := p.Steps[k]
		p.Steps = append(slices.Delete(p.Steps, k, k+1), f)
	}
	for k, s := range p.Steps {
		if s.Side != Failing || s.Const != nil || c.runs[Failing].tr.Event(s.Event).Kind != trace.EvBranch {
			continue
		}
		if c.Counterpart(Failing, s.Event) >= 0 && c.provenDifferent(Failing, s.Event) {
			p.Divergence = k
			break
		}
	}
	if p.Divergence < 0 {
		for k, s := range p.Steps {
			if s.Side == Failing && s.Event == start.event && s.Const == nil {
				p.Divergence = k
			}
		}
	}
	c.path = &p
	return p, nil
}

// read is one value an event used, with where it came from.
type read struct {
	text  string // the operand's source text, "" for a parameter binding or call result
	value trace.Value
	def   int // the event that defined it, -1 for an input
	// opaque marks a reference (a pointer or slice) that code the tracer
	// does not enter reads through, or that such code returned: the runs
	// may differ in what it points to although its shape is the same, so
	// the walk follows it whatever its value.
	opaque bool
	call   bool // the result of a call in the expression, not memory
	zero   bool // a named result no write set: the entry's zero value
}

// reads lists what event e of run s used: its operand reads, the call
// that bound its parameters (an entry), and the returns of the calls its
// expressions use.
func (c *Comparison) reads(s Side, e int) []read {
	r := c.runs[s]
	tr := r.tr
	ev := tr.Event(e)
	site := tr.SiteOf(e)
	var out []read
	ext := callsUntraced(tr, site)
	for _, it := range ev.Reads {
		o, _ := operand(site, it.Slot)
		out = append(out, read{text: o.Text, value: it.Value, def: tr.Def(e, it.Slot), opaque: ext && reference(it.Value),
			call: o.Obj == 0 && !o.Global && strings.Contains(o.Text, "(")})
	}
	if ev.Kind == trace.EvEntry {
		if call := tr.Frame(ev.Frame).Call; call >= 0 {
			// The parameters are the call's arguments: when they differ,
			// the call is where the difference came from, whatever else
			// its event recorded.
			out = append(out, read{def: call, opaque: c.relevant(s, e)})
		}
	}
	out = append(out, c.namedResults(s, e)...)
	for _, call := range callSites(site) {
		if ret := c.callResult(s, e, call); ret >= 0 {
			x := tr.Event(ret)
			out = append(out, read{def: ret, opaque: x.Kind == trace.EvCallExt && slices.ContainsFunc(x.Values, reference)})
		}
	}
	return out
}

// namedResults are the reads of a bare `return` of named results, which
// the tracer records as the results' values only: each result reads the
// variable the frame's entry zeroed (the entry's last writes, one per
// recorded result), defined by its last traced write before the return
// when that wrote the value returned; one still zero has no definition.
func (c *Comparison) namedResults(s Side, e int) []read {
	tr := c.runs[s].tr
	ev := tr.Event(e)
	if ev.Kind != trace.EvReturn || len(ev.Reads) > 0 || len(ev.Values) == 0 || len(tr.SiteOf(e).Exprs) > 0 {
		return nil
	}
	entry := tr.Frame(ev.Frame).Entry
	if entry < 0 || tr.Event(entry).Kind != trace.EvEntry {
		return nil
	}
	ws := slices.Clone(tr.Event(entry).Writes)
	if len(ws) < len(ev.Values) {
		return nil
	}
	slices.SortFunc(ws, func(a, b trace.Item) int { return a.Slot - b.Slot })
	ws = ws[len(ws)-len(ev.Values):]
	site := tr.SiteOf(entry)
	var out []read
	for k, w := range ws {
		o, ok := operand(site, w.Slot)
		if !ok || w.Loc.Kind == trace.LocNone {
			continue
		}
		rd := read{text: o.Text, value: ev.Values[k], def: -1}
		switch d := tr.LastDef(w.Loc, e); {
		case d == entry:
			rd.zero = true // no difference starts at a zero value
		case d >= 0 && slices.ContainsFunc(tr.Event(d).Writes, func(x trace.Item) bool { return x.Loc == w.Loc && x.Value == rd.value }):
			rd.def = d
		}
		out = append(out, rd)
	}
	return out
}

// changedConsts lists the named constants of the proof's hunks that event
// e of run s uses with another value than its counterpart ctr does: a
// constant is no read, so the difference starts at its declaration.
func (c *Comparison) changedConsts(s Side, e, ctr int) []Const {
	if ctr < 0 {
		return nil
	}
	r, o := c.runs[s], c.runs[s.other()]
	a, b := exprsOf(r.tr.SiteOf(e), trace.ExprConst), exprsOf(o.tr.SiteOf(ctr), trace.ExprConst)
	if len(a) != len(b) {
		return nil
	}
	var out []Const
	for k, x := range a {
		y := b[k]
		if x.Decl == nil || x.Text != y.Text {
			continue
		}
		if eq, known := same(x.Const, y.Const); eq || !known {
			continue
		}
		if _, h := r.side.headLine(r.side.repoPath(x.Decl.File), x.Decl.Line); h == 0 {
			continue
		}
		fv, pv := x.Const, y.Const
		if s == Passing {
			fv, pv = pv, fv
		}
		out = append(out, Const{Name: x.Text, Decl: *x.Decl, Failing: fv, Passing: pv, Type: x.Type})
	}
	return out
}

// exprsOf lists, in order, the nodes of a site's expressions with
// operator op.
func exprsOf(site *trace.Site, op trace.ExprOp) []*trace.Expr {
	var out []*trace.Expr
	var walk func(x *trace.Expr)
	walk = func(x *trace.Expr) {
		if x == nil {
			return
		}
		if x.Op == op {
			out = append(out, x)
		}
		walk(x.X)
		walk(x.Y)
		for _, a := range x.Args {
			walk(a)
		}
	}
	for _, x := range site.Exprs {
		walk(x)
	}
	return out
}

// writerWindow bounds how far back untracedWriters looks.
const writerWindow = 20000

// untracedWriters lists, latest first, at most two calls of code the
// tracer does not enter that ran before event e of run s, in e's
// goroutine, and may have written what e read: a call in the proof's
// hunks (its receiver may not be recorded), or one the other run did not
// make that was handed a reference (a pointer, slice, interface, or a
// struct such as reflect.Value).
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
		changed := r.hunkOf[ev.Site] != 0
		if !changed && c.Counterpart(s, i) >= 0 {
			continue
		}
		if changed || slices.ContainsFunc(ev.Reads, func(it trace.Item) bool { return handle(it.Value) }) {
			out = append(out, i)
		}
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

// readOf is event e's value of the operand written text.
func (c *Comparison) readOf(s Side, e int, text string) (trace.Value, bool) {
	site := c.runs[s].tr.SiteOf(e)
	for _, it := range c.runs[s].tr.Event(e).Reads {
		if o, ok := operand(site, it.Slot); ok && o.Text == text {
			return it.Value, true
		}
	}
	for _, rd := range c.namedResults(s, e) {
		if rd.text == text {
			return rd.value, true
		}
	}
	return trace.Value{}, false
}

// defOf is the definition of event e's read of text, -1 if none.
func (c *Comparison) defOf(s Side, e int, text string) int {
	tr := c.runs[s].tr
	site := tr.SiteOf(e)
	for _, it := range tr.Event(e).Reads {
		if o, ok := operand(site, it.Slot); ok && o.Text == text {
			return tr.Def(e, it.Slot)
		}
	}
	for _, rd := range c.namedResults(s, e) {
		if rd.text == text {
			return rd.def
		}
	}
	return -1
}

// callSites are the call sites whose results the site's expressions use.
func callSites(s *trace.Site) []trace.SiteID {
	var out []trace.SiteID
	for _, x := range exprsOf(s, trace.ExprCall) {
		out = append(out, x.Call)
	}
	return out
}

// callResult finds what gave e the result of the latest call at site
// call made by e's frame before e: the callee's return, or the call
// itself when the callee is not traced (its result is recorded there);
// -1 if neither is.
func (c *Comparison) callResult(s Side, e int, call trace.SiteID) int {
	tr := c.runs[s].tr
	ci := tr.LastCall(e, call)
	if ci < 0 {
		return -1
	}
	if tr.Event(ci).Kind == trace.EvCallExt {
		return ci
	}
	f := tr.Callee(ci)
	if f == 0 {
		return -1
	}
	if x := tr.Frame(f).Exit; x >= 0 && tr.Event(x).Kind == trace.EvReturn {
		return x
	}
	return -1
}

// why explains an event that ran in run s only (COMPARATIVE.md §3): the
// step of its index just past what the other run shares says where the
// runs parted.
func (c *Comparison) why(s Side, e int) item {
	none := item{s, -1}
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
		case 'R', 'C':
			if m, ok := r.made[prev]; ok {
				return item{s, m}
			}
		case 'L':
			// The other run iterated fewer times: its last check there
			// said stop. Name this run's check of that iteration.
			for m := st.n - 1; m >= 1; m-- {
				if nd, ok := c.t.child(a, step{kind: 'L', key: st.key, n: m}); ok && o.lastUnder(c.t, nd) >= 0 {
					return item{s, r.made[nd]}
				}
			}
		case 'D':
			// Called back from code the tracer does not enter: the
			// uninstrumented call that was running decided it.
			return item{s, c.runningCall(s, e)}
		case '.':
			if j, ok := r.event(prev); ok && isChanged(r.keys[r.tr.Event(j).Site]) {
				return none // changed code: the difference starts here
			}
			return item{s.other(), o.lastUnder(c.t, a)} // the other run left the region early
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
// passing-only step placed just before the next shared event after it.
func (c *Comparison) order(steps []Step) {
	slices.SortStableFunc(steps, func(a, b Step) int {
		return c.when(item{a.Side, a.Event}) - c.when(item{b.Side, b.Event})
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
