package contrast

import (
	"slices"
	"sort"
	"strings"

	"github.com/culprit-dev/culprit/analyzer/trace"
)

// read is one value an event used, with where it came from.
type read struct {
	text  string // the operand's source text, "" for a parameter binding or call result
	value trace.Value
	def   int  // the event that defined it, -1 for an input
	whole bool // def wrote a whole holding the part read (Trace.EnclosingDef)
	// opaque marks a reference (a pointer or slice) that code the tracer
	// does not enter reads through, or that such code returned: the runs
	// may differ in what it points to although its shape is the same, so
	// the walk follows it whatever its value.
	opaque bool
	call   bool // the result of a call in the expression, not memory
	zero   bool // a named result no write set: the entry's zero value
	// slot is the operand read (-1 for a read the site's operands do
	// not hold), loc where it was read; callSite is the call whose
	// result this is (0 if none), and result which of its results the
	// reader took, +1 (0: all of them).
	slot     int
	loc      trace.Loc
	callSite trace.SiteID
	result   int
}

// reads lists what event e of run s used: its operand reads, the call
// that bound its parameters (an entry), and the returns of the calls its
// expressions use.
func (c *Comparison) reads(s Side, e int) []read {
	r := c.runs[s]
	tr := r.tr
	ev := tr.Event(e)
	site := tr.SiteOf(e)
	var out, parts []read // parts: partsSince's, after the operands' own
	ext := callsUntraced(tr, site)
	for _, it := range ev.Reads {
		o, _ := operand(site, it.Slot)
		def, whole := tr.Def(e, it.Slot), false
		if def < 0 {
			// A field of a struct written whole: the whole's write is
			// where the difference, if any, came from.
			def = tr.EnclosingDef(e, it.Slot)
			whole = def >= 0
		}
		if d, w := copyDef(tr, def, o, it.Value); d >= 0 {
			def, whole = d, w
		}
		out = append(out, read{text: o.Text, value: it.Value, def: def, whole: whole, opaque: ext && reference(it.Value),
			call: o.Obj == 0 && !o.Global && strings.Contains(o.Text, "("), slot: it.Slot, loc: it.Loc})
		parts = append(parts, partsSince(tr, e, def, it, o.Type)...)
	}
	out = append(out, parts...)
	n := len(out)
	if ev.Kind == trace.EvEntry {
		if call := tr.Frame(ev.Frame).Call; call >= 0 {
			// The parameters are the call's arguments: when they differ,
			// the call is where the difference came from, whatever else
			// its event recorded.
			out = append(out, read{def: call, opaque: c.relevant(s, e)})
		}
	}
	out = append(out, c.namedResults(s, e)...)
	out = append(out, unrecordedArgs(tr, e)...)
	for _, a := range appendsIn(tr, e) {
		// x = append(x, v): the tracer records the append as a site of its
		// own, which reads x; the assignment only writes what it returned.
		out = append(out, read{def: a, opaque: c.relevant(s, e)})
	}
	if i := rangeStart(tr, e); i >= 0 {
		// An iteration's values come from the ranged value, read once
		// before the first iteration.
		out = append(out, read{def: i})
	}
	for _, x := range c.unlinkedReturns(s, e) {
		// The value of a call the statement made that no call event
		// records: in a literal, or back from code the tracer does
		// not enter.
		rd := read{def: x}
		if vs := tr.Event(x).Values; len(vs) == 1 {
			rd.value = vs[0]
		}
		out = append(out, rd)
	}
	for k := n; k < len(out); k++ {
		out[k].slot = -1
	}
	calls := exprsOf(site, trace.ExprCall)
	for _, id := range receiverCalls(tr, e, callSites(site)) {
		calls = append(calls, &trace.Expr{Op: trace.ExprCall, Call: id, Slot: -1})
	}
	for _, call := range calls {
		if ret := c.callResult(s, e, call.Call); ret >= 0 {
			x := tr.Event(ret)
			out = append(out, read{def: ret, opaque: x.Kind == trace.EvCallExt && slices.ContainsFunc(x.Values, reference),
				slot: -1, callSite: call.Call})
		}
	}
	return out
}

// rangeStart is the event that evaluated the ranged value of the range
// loop whose iteration is event e (its assignment at the loop's site,
// before the first iteration), -1 when e is no iteration or none is
// recorded.
func rangeStart(tr *trace.Trace, e int) int {
	ev := tr.Event(e)
	if ev.Kind != trace.EvBranch || tr.SiteOf(e).Kind != trace.SiteRange {
		return -1
	}
	evs := tr.FrameEvents(ev.Frame)
	for k := sort.SearchInts(evs, e) - 1; k >= 0; k-- {
		if i := evs[k]; tr.Event(i).Site == ev.Site && tr.Event(i).Kind == trace.EvAssign {
			return i
		}
	}
	return -1
}

// partReads is what event e of run s used to make its part (item.part):
// the reads and call results in that target's or result's expression,
// with what every part shares (a parameter binding, an append). All of
// e's reads when part is zero, or when e is not an assignment with an
// expression per target or a return with one per result.
func (c *Comparison) partReads(s Side, e, part int) []read {
	all := c.reads(s, e)
	x := c.partExpr(s, e, part)
	if x == nil {
		return all
	}
	slots, calls := map[int]bool{}, map[trace.SiteID]bool{}
	for _, r := range nodes(trace.ExprRead, x) {
		slots[r.Slot] = true
	}
	for _, c := range nodes(trace.ExprCall, x) {
		calls[c.Call] = true
	}
	kept := slices.DeleteFunc(all, func(rd read) bool {
		switch {
		case rd.callSite != 0:
			return !calls[rd.callSite] && rd.callSite != x.Call
		case rd.slot >= 0:
			return !slots[rd.slot]
		}
		return false
	})
	if x.Op == trace.ExprOpaque && x.Call != 0 {
		// Target k of `a, b := f()`: result x.Slot of the call.
		for i := range kept {
			if kept[i].callSite == x.Call {
				kept[i].result = x.Slot + 1
			}
		}
	}
	return kept
}

// partExpr is the expression that made part of event e of run s, nil when
// the event has no such part: an assignment's target part-1 when the site
// has an expression per written target, a return's result part-1 when it
// has an expression per result.
func (c *Comparison) partExpr(s Side, e, part int) *trace.Expr {
	if part <= 0 {
		return nil
	}
	tr := c.runs[s].tr
	ev, site := tr.Event(e), tr.SiteOf(e)
	n := len(site.Exprs)
	switch {
	case n < 2 || part > n:
		return nil
	case ev.Kind == trace.EvAssign && len(ev.Writes) == n:
	case ev.Kind == trace.EvReturn && len(ev.Values) == n:
	default:
		return nil
	}
	return site.Exprs[part-1]
}

// defPart is which part of its definition the read rd needs: the result
// a call's value is, or the target of a multi-target assignment that
// wrote the location read. Zero for all of it.
func (c *Comparison) defPart(s Side, rd read) int {
	if rd.callSite != 0 {
		return rd.result
	}
	if rd.slot < 0 || rd.whole || rd.def < 0 {
		return 0
	}
	ev := c.runs[s].tr.Event(rd.def)
	if ev.Kind != trace.EvAssign || len(ev.Writes) < 2 {
		return 0
	}
	for k, w := range ev.Writes {
		if w.Loc == rd.loc {
			return k + 1
		}
	}
	return 0
}

// unrecordedArgs are the reads of a call into code the tracer does not
// enter that never returned, event e: a test helper that failed the test
// with FailNow, or a call that panicked. The tracer records such a call's
// argument reads when it returns, so the exit event holds none; each
// argument that is a variable of the module's code is defined by its last
// write before e, whose value the walk compares as usual.
func unrecordedArgs(tr *trace.Trace, e int) []read {
	ev := tr.Event(e)
	if ev.Kind != trace.EvPanic || len(ev.Reads) > 0 {
		return nil
	}
	var out []read
	for _, id := range tr.ExtCallsIn(tr.SiteOf(e).Pos) {
		out = append(out, argDefs(tr, e, tr.Site(id))...)
	}
	return out
}

// unwrittenOrigins lists where a value that event e of run s read, and
// that differs from the other run's, came from when no traced write made
// it: for an entry of a map, the event that made the map, when that
// event differs, since the map held what it held when made (a literal's
// entries, or none): a map made afresh in each call where one map lived
// across the calls; for the result of a call that entered no traced
// code, the inputs it was handed (untracedInputs).
func (c *Comparison) unwrittenOrigins(s Side, e int, rd read) []int {
	switch {
	case rd.loc.Kind == trace.LocMap:
		if m := c.origin(s, rd.loc.Addr); m >= 0 && c.relevant(s, m) {
			return []int{m}
		}
	case rd.call:
		return c.untracedInputs(s, e, rd.text)
	}
	return nil
}

// untracedInputs lists the definitions that differ from their
// counterpart, or have none, of the variables event e of run s handed to
// call, the source text of a call in its statement that entered no
// traced code: the call's receiver and arguments, which the tracer need
// not record as reads (`typ = rt.In(i)` records the result, not rt).
// When such a call returned something else, its inputs are where the
// difference came from: a reflect.Type taken from a function whose
// signature the change rewrote.
func (c *Comparison) untracedInputs(s Side, e int, call string) []int {
	tr := c.runs[s].tr
	var out []int
	for _, id := range append(tr.ExtCallsIn(tr.SiteOf(e).Pos), callSites(tr.SiteOf(e))...) {
		if tr.Site(id).Text != call {
			continue
		}
		for _, rd := range argDefs(tr, e, tr.Site(id)) {
			if rd.def != e && c.relevant(s, rd.def) && !slices.Contains(out, rd.def) {
				out = append(out, rd.def)
			}
		}
	}
	return out
}

// argDefs are the reads of call's operands that are variables of the
// module's code, each defined by its last write before event e of e's
// frame.
func argDefs(tr *trace.Trace, e int, call *trace.Site) []read {
	ev := tr.Event(e)
	var out []read
	for _, o := range call.Operands {
		if o.Write || o.Obj == 0 {
			continue
		}
		loc := trace.Loc{Kind: trace.LocLocal, Frame: ev.Frame, Obj: o.Obj, Path: o.Path}
		if o.Global {
			loc.Frame = 0
		}
		if d := tr.LastDef(loc, e); d >= 0 {
			out = append(out, read{def: d})
		}
	}
	return out
}

// appendsIn lists the append events nested in assignment event e's
// statement (`buf = append(buf, ',')`), latest first: the events of e's
// frame just before it whose append sites lie inside e's site.
func appendsIn(tr *trace.Trace, e int) []int {
	ev := tr.Event(e)
	if ev.Kind != trace.EvAssign {
		return nil
	}
	outer := tr.SiteOf(e).Pos
	evs := tr.FrameEvents(ev.Frame)
	var out []int
	for k := sort.SearchInts(evs, e) - 1; k >= 0; k-- {
		in := tr.SiteOf(evs[k])
		if in.Pos == outer || !outer.Encloses(in.Pos) {
			break
		}
		if in.Kind == trace.SiteAssign && strings.HasPrefix(in.Text, "append(") {
			out = append(out, evs[k])
		}
	}
	return out
}

// forwardsDifference reports whether return event i of run s, which
// records no values of its own because it hands a call's results on
// (`return f(x)`), returns a call result that differs between the runs:
// the return is then as different as that result.
func (c *Comparison) forwardsDifference(s Side, i int) bool {
	for _, call := range callSites(c.runs[s].tr.SiteOf(i)) {
		if ret := c.callResult(s, i, call); ret >= 0 && c.relevant(s, ret) {
			return true
		}
	}
	return false
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
		case d >= 0 && slices.ContainsFunc(tr.Event(d).Writes, func(x trace.Item) bool { return x.Loc == w.Loc && x.Value.Alike(rd.value) }):
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
	return nodes(op, site.Exprs...)
}

// nodes lists, in order, the nodes of the expressions xs with operator op.
func nodes(op trace.ExprOp, xs ...*trace.Expr) []*trace.Expr {
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
	for _, x := range xs {
		walk(x)
	}
	return out
}

// readItem is event e of run s's read of the operand text: where it read
// and what.
func (c *Comparison) readItem(s Side, e int, text string) (trace.Item, bool) {
	site := c.runs[s].tr.SiteOf(e)
	for _, it := range c.runs[s].tr.Event(e).Reads {
		if o, ok := operand(site, it.Slot); ok && o.Text == text {
			return it, true
		}
	}
	return trace.Item{}, false
}

// counterRead is what the counterpart event ctr of run s read where rd
// was read: its value, definition (-1 if none) and location. It is the
// operand of the same text (or the named result), else, for an entry of
// a map, the entry of the same key (mapEntry).
func (c *Comparison) counterRead(s Side, ctr int, rd read) (read, bool) {
	if it, ok := c.readItem(s, ctr, rd.text); ok {
		return read{value: it.Value, def: c.runs[s].tr.Def(ctr, it.Slot), loc: it.Loc}, true
	}
	for _, nr := range c.namedResults(s, ctr) {
		if nr.text == rd.text {
			return read{value: nr.value, def: nr.def}, true
		}
	}
	if it, ok := c.mapEntry(s, ctr, rd); ok {
		return read{value: it.Value, def: c.runs[s].tr.Def(ctr, it.Slot), loc: it.Loc}, true
	}
	return read{def: -1}, false
}

// mapEntry is event e of run s's read of the map entry rd read in the
// other run: the one read of an entry with the same key. A statement
// the change rewrote may name the map otherwise (`prefixes[p]` where it
// read `r.prefixes[p]`); the key's digest is the same in both runs.
func (c *Comparison) mapEntry(s Side, e int, rd read) (trace.Item, bool) {
	if rd.loc.Kind != trace.LocMap {
		return trace.Item{}, false
	}
	var found trace.Item
	n := 0
	for _, it := range c.runs[s].tr.Event(e).Reads {
		if it.Loc.Kind == trace.LocMap && it.Loc.Key == rd.loc.Key {
			found, n = it, n+1
		}
	}
	return found, n == 1
}

// callSites are the call sites whose results the site's expressions use.
func callSites(s *trace.Site) []trace.SiteID {
	var out []trace.SiteID
	for _, x := range exprsOf(s, trace.ExprCall) {
		out = append(out, x.Call)
	}
	return out
}

// receiverCalls are the calls whose results event e read as operands
// although its site's expressions do not hold them (not among known): the
// receiver of a method call, which is read, not passed
// (`New(2).Span().String()`). Each is the latest call of e's frame before
// e, inside e's statement, whose text is the operand's.
func receiverCalls(tr *trace.Trace, e int, known []trace.SiteID) []trace.SiteID {
	ev := tr.Event(e)
	site := tr.SiteOf(e)
	want := map[string]bool{}
	for _, it := range ev.Reads {
		if o, ok := operand(site, it.Slot); ok && o.Obj == 0 && !o.Global && strings.HasSuffix(o.Text, ")") {
			want[o.Text] = true
		}
	}
	if len(want) == 0 {
		return nil
	}
	var out []trace.SiteID
	evs := tr.FrameEvents(ev.Frame)
	for k := sort.SearchInts(evs, e) - 1; k >= 0 && len(want) > 0; k-- {
		in := tr.SiteOf(evs[k])
		if in.Pos == site.Pos || !site.Pos.Encloses(in.Pos) {
			break
		}
		if kind := tr.Event(evs[k]).Kind; kind != trace.EvCall && kind != trace.EvCallExt || !want[in.Text] {
			continue
		}
		delete(want, in.Text)
		if !slices.Contains(known, in.ID) {
			out = append(out, in.ID)
		}
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
