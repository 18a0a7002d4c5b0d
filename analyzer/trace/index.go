// The queries over a decoded trace: its events, sites and frames by id,
// and the def-use index the semantic engine, the comparison and the
// interventions read.

package trace

import (
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Event returns event i.
func (t *Trace) Event(i int) *Event { return &t.Events[i] }

// Site returns the site with the given id.
func (t *Trace) Site(id SiteID) *Site { return &t.Sites[id] }

// Frame returns the frame with the given id.
func (t *Trace) Frame(id FrameID) *Frame { return &t.Frames[id] }

// SiteOf returns the site of event i.
func (t *Trace) SiteOf(i int) *Site { return &t.Sites[t.Events[i].Site] }

// FuncOf returns the function site of event i's frame.
func (t *Trace) FuncOf(i int) *Site { return &t.Sites[t.Frames[t.Events[i].Frame].Func] }

// index builds the def-use index once. The trace must not change after
// its first lookup.
func (t *Trace) index() {
	t.once.Do(func() {
		t.defs = map[Loc][]int{}
		t.callee = map[int]FrameID{}
		t.byFrame = map[FrameID][]int{}
		for i := range t.Events {
			ev := &t.Events[i]
			for _, w := range ev.Writes {
				if w.Loc.Kind != LocNone {
					t.defs[w.Loc] = append(t.defs[w.Loc], i)
				}
				if w.Loc.Kind == LocAddr && w.Value.isStruct() && w.Value.Len > 0 {
					t.noteStruct(i, w.Loc.Addr, uint64(w.Value.Len))
				}
			}
			t.byFrame[ev.Frame] = append(t.byFrame[ev.Frame], i)
			for _, mv := range ev.Moves {
				t.noteMove(i, mv)
			}
		}
		for id := 1; id < len(t.Frames); id++ {
			if c := t.Frames[id].Call; c >= 0 {
				t.callee[c] = FrameID(id)
			}
		}
		t.ext = map[string][]SiteID{}
		for k := range t.Sites {
			if s := &t.Sites[k]; s.Kind == SiteCallExt {
				t.ext[s.Pos.File] = append(t.ext[s.Pos.File], s.ID)
			}
		}
		for _, ids := range t.ext {
			sort.SliceStable(ids, func(a, b int) bool { return t.Sites[ids[b]].Pos.startsAfter(t.Sites[ids[a]].Pos) })
		}
	})
}

// LastDef returns the index of the last event before event `before` that
// wrote loc, or -1 if none did (the location is an input).
func (t *Trace) LastDef(loc Loc, before int) int {
	if loc.Kind == LocNone {
		return -1
	}
	t.index()
	ds := t.defs[loc]
	k := sort.SearchInts(ds, before)
	if k == 0 {
		return -1
	}
	return ds[k-1]
}

// Def returns the event that defined the value read in operand slot of event
// i, or -1 when the read is an input: no traced definition, unknown identity,
// or the defined value differs from the one read (an untraced write came
// between). A later write of the whole variable (or of an enclosing field)
// defines the part too, with a value the trace does not break down, so the
// part is then an input as well. Memory copied as it was (Event.Moves) is
// followed back to the write of its source.
func (t *Trace) Def(i, slot int) int {
	d, _ := t.DefWrite(i, slot)
	return d
}

// DefWrite is Def with the write that defined the value: of the location
// read, or of the memory it was copied from.
func (t *Trace) DefWrite(i, slot int) (int, Item) {
	it, ok := t.Events[i].Read(slot)
	if !ok || it.Loc.Kind == LocNone {
		return -1, Item{}
	}
	loc, before, below := it.Loc, i, 0
	d := t.LastDef(loc, before)
	for hop := 0; loc.Kind == LocAddr && hop < maxMoveHops; hop++ {
		m, j, src, ok := t.movedInto(loc.Addr, d, before, below)
		if !ok {
			break
		}
		loc, before, below = Loc{Kind: LocAddr, Addr: src}, m, j
		d = t.LastDef(loc, before)
	}
	if d < 0 {
		return -1, Item{}
	}
	for p := it.Loc; p.Path != ""; {
		p.Path = parentPath(p.Path)
		if w := t.LastDef(p, i); w > d {
			return -1, Item{}
		}
	}
	if w, ok := t.WriteOf(d, loc, it.Value); ok {
		return d, w
	}
	return -1, Item{}
}

// WriteOf is the write of location loc that event d recorded, when the
// value it wrote is alike v: false when d wrote loc another value (an
// untraced write came between) or did not write it.
func (t *Trace) WriteOf(d int, loc Loc, v Value) (Item, bool) {
	for _, w := range t.Events[d].Writes {
		if w.Loc == loc && w.Value.Alike(v) {
			return w, true
		}
	}
	return Item{}, false
}

// ExtCallsIn returns the sites of calls the tracer does not enter that
// lie within pos (a statement holding them, or the call itself), in the
// order they start, sites that start together by ID. A panic event names
// the statement that was running; when a call of untraced code never
// returned (a helper that called t.FailNow), these are what it ran.
func (t *Trace) ExtCallsIn(pos Pos) []SiteID {
	t.index()
	ids := t.ext[pos.File]
	k := sort.Search(len(ids), func(k int) bool { return !pos.startsAfter(t.Sites[ids[k]].Pos) })
	var out []SiteID
	for ; k < len(ids) && !t.Sites[ids[k]].Pos.startsAfter(Pos{Line: pos.EndLine, Col: pos.EndCol}); k++ {
		if pos.Encloses(t.Sites[ids[k]].Pos) {
			out = append(out, ids[k])
		}
	}
	return out
}

// DefAt is the last write before event i of location loc, or of a whole
// that holds it (a parent path, a struct written whole at its address),
// with whole set then: the event that defined what a read of loc at i
// saw. -1 when none is recorded.
func (t *Trace) DefAt(loc Loc, i int) (int, bool) {
	best := t.wholeDef(loc, i)
	if own := t.LastDef(loc, i); own >= best {
		return own, false
	}
	return best, true
}

// wholeDef is the last write before event i of a whole that holds
// location loc: a parent path, or a struct written whole in memory around
// its address; -1 if none.
func (t *Trace) wholeDef(loc Loc, i int) int {
	t.index()
	best := -1
	for p := loc; p.Path != ""; {
		p.Path = parentPath(p.Path)
		best = max(best, t.LastDef(p, i))
	}
	if loc.Kind == LocAddr {
		best = max(best, t.structAround(loc.Addr, i))
	}
	return best
}

// EnclosingDef returns, for a read in operand slot of event i that Def
// finds no definition for, the latest write before i of a whole value
// holding the part read: the variable or field whose field was read
// (`seg` for `seg.Padding`), a struct written in memory around the
// address read (a struct parameter read through a pointer), or else the
// latest event that recorded a slice whose backing array holds the
// element read (the return of a composite literal `[]T{…}`, whose
// elements no traced write stored). The trace
// does not break that value down, so the part is not checked against it.
// It returns -1 when there is none, or when the part itself was written
// after it.
func (t *Trace) EnclosingDef(i, slot int) int {
	it, ok := t.Events[i].Read(slot)
	if !ok || it.Loc.Kind == LocNone {
		return -1
	}
	best := t.wholeDef(it.Loc, i)
	if site := int(t.Events[i].Site); best < 0 && it.Loc.Kind == LocAddr && site < len(t.Sites) && slot < len(t.Sites[site].Operands) {
		best = t.sliceAround(it.Loc.Addr, t.Sites[site].Operands[slot].Type.Size(), i)
	}
	own := t.LastDef(it.Loc, i)
	if own > best || own == best && own >= 0 && !t.writesStruct(own, it.Loc) {
		// The part was written after the whole, or with it (a
		// composite literal) and Def found its value changed since.
		return -1
	}
	return best
}

// writesStruct reports whether event i writes a struct recorded by its
// bytes at loc.
func (t *Trace) writesStruct(i int, loc Loc) bool {
	return slices.ContainsFunc(t.Events[i].Writes, func(w Item) bool { return w.Loc == loc && w.Value.isStruct() })
}

// noteStruct indexes event i's write of a struct of size n at addr under
// each page it covers.
func (t *Trace) noteStruct(i int, addr, n uint64) {
	if t.structs == nil {
		t.structs = map[uint64][]int{}
	}
	for p := addr >> movePage; p <= (addr+n-1)>>movePage; p++ {
		if evs := t.structs[p]; len(evs) == 0 || evs[len(evs)-1] != i {
			t.structs[p] = append(evs, i)
		}
	}
}

// structAround returns the latest event before `before` that wrote a
// struct in memory over addr, -1 if none did.
func (t *Trace) structAround(addr uint64, before int) int {
	evs := t.structs[addr>>movePage]
	k := sort.SearchInts(evs, before)
	for n := 0; k > 0 && n < maxMoveScan; n++ {
		k--
		for _, w := range t.Events[evs[k]].Writes {
			if w.Loc.Kind == LocAddr && w.Value.isStruct() && addr >= w.Loc.Addr && addr-w.Loc.Addr < uint64(w.Value.Len) {
				return evs[k]
			}
		}
	}
	return -1
}

// indexSlices indexes, once and only when asked (the comparison's
// fallback for an element read without a definition), the slices every
// event recorded by the page their backing arrays start in.
func (t *Trace) indexSlices() {
	t.sliceOnce.Do(func() {
		for i := range t.Events {
			ev := &t.Events[i]
			for _, w := range ev.Writes {
				t.noteSlice(i, w.Value)
			}
			for _, v := range ev.Values {
				t.noteSlice(i, v)
			}
		}
	})
}

// noteSlice indexes event i's record of slice value v under the page its
// backing array starts in.
func (t *Trace) noteSlice(i int, v Value) {
	if v.Kind != ValSlice || v.Nil || v.Cap <= 0 {
		return
	}
	if t.slices == nil {
		t.slices = map[uint64][]int{}
	}
	p := v.Bits >> movePage
	if evs := t.slices[p]; len(evs) == 0 || evs[len(evs)-1] != i {
		t.slices[p] = append(evs, i)
	}
}

// sliceSpan bounds how far below an element's address sliceAround looks
// for the start of its backing array.
const sliceSpan = 1 << 16

// sliceAround returns the latest event before `before` that recorded a
// slice whose backing array holds an element of size bytes at addr, -1 if
// none did or the size is unknown.
func (t *Trace) sliceAround(addr uint64, size int, before int) int {
	if size <= 0 {
		return -1
	}
	t.indexSlices()
	if t.slices == nil {
		return -1
	}
	best := -1
	low := addr - min(addr, sliceSpan)
	for p := addr >> movePage; p >= low>>movePage; p-- {
		evs := t.slices[p]
		k := sort.SearchInts(evs, before)
		for n := 0; k > 0 && n < maxMoveScan && evs[k-1] > best; n++ {
			k--
			if t.holdsElement(evs[k], addr, uint64(size)) {
				best = evs[k]
				break
			}
		}
		if p == 0 {
			break
		}
	}
	return best
}

// holdsElement reports whether event i recorded a slice whose backing
// array holds an element of size bytes at addr.
func (t *Trace) holdsElement(i int, addr, size uint64) bool {
	ev := &t.Events[i]
	in := func(v Value) bool { return v.HasElementAt(addr, size, v.Cap) }
	return slices.ContainsFunc(ev.Values, in) || slices.ContainsFunc(ev.Writes, func(w Item) bool { return in(w.Value) })
}

// HasElementAt reports whether the slice v's backing array has, among
// its first n elements of size bytes, one at addr.
func (v Value) HasElementAt(addr, size uint64, n int64) bool {
	return v.Kind == ValSlice && !v.Nil && size > 0 && addr >= v.Bits && addr < v.Bits+uint64(n)*size && (addr-v.Bits)%size == 0
}

// Size is the size in bytes of a value of type t on a 64-bit target, 0
// when the trace does not know it (a struct or array recorded opaque).
func (t Type) Size() int {
	switch t.Kind {
	case TypeBool:
		return 1
	case TypeInt, TypeUint, TypeFloat, TypeComplex:
		return t.Bits / 8
	case TypeString, TypeInterface:
		return 16
	case TypeSlice:
		return 24
	case TypePointer, TypeMap, TypeChan, TypeFunc:
		return 8
	case TypeStruct, TypeArray:
		if t.Layout != nil {
			return t.Layout.Size
		}
	}
	return 0
}

// Bounds on following moves: how many copies of copies, and how many
// events with a move into an address's page one step looks through.
const (
	maxMoveHops = 64
	maxMoveScan = 1 << 14
	movePage    = 12 // log2 of the page size moves are indexed by
)

// noteMove indexes move mv of event i under each page its destination
// covers.
func (t *Trace) noteMove(i int, mv Move) {
	if mv.Len == 0 {
		return
	}
	if t.moved == nil {
		t.moved = map[uint64][]int{}
	}
	for p := mv.Dst >> movePage; p <= (mv.Dst+mv.Len-1)>>movePage; p++ {
		if evs := t.moved[p]; len(evs) == 0 || evs[len(evs)-1] != i {
			t.moved[p] = append(evs, i)
		}
	}
}

// movedInto returns the latest move to addr after event `after` and
// before the first `below` moves of event `before` (moves of one event are
// in the order they happened, all before its writes): the event, the
// move's index in it, and the address addr was copied from. Only the
// events with a move into addr's page are looked at.
func (t *Trace) movedInto(addr uint64, after, before, below int) (int, int, uint64, bool) {
	t.index()
	evs := t.moved[addr>>movePage]
	k := sort.SearchInts(evs, before+1)
	for n := 0; k > 0 && n < maxMoveScan; n++ {
		k--
		m := evs[k]
		if m <= after {
			break
		}
		mv := t.Events[m].Moves
		j := len(mv)
		if m == before {
			j = below
		}
		for j--; j >= 0; j-- {
			if addr >= mv[j].Dst && addr-mv[j].Dst < mv[j].Len {
				return m, j, mv[j].Src + (addr - mv[j].Dst), true
			}
		}
	}
	return 0, 0, 0, false
}

// parentPath drops the last field or index step of a location path
// (".a.b" -> ".a", ".a[2]" -> ".a", ".a" -> "").
func parentPath(p string) string {
	if k := strings.LastIndexAny(p, ".["); k >= 0 {
		return p[:k]
	}
	return ""
}

// Callee returns the frame entered by the Call event i, or 0 if the callee
// was not instrumented or never entered.
func (t *Trace) Callee(i int) FrameID {
	t.index()
	return t.callee[i]
}

// FrameEvents returns the events of frame f in order. The slice is
// shared: callers must not change it.
func (t *Trace) FrameEvents(f FrameID) []int {
	t.index()
	return t.byFrame[f]
}

// LastCall returns the latest Call or CallExt event of site call in the
// frame of event i, before i; -1 if there is none.
func (t *Trace) LastCall(i int, call SiteID) int {
	evs := t.FrameEvents(t.Events[i].Frame)
	for k := sort.SearchInts(evs, i) - 1; k >= 0; k-- {
		e := &t.Events[evs[k]]
		if e.Site == call && (e.Kind == EvCall || e.Kind == EvCallExt) {
			return evs[k]
		}
	}
	return -1
}

// Failures returns the indices of the failure events in order: EvFail
// events, and for each panic that was not recovered the EvPanic of its
// innermost frame (the statement where a runtime panic occurred).
func (t *Trace) Failures() []int {
	var out []int
	for i := range t.Events {
		switch t.Events[i].Kind {
		case EvFail:
			out = append(out, i)
		case EvPanic:
			if !t.unwinding(i) && !t.recovered(i) {
				out = append(out, i)
			}
		}
	}
	return out
}

// recovered reports whether the panic that the EvPanic event i reports
// was recovered: a frame further up its goroutine's unwinding chain
// returned normally.
func (t *Trace) recovered(i int) bool {
	fr := t.Events[i].Frame
	for fr != 0 {
		f := &t.Frames[fr]
		if f.Exit < 0 {
			return false
		}
		if t.Events[f.Exit].Kind == EvReturn {
			return true
		}
		p := f.Parent
		if p == 0 || t.Frames[p].Goroutine != f.Goroutine {
			return false
		}
		fr = p
	}
	return false
}

// unwinding reports whether the EvPanic event i continues a panic already
// reported by a frame it called.
func (t *Trace) unwinding(i int) bool {
	g := t.Frames[t.Events[i].Frame].Goroutine
	for j := i - 1; j >= 0; j-- {
		e := &t.Events[j]
		if t.Frames[e.Frame].Goroutine != g {
			continue
		}
		return e.Kind == EvPanic && t.Frames[e.Frame].Parent == t.Events[i].Frame
	}
	return false
}

func itoa(n int) string { return strconv.Itoa(n) }
