package contrast

import (
	"slices"
	"sort"
	"strings"

	"github.com/culprit-dev/culprit/analyzer/trace"
)

// Objects across runs. An address means nothing in the other run, but
// the event where a run first saw a pointer does: two pointers name the
// same object when the events that first saw them are counterparts. This
// tells apart two runs that link the same objects differently (a list
// whose next field is set on another element), which pointers compared
// by shape cannot. An address the collector freed and gave to a later
// object keeps the name of the first: such pointers may compare as
// different objects, which adds steps to a path but hides none.

// origins maps each non-nil pointer a run saw (read, written, returned)
// to the first event that saw it; sorted lists those pointers in order.
// at lists, by event, the pointers first seen there in the order seen.
type origins struct {
	first  map[uint64]int32
	sorted []uint64
	at     map[int32][]uint64
}

func newOrigins(tr *trace.Trace) *origins {
	o := &origins{first: map[uint64]int32{}, at: map[int32][]uint64{}}
	note := func(v trace.Value, i int) {
		if v.Kind == trace.ValPointer && !v.Nil {
			if _, ok := o.first[v.Bits]; !ok {
				o.first[v.Bits] = int32(i)
				o.sorted = append(o.sorted, v.Bits)
				o.at[int32(i)] = append(o.at[int32(i)], v.Bits)
			}
		}
	}
	for i := range tr.Events {
		ev := tr.Event(i)
		for _, it := range ev.Reads {
			note(it.Value, i)
		}
		for _, it := range ev.Writes {
			note(it.Value, i)
		}
		for _, v := range ev.Values {
			note(v, i)
		}
	}
	slices.Sort(o.sorted)
	return o
}

func (c *Comparison) originsOf(s Side) *origins {
	if c.origins[s] == nil {
		c.origins[s] = newOrigins(c.runs[s].tr)
	}
	return c.origins[s]
}

// origin is the first event of run s that saw the pointer p, -1 if none.
func (c *Comparison) origin(s Side, p uint64) int {
	if i, ok := c.originsOf(s).first[p]; ok {
		return int(i)
	}
	return -1
}

// asFailing returns the address in the failing run of the object that
// pointer p of the passing run names (the pointer first seen at the same
// place of the counterpart event), or a key no address has when there is
// none: the reports then name one object alike on both sides, and two
// objects differently.
func (c *Comparison) asFailing(p uint64) uint64 {
	po := c.originsOf(Passing)
	i, ok := po.first[p]
	if !ok {
		return p | passingOnly
	}
	if j := c.Counterpart(Passing, int(i)); j >= 0 {
		k := slices.Index(po.at[i], p)
		if fs := c.originsOf(Failing).at[int32(j)]; k < len(fs) {
			return fs[k]
		}
	}
	return p | passingOnly
}

// passingOnly marks a key asFailing gives an object of the passing run
// with no counterpart: above every user-space address.
const passingOnly = 1 << 63

// asFailingAddr maps address a of the passing run to the address of the
// same location in the failing run: inside the object that the nearest
// pointer at or below a names (as locAt finds it), mapped by asFailing, at
// the same offset. ok is false when there is no such object or it has no
// counterpart.
func (c *Comparison) asFailingAddr(a uint64) (uint64, bool) {
	p, ok := c.nearestPointer(Passing, a)
	if !ok {
		return 0, false
	}
	f := c.asFailing(p)
	if f&passingOnly != 0 {
		return 0, false
	}
	return f + (a - p), true
}

// failingOverwrite is, for read rd of event e of run r, the failing
// run's write that changed what the passing run's instance of the read saw
// where the runs did not pair it with a read of the same location: the
// passing read has no counterpart, or the two read other objects (a loop
// over a worklist, or a call, that the runs took for other objects). It is
// the failing run's last write of the passing read's location before the
// failing run's instance of the read's time, when the passing run made no
// such write and it wrote another value: a node's kind set by new code and
// read only where the passing run processed that node. counter is the
// counterpart's read of the same operand (counterRead), when ctr has one.
// -1 if none.
func (c *Comparison) failingOverwrite(r Side, e, ctr int, rd, counter read) int {
	if ctr >= 0 && counter.loc.Kind != trace.LocAddr {
		return -1 // no read of the counterpart's to pair with by location
	}
	var pass trace.Item
	var fail *trace.Loc
	limit := ctr
	switch {
	case r == Passing:
		pass = trace.Item{Loc: rd.loc, Value: rd.value}
		if ctr >= 0 {
			fail = &counter.loc
		} else {
			limit = c.frameTime(Passing, e)
		}
	case ctr >= 0:
		pass, fail, limit = trace.Item{Loc: counter.loc, Value: counter.value}, &rd.loc, e
	default:
		return -1
	}
	if pass.Loc.Kind != trace.LocAddr || limit < 0 {
		return -1
	}
	f, ok := c.asFailingAddr(pass.Loc.Addr)
	if !ok || fail != nil && (fail.Kind != trace.LocAddr || fail.Addr == f) {
		return -1 // read alike, or not comparable: the values tell
	}
	ftr := c.runs[Failing].tr
	loc := trace.Loc{Kind: trace.LocAddr, Addr: f}
	d := ftr.LastDef(loc, limit)
	if d < 0 || c.Counterpart(Failing, d) >= 0 {
		return -1
	}
	for _, w := range ftr.Event(d).Writes {
		if w.Loc == loc {
			if eq, known := c.sameIn(Passing, pass.Value, w.Value); known && eq {
				return -1
			}
		}
	}
	return d
}

// frameTime is the other run's instance of the time of event e of run s:
// the counterpart of the latest event of e's frame, at or before e, that
// has one; -1 if none does.
func (c *Comparison) frameTime(s Side, e int) int {
	tr := c.runs[s].tr
	evs := tr.FrameEvents(tr.Event(e).Frame)
	for k := sort.SearchInts(evs, e+1) - 1; k >= 0; k-- {
		if j := c.Counterpart(s, evs[k]); j >= 0 {
			return j
		}
	}
	return -1
}

// maxObject bounds the offset of a location inside the object a run saw
// a pointer to, for locAt.
const maxObject = 1 << 12

// locAt names the address of a written location by the object that
// holds it, as the nearest pointer at or below it that run s saw, and
// its offset there; ok is false when there is none close enough.
func (c *Comparison) locAt(s Side, addr uint64) (origin int, off uint64, ok bool) {
	p, ok := c.nearestPointer(s, addr)
	if !ok {
		return -1, 0, false
	}
	return int(c.originsOf(s).first[p]), addr - p, true
}

// nearestPointer is the pointer run s saw nearest at or below addr, when
// addr lies within maxObject of it.
func (c *Comparison) nearestPointer(s Side, addr uint64) (uint64, bool) {
	o := c.originsOf(s)
	k, found := slices.BinarySearch(o.sorted, addr)
	if !found {
		k--
	}
	if k < 0 || addr-o.sorted[k] >= maxObject {
		return 0, false
	}
	return o.sorted[k], true
}

// otherLoc reports whether address a of run s and b of the other run
// provably name other locations: inside objects that are not
// counterparts, or at other offsets.
func (c *Comparison) otherLoc(s Side, a, b uint64) bool {
	i, x, ok1 := c.locAt(s, a)
	j, y, ok2 := c.locAt(s.other(), b)
	return ok1 && ok2 && (x != y || c.Counterpart(s, i) != j)
}

// sameIn compares value a of run s with value b of the other run as same
// does, and two non-nil pointers by the object they name: the same when
// the events that first saw them are counterparts.
//
// An unsigned integer that equals a pointer its run saw is taken for
// that address (a uintptr made of a pointer) and compared the same way;
// compared exactly, it would differ between any two runs.
//
// Two pointers into the binaries' static data (a type descriptor read
// through unsafe, a global) compare by shape too: the linker placed those
// objects, so their addresses move with any change to the binary, and the
// first event to see one says nothing of which it is, since the whole run
// shares them (go-json keys its encoders by the type descriptor's address).
func (c *Comparison) sameIn(s Side, a, b trace.Value) (eq, known bool) {
	switch {
	case a.Kind == trace.ValPointer && b.Kind == trace.ValPointer && !a.Nil && !b.Nil:
		i, j := c.origin(s, a.Bits), c.origin(s.other(), b.Bits)
		if i < 0 || j < 0 || c.static(s, a.Bits, b.Bits) {
			return same(a, b) // not seen by a traced event: compare by shape
		}
		return c.Counterpart(s, i) == j, true
	case a.Kind == trace.ValUint && b.Kind == trace.ValUint && a.Bits != 0 && b.Bits != 0:
		i, j := c.origin(s, a.Bits), c.origin(s.other(), b.Bits)
		switch {
		case i < 0 || j < 0:
		case c.static(s, a.Bits, b.Bits):
			return true, true
		default:
			return c.Counterpart(s, i) == j, true
		}
	}
	return same(a, b)
}

// static reports whether address a of run s and b of the other run both
// lie in their binaries' static data.
func (c *Comparison) static(s Side, a, b uint64) bool {
	return c.runs[s].tr.InStatic(a) && c.runs[s.other()].tr.InStatic(b)
}

// memoryWindow bounds how far back memoryWriters looks.
const memoryWindow = 200000

// memoryWriters lists, latest first, at most two traced writes to memory
// (not to a never-address-taken local) before event e of run s, in e's
// goroutine, that provably differ from their counterpart in the value
// written, in what they read to reach the location (`p.next = q` with p
// another object) or in the arguments of a call whose result they store,
// or that the other run did not make. Values the trace cannot compare
// (structs, interfaces) do not count: every such write would. Code the
// tracer does not enter reads memory without a trace: when such a call
// behaves differently although its arguments are alike, the memory it
// was handed is what differs, and these are the writes that made it so.
func (c *Comparison) memoryWriters(s Side, e int) []int {
	tr := c.runs[s].tr
	f := tr.Event(e).Frame
	g := tr.Frame(f).Goroutine
	// What ran since the frame's previous event is e's own statement:
	// the untraced call and what it called back, whose writes are its
	// doing, not its input.
	from := e - 1
	evs := tr.FrameEvents(f)
	if k := sort.SearchInts(evs, e); k > 0 {
		from = evs[k-1]
	}
	var out []int
	for i := from; i >= 0 && i >= e-memoryWindow && len(out) < 2; i-- {
		ev := tr.Event(i)
		if ev.Kind != trace.EvAssign || tr.Frame(ev.Frame).Goroutine != g {
			continue
		}
		if !writesMemory(ev) {
			continue
		}
		if j := c.Counterpart(s, i); j < 0 || c.provenDifferent(s, i) || c.movedWrite(s, i, j) || c.callsDiffer(s, i) {
			out = append(out, i)
		}
	}
	return out
}

// elementWriters lists the latest events, at most two, between def and
// event e of run s that stored into an element of the slice v (a write at
// an address among its first v.Len elements, by the size of what was
// written) and that the other run did not make alike: the stores that
// made a slice of the same length hold other elements. A slice read whole
// is defined where its header was made; the elements come later.
func (c *Comparison) elementWriters(s Side, e, def int, v trace.Value) []int {
	tr := c.runs[s].tr
	var out []int
	for i := e - 1; i > def && i >= e-memoryWindow && len(out) < 2; i-- {
		ev := tr.Event(i)
		if ev.Kind != trace.EvAssign {
			continue
		}
		site := tr.SiteOf(i)
		stores := slices.ContainsFunc(ev.Writes, func(w trace.Item) bool {
			if w.Loc.Kind != trace.LocAddr || w.Slot >= len(site.Operands) {
				return false
			}
			return v.HasElementAt(w.Loc.Addr, uint64(site.Operands[w.Slot].Type.Size()), v.Len)
		})
		if stores && c.relevant(s, i) {
			out = append(out, i)
		}
	}
	return out
}

// mapWriters lists earlier events, at most two in each run, that wrote an
// entry of a map event e of run s read whole (len(m), range m, m handed
// to a call), and that ran in their run only or wrote otherwise than
// their counterpart: `delete(m, k)` or `m[k] = v` in changed code, seen
// much later as a map with fewer entries. A range reads its map once,
// before the first iteration: for an iteration, the map is the one its
// loop read. The writes are looked for in both runs from the reads that
// align, since an iteration that ran in one run only has no counterpart
// while the write that removed it may be in the other.
func (c *Comparison) mapWriters(s Side, e int) []item {
	h, maps := c.mapRead(s, e)
	if h < 0 {
		return nil
	}
	out := c.mapWritersIn(s, h, maps)
	if j := c.Counterpart(s, h); j >= 0 {
		out = append(out, c.mapWritersIn(s.other(), j, c.readMaps(s.other(), j))...)
	}
	return out
}

// mapRead is event e when it reads a map value, or for an iteration of a
// range over a map, the loop's read of the map before its first
// iteration, with the maps that event read; -1 if neither.
func (c *Comparison) mapRead(s Side, e int) (int, map[uint64]bool) {
	tr := c.runs[s].tr
	if maps := c.readMaps(s, e); len(maps) > 0 {
		return e, maps
	}
	if i := rangeStart(tr, e); i >= 0 {
		if maps := c.readMaps(s, i); len(maps) > 0 {
			return i, maps
		}
	}
	return -1, nil
}

// readMaps is the maps event e of run s read, by the address a map value
// holds (the address that locates its entries).
func (c *Comparison) readMaps(s Side, e int) map[uint64]bool {
	tr := c.runs[s].tr
	site := tr.SiteOf(e)
	var maps map[uint64]bool
	for _, it := range tr.Event(e).Reads {
		if o, ok := operand(site, it.Slot); ok && o.Type.Kind == trace.TypeMap && it.Value.Kind == trace.ValPointer && !it.Value.Nil {
			if maps == nil {
				maps = map[uint64]bool{}
			}
			maps[it.Value.Bits] = true
		}
	}
	return maps
}

// mapWritersIn lists, latest first, at most two events of run s before e
// that wrote an entry of maps (the maps e read) and differ from their
// counterpart or have none.
func (c *Comparison) mapWritersIn(s Side, e int, maps map[uint64]bool) []item {
	tr := c.runs[s].tr
	var out []item
	for i := e - 1; i >= 0 && i >= e-memoryWindow && len(out) < 2; i-- {
		ev := tr.Event(i)
		if !slices.ContainsFunc(ev.Writes, func(w trace.Item) bool { return w.Loc.Kind == trace.LocMap && maps[w.Loc.Addr] }) {
			continue
		}
		if c.provenDifferent(s, i) {
			out = append(out, item{side: s, event: i})
		}
	}
	return out
}

// objectCalls lists, latest first, at most two earlier events of run s,
// in e's goroutine, whose calls of code the tracer does not enter were
// handed an object that event e's were handed too (the same pointer: a
// receiver, `&buf`), or made it (`re = regexp.MustCompile(p)` before
// `re.MatchString(x)`), and that read other values than their
// counterpart (a changed constant among them) or ran in run s only:
// `buf.WriteString(s)` before `buf.String()`. Such code keeps its state
// in the object, out of the trace's sight, so the earlier calls are where
// the later one's result came from.
func (c *Comparison) objectCalls(s Side, e int) []int {
	tr := c.runs[s].tr
	objs := map[uint64]bool{}
	for _, i := range []int{e, c.statementOf(s, e)} {
		if i < 0 {
			continue
		}
		for _, it := range tr.Event(i).Reads {
			if p, ok := object(it.Value); ok {
				objs[p] = true
			}
		}
	}
	if len(objs) == 0 {
		return nil
	}
	named := func(v trace.Value) bool {
		p, ok := object(v)
		return ok && objs[p]
	}
	g := tr.Frame(tr.Event(e).Frame).Goroutine
	var out []int
	for i := e - 1; i >= 0 && i >= e-memoryWindow && len(out) < 2; i-- {
		ev := tr.Event(i)
		if tr.Frame(ev.Frame).Goroutine != g {
			continue
		}
		// A call through an interface may enter traced code; one that
		// entered none went where the tracer does not.
		if !callsUntraced(tr, tr.SiteOf(i)) && (ev.Kind != trace.EvCall || tr.Callee(i) != 0) {
			continue
		}
		handed := slices.ContainsFunc(ev.Reads, func(it trace.Item) bool { return named(it.Value) })
		made := ev.Kind == trace.EvCallExt && slices.ContainsFunc(ev.Values, named)
		if !handed && !made {
			continue
		}
		if j := c.Counterpart(s, i); j < 0 || c.differs(s, i, j) || c.readsDiffer(s, i, j) || len(c.changedConsts(s, i, j)) > 0 {
			out = append(out, i)
		}
	}
	return out
}

// object is the address of the object a pointer names, or the data word
// of an interface value (the pointer it holds, for a pointer type).
func object(v trace.Value) (uint64, bool) {
	switch {
	case v.Nil:
		return 0, false
	case v.Kind == trace.ValPointer:
		return v.Bits, true
	case v.Kind == trace.ValIface:
		return v.Hash, true
	}
	return 0, false
}

// statementOf is the event of the statement that holds event e's call,
// when e is a call inside it: the next event of e's frame, if its site
// encloses e's. Such a statement reads the receiver of the call for it.
// -1 otherwise.
func (c *Comparison) statementOf(s Side, e int) int {
	tr := c.runs[s].tr
	evs := tr.FrameEvents(tr.Event(e).Frame)
	k := sort.SearchInts(evs, e)
	if k+1 >= len(evs) {
		return -1
	}
	next := evs[k+1]
	if in, outer := tr.SiteOf(e).Pos, tr.SiteOf(next).Pos; outer != in && outer.Encloses(in) {
		return next
	}
	return -1
}

// writesMemory reports whether an event writes a location other code
// may reach: not a never-address-taken local.
func writesMemory(ev *trace.Event) bool {
	return slices.ContainsFunc(ev.Writes, func(w trace.Item) bool {
		return w.Loc.Kind == trace.LocAddr || w.Loc.Kind == trace.LocMap
	})
}

// movedWrite reports whether event i of run s writes memory and read,
// to reach it or to compute the value, something that differs from what
// its counterpart j read: the same value written into another object is
// a difference too.
func (c *Comparison) movedWrite(s Side, i, j int) bool {
	a, b := c.runs[s].tr.Event(i), c.runs[s.other()].tr.Event(j)
	if !writesMemory(a) {
		return false
	}
	for _, w := range a.Writes {
		if w.Loc.Kind != trace.LocAddr {
			continue
		}
		for _, x := range b.Writes {
			if x.Slot == w.Slot && x.Loc.Kind == trace.LocAddr && c.otherLoc(s, w.Loc.Addr, x.Loc.Addr) {
				return true
			}
		}
	}
	return c.readsDiffer(s, i, j)
}

// callsDiffer reports whether a traced call whose result event i of run
// s uses was made with other arguments than its counterpart: the result
// may then differ although the value (a pointer computed anew) compares
// the same.
func (c *Comparison) callsDiffer(s Side, i int) bool {
	tr := c.runs[s].tr
	for _, call := range callSites(tr.SiteOf(i)) {
		if ci := tr.LastCall(i, call); ci >= 0 && c.provenDifferent(s, ci) {
			return true
		}
	}
	return false
}

// readsDiffer reports whether event i of run s read, by operand text, a
// value that comparably differs from what its counterpart j read.
func (c *Comparison) readsDiffer(s Side, i, j int) bool {
	site := c.runs[s].tr.SiteOf(i)
	for _, it := range c.runs[s].tr.Event(i).Reads {
		o, ok := operand(site, it.Slot)
		if !ok || o.Text == "" {
			continue
		}
		cr, ok := c.counterRead(s.other(), j, read{text: o.Text})
		if !ok {
			continue
		}
		if eq, known := c.sameIn(s, it.Value, cr.value); known && !eq {
			return true
		}
	}
	return false
}

// baseDefs lists, for each location event e of run s writes through a
// reference (`p.next = q`, `a[i] = v`), the latest earlier event of e's
// frame that wrote the reference by the same text (`p = …`): the trace
// records where the write went, not the read of p that chose it, and
// when the location moved to another object, that definition of p is
// where the difference came from.
func (c *Comparison) baseDefs(s Side, e int) []int {
	tr := c.runs[s].tr
	ev := tr.Event(e)
	site := tr.SiteOf(e)
	var out []int
	for _, w := range ev.Writes {
		if w.Loc.Kind != trace.LocAddr {
			continue
		}
		o, ok := operand(site, w.Slot)
		if !ok {
			continue
		}
		k := strings.LastIndexAny(o.Text, ".[")
		if k <= 0 {
			continue
		}
		if d := latestWrite(tr, e, o.Text[:k]); d >= 0 {
			out = append(out, d)
		}
	}
	return out
}

// latestWrite is the latest event of event e's frame before e that wrote
// an operand of source text t (an assignment, or the entry that bound a
// parameter); -1 if none did.
func latestWrite(tr *trace.Trace, e int, t string) int {
	evs := tr.FrameEvents(tr.Event(e).Frame)
	for n := sort.SearchInts(evs, e) - 1; n >= 0; n-- {
		d := tr.Event(evs[n])
		if d.Kind != trace.EvAssign && d.Kind != trace.EvEntry {
			continue
		}
		ds := tr.SiteOf(evs[n])
		if slices.ContainsFunc(d.Writes, func(x trace.Item) bool {
			op, ok := operand(ds, x.Slot)
			return ok && op.Text == t
		}) {
			return evs[n]
		}
	}
	return -1
}
