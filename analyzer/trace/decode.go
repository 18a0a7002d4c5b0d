package trace

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Read decodes the trace in dir (events.bin and sites.json). The event
// words are streamed from the file, a window at a time, in two passes (one
// to count the events, one to decode them): a trace of hundreds of
// megabytes never sits in memory beside its decoded events.
func Read(dir string) (*Trace, error) {
	tab, err := readTable(dir)
	if err != nil {
		return nil, err
	}
	ev, err := openEvents(filepath.Join(dir, eventsFile))
	if err != nil {
		return nil, err
	}
	defer ev.Close()
	t := &Trace{Skipped: tab.Skipped, Unentered: tab.Unentered, Frames: []Frame{{}}, Truncated: ev.truncated, Wrapped: ev.start > hdrWords}
	if ev.tail >= hdrWords {
		t.Intervention = Intervened{Applied: ev.hdr[hApplied], Expired: ev.hdr[hExpired], Waited: time.Duration(ev.hdr[hWaited]), Perturbed: ev.hdr[hPerturbed]}
		t.From, t.Marks = ev.hdr[hFrom], ev.marks()
	}
	cut := ev.start
	if t.From > 0 {
		// Every frame running when the recording began entered before.
		cut = math.MaxUint64
	}
	t.Sites = tab.SiteList()
	d := decoder{t: t, frames: map[uint64]FrameID{}, stacks: map[int64][]FrameID{}, pendingCall: map[FrameID]int{}, typeNames: readTypes(dir), cut: cut}
	d.elidedReads()
	n, _, err := ev.walk(ev.window(), nil)
	if err != nil {
		return nil, err
	}
	t.Events = make([]Event, 0, n)
	_, complete, err := ev.walk(ev.window(), d.record)
	if err != nil {
		return nil, err
	}
	if !complete {
		t.Truncated = true // a block or record the process never finished
	}
	maskBareReturns(t)
	return t, nil
}

type decoder struct {
	t           *Trace
	typeNames   map[uint64]string // an interface's first word → its dynamic type (readTypes)
	frames      map[uint64]FrameID
	stacks      map[int64][]FrameID
	pendingCall map[FrameID]int
	// cut is where the events read begin (virtual): a frame whose first
	// block lies before it entered before the trace's window (cutFrame).
	cut       uint64
	funcSites map[string]SiteID

	// The items and values of an event are gathered in reads, writes and
	// vals, then copied to slices of the shared slabs (one allocation for
	// many events).
	reads, writes []Item
	moves         []Move
	vals          []Value
	itemSlab      []Item
	valSlab       []Value

	// Reads the runtime did not record (Operand.Elided) are rebuilt from
	// the last value each frame wrote to the local: elided holds the
	// elided slots of each site, tracked the locals whose reads are elided
	// somewhere, and locals the values of the frames still running.
	elided  [][]int
	tracked map[int]bool
	locals  map[FrameID][]Item
	rebuilt []Item
}

// slabChunk is how many items or values one slab allocation holds.
const slabChunk = 1 << 12

// itemsOf returns a copy of its, in the item slab.
func (d *decoder) itemsOf(its []Item) []Item { return slabCopy(&d.itemSlab, its) }

// valuesOf returns a copy of vs, in the value slab.
func (d *decoder) valuesOf(vs []Value) []Value { return slabCopy(&d.valSlab, vs) }

// slabCopy returns a copy of xs appended to *slab, which is replaced by a
// new chunk when xs does not fit, so that many small slices share a few
// large allocations.
func slabCopy[T any](slab *[]T, xs []T) []T {
	if len(xs) == 0 {
		return nil
	}
	if len(xs) > cap(*slab)-len(*slab) {
		*slab = make([]T, 0, max(slabChunk, len(xs)))
	}
	n := len(*slab)
	*slab = append(*slab, xs...)
	return (*slab)[n:len(*slab):len(*slab)]
}

func (d *decoder) record(h, frame, g uint64, items []uint64) {
	t := d.t
	kind := EventKind(h >> 40 & 0x1f)
	site := SiteID(h & 0xffffffff)
	if int(site) >= len(t.Sites) {
		return
	}
	if _, ok := d.frames[frame]; !ok && frame != 0 && frame < d.cut && kind != EvEntry {
		d.cutFrame(frame, int64(g), site)
	}
	e := Event{Index: len(t.Events), Kind: kind, Site: site}
	if kind == EvPanic {
		e.Panic = PanicKind(h >> 32 & 7)
	}
	if kind == EvEntry {
		f := FrameID(len(t.Frames))
		d.frames[frame] = f
		t.Frames = append(t.Frames, Frame{ID: f, Func: site, Entry: e.Index, Exit: -1, Call: -1})
	}
	e.Frame = d.frames[frame]
	d.vals = d.vals[:0]
	if h>>40&hasOutcome != 0 {
		d.vals = append(d.vals, Value{Kind: ValBool, Bits: h >> 45 & 1})
	}
	d.items(&e, items)
	if d.tracked != nil {
		d.rebuild(&e, h>>39&1 != 0)
	}
	if d.typeNames != nil {
		d.nameTypes()
	}
	e.Reads, e.Writes, e.Values = d.itemsOf(d.reads), d.itemsOf(d.writes), d.valuesOf(d.vals)
	if len(d.moves) > 0 {
		e.Moves = slices.Clone(d.moves)
	}
	fr := &t.Frames[e.Frame]
	switch kind {
	case EvEntry:
		if len(e.Values) > 0 {
			fr.Goroutine = int64(e.Values[0].Bits)
			e.Values = e.Values[1:]
		}
		st := d.stacks[fr.Goroutine]
		if len(st) > 0 {
			p := st[len(st)-1]
			fr.Parent = p
			if c, ok := d.pendingCall[p]; ok {
				fr.Call = c
				delete(d.pendingCall, p)
			}
		} else if c, ok := d.pendingCall[0]; ok && c == e.Index-1 {
			// Called by a package-level initialiser, which runs in no
			// frame: the call is the event just before the entry.
			fr.Call = c
			delete(d.pendingCall, 0)
		}
		d.stacks[fr.Goroutine] = append(st, e.Frame)
	case EvReturn, EvPanic:
		if e.Frame != 0 {
			delete(d.locals, e.Frame)
			fr.Exit = e.Index
			st := d.stacks[fr.Goroutine]
			for i := len(st) - 1; i >= 0; i-- {
				if st[i] == e.Frame {
					d.stacks[fr.Goroutine] = st[:i]
					break
				}
			}
		}
	case EvCall:
		d.pendingCall[e.Frame] = e.Index
	default:
		delete(d.pendingCall, e.Frame)
	}
	t.Events = append(t.Events, e)
}

// cutFrame starts a frame whose first block, with its entry, was
// overwritten before the trace's window: an entry event with no
// parameters stands for it, where its first event in the window is. Its
// caller is unknown, so what it read before the window enters as input.
// A site in no function (a package initialiser) starts none.
func (d *decoder) cutFrame(frame uint64, g int64, site SiteID) {
	t := d.t
	if d.funcSites == nil {
		d.funcSites = map[string]SiteID{}
		for _, s := range t.Sites {
			if s.Kind == SiteFunc {
				d.funcSites[s.Func] = s.ID
			}
		}
	}
	fn, ok := d.funcSites[t.Sites[site].Func]
	if !ok {
		return
	}
	f := FrameID(len(t.Frames))
	d.frames[frame] = f
	e := Event{Index: len(t.Events), Kind: EvEntry, Site: fn, Frame: f}
	t.Frames = append(t.Frames, Frame{ID: f, Func: fn, Goroutine: g, Entry: e.Index, Exit: -1, Call: -1, Cut: true})
	// Any frame of the goroutine that entered before it has not run
	// since, so the frames it calls are the first ones it is below.
	d.stacks[g] = append(d.stacks[g], f)
	t.Events = append(t.Events, e)
}

// elidedReads indexes the elided read operands of the site table.
func (d *decoder) elidedReads() {
	for _, s := range d.t.Sites {
		for _, op := range s.Operands {
			if !op.Elided {
				continue
			}
			if d.tracked == nil {
				d.elided = make([][]int, len(d.t.Sites))
				d.tracked = map[int]bool{}
				d.locals = map[FrameID][]Item{}
			}
			d.elided[s.ID] = append(d.elided[s.ID], op.Slot)
			d.tracked[op.Obj] = true
		}
	}
}

// rebuild adds to the event's reads those the runtime left unrecorded,
// each with the last value its frame wrote to the local, and then notes
// the event's writes. The rebuilt reads go in slot order, except in a
// panic, where they come first, so that the last read is still the last
// one recorded (the nil pointer of a nil dereference). A record that overflowed may have lost writes: the
// frame's values are forgotten, and a read with no value known is left
// out, like a read the runtime could not record.
func (d *decoder) rebuild(e *Event, overflow bool) {
	if e.Frame == 0 {
		return
	}
	known := d.locals[e.Frame]
	if slots := d.elided[e.Site]; len(slots) > 0 {
		ops := d.t.Sites[e.Site].Operands
		d.rebuilt = d.rebuilt[:0]
		for _, k := range slots {
			for _, it := range known {
				if it.Loc.Obj == ops[k].Obj {
					d.rebuilt = append(d.rebuilt, Item{Slot: k, Value: it.Value, Loc: it.Loc})
					break
				}
			}
		}
		if e.Kind == EvPanic {
			d.reads = slices.Insert(d.reads, 0, d.rebuilt...)
		} else {
			// In slot order, which is the order of evaluation.
			at := 0
			for _, it := range d.rebuilt {
				for at < len(d.reads) && d.reads[at].Slot < it.Slot {
					at++
				}
				d.reads = slices.Insert(d.reads, at, it)
				at++
			}
		}
	}
	if overflow {
		known = known[:0]
	}
	for _, w := range d.writes {
		if w.Loc.Kind != LocLocal || w.Loc.Frame != e.Frame || w.Loc.Path != "" || !d.tracked[w.Loc.Obj] {
			continue
		}
		i := 0
		for i < len(known) && known[i].Loc.Obj != w.Loc.Obj {
			i++
		}
		if i == len(known) {
			known = append(known, w)
		} else {
			known[i] = w
		}
	}
	d.locals[e.Frame] = known
}

// Item tags (see package instrument/rt): value kind in bits 0-3, role 4-5, location
// kind 6-7, payload words 8-11, the inline flag 12, the hashed flag 13,
// the elements flag 14, the slot 16-31 and an inline value in 32-63.
const (
	tagInline = 1 << 12
	tagHashed = 1 << 13 // a slice with its elements' hash, an interface with the small value it holds
	tagElems  = 1 << 14 // a hashed slice with its few elements (elemsText)
	roleMove  = 3
)

// items decodes the operand items of a record.
func (d *decoder) items(e *Event, ws []uint64) {
	s := &d.t.Sites[e.Site]
	d.reads, d.writes, d.moves = d.reads[:0], d.writes[:0], d.moves[:0]
	for len(ws) > 0 {
		tag := ws[0]
		n := int(tag >> 8 & 0xf)
		if 1+n > len(ws) {
			return
		}
		body := ws[1 : 1+n]
		ws = ws[1+n:]
		role := tag >> 4 & 3
		if role == roleMove {
			if len(body) == 3 {
				d.moves = append(d.moves, Move{Src: body[0], Dst: body[1], Len: body[2]})
			}
			continue
		}
		lk := LocKind(tag >> 6 & 3)
		slot := int(tag >> 16 & 0xffff)
		v, rest := decodeItem(tag, body)
		if role == 2 {
			for len(d.vals) <= slot {
				d.vals = append(d.vals, Value{})
			}
			d.vals[slot] = v
			continue
		}
		if slot >= len(s.Operands) {
			continue // a read left pending by a construct without its own event
		}
		it := Item{Slot: slot, Value: v.masked(s.Operands[slot].Type.Layout)}
		switch lk {
		case LocAddr:
			if len(rest) > 0 {
				it.Loc = Loc{Kind: LocAddr, Addr: rest[0]}
			}
		case LocMap:
			if len(rest) > 1 {
				kv, _ := decodeItem(rest[1], rest[2:])
				it.Loc = Loc{Kind: LocMap, Addr: rest[0], Key: kv.digest(), KeyKind: kv.Kind}
			}
		default:
			if op := &s.Operands[slot]; op.Obj != 0 {
				it.Loc = Loc{Kind: LocLocal, Obj: op.Obj, Path: op.Path}
				if !op.Global {
					it.Loc.Frame = e.Frame
				}
			}
		}
		if role == 0 {
			d.reads = append(d.reads, it)
		} else {
			d.writes = append(d.writes, it)
		}
	}
}

// typesFile is where the runtime names the dynamic types of the interface
// values it recorded, and lays out the small values it recorded with them
// (package instrument/rt, types.go).
const typesFile = "types.txt"

// readTypes reads the types file of the trace in dir: each line is an
// interface's first word in hex and the name of the dynamic type it
// stands for, for a type whose values were recorded with the interfaces
// holding them followed by a tab and their layout (Value.unbox reads it).
// Nil when there is none (an older runtime, or no interface recorded). A
// line cut short by a dying process is skipped.
func readTypes(dir string) map[uint64]string {
	b, err := os.ReadFile(filepath.Join(dir, typesFile))
	if err != nil || len(b) == 0 {
		return nil
	}
	names := map[uint64]string{}
	for _, line := range strings.Split(string(b), "\n") {
		word, name, ok := strings.Cut(line, " ")
		if w, err := strconv.ParseUint(word, 16, 64); ok && err == nil && name != "" {
			names[w] = name
		}
	}
	return names
}

// nameTypes gives each non-nil interface value of the event being decoded
// the name of its dynamic type, in Prefix.
func (d *decoder) nameTypes() {
	name := func(v *Value) {
		if v.Kind == ValIface && !v.Nil {
			// The types file's line is the name, and a layout after a
			// tab for a small value recorded with the interface.
			name, layout, _ := strings.Cut(d.typeNames[v.Bits], "\t")
			v.unbox(name, layout)
		}
	}
	for i := range d.reads {
		name(&d.reads[i].Value)
	}
	for i := range d.writes {
		name(&d.writes[i].Value)
	}
	for i := range d.vals {
		name(&d.vals[i])
	}
}
