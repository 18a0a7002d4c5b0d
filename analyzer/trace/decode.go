package trace

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unsafe"
)

// Event file layout (see package instrument/rt): 32 header words (magic,
// tail, capacity, truncated flag, interventions applied and expired,
// nanoseconds waited for serial locks, perturbation pauses, the ring's
// chunk size, the failures marked, the test frame's event the recording
// began at and the one it panicked at, and from word 16 the marks), then
// blocks up to the tail. A block is [blockMark | its
// length in words] [goroutine<<idBits | frame id] and records; a record is
// [n<<48 | kind<<40 | overflow<<39 | panic kind<<32 | site] followed by
// its items, n counting the header; a branch outcome is in the kind byte
// (hasOutcome, value in bit 5). A zero word where a record header would be
// ends the block's records (the rest was reserved but not used). A pad
// [padMark | its length] covers words no block holds.
//
// In a ring (a nonzero chunk size) the tail is a virtual offset: the
// ring's words follow the header, and offset v past their end lies at
// hdrWords + (v-hdrWords) mod the ring's length. Once the tail has gone
// round, the oldest chunk is partly overwritten, and the events read start
// at the chunk after it.
const (
	magic      = 0x33765452504c5543
	eventsFile = "events.bin"
	hdrWords   = 32
	hApplied   = 4
	hExpired   = 5
	hWaited    = 6
	hPerturbed = 7
	hChunk     = 8
	hMarks     = 9
	hFrom      = 10
	hPanic     = 11
	hMark0     = 16
	maxMarks   = 16
	markBits   = 40
	blockMark  = 0xb1
	padMark    = 0xb2
	blockHdr   = 2
	idBits     = 40
	hasOutcome = 0x40
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

// walk calls rec, if not nil, for each record of the event file, read
// through w, in order. It returns the number of records and false if the words end in
// an incomplete block or record. The items handed to rec are valid only
// during the call.
func (ev *events) walk(w *window, rec func(h, frame, g uint64, items []uint64)) (int, bool, error) {
	n := 0
	for off := ev.start; off < ev.tail; {
		p := ev.phys(off)
		hw := w.words(p, 1)
		if hw == nil {
			return n, false, w.err
		}
		h := hw[0]
		size := h & (1<<56 - 1)
		if h>>56 == padMark && size > 0 && off+size <= ev.tail {
			off += size
			continue
		}
		if h>>56 != blockMark || size < blockHdr || off+size > ev.tail {
			return n, false, nil
		}
		end := p + size
		fw := w.words(p+1, 1)
		if fw == nil {
			return n, false, w.err
		}
		frame, g := fw[0]&(1<<idBits-1), fw[0]>>idBits
		for r := p + blockHdr; r < end; {
			hw := w.words(r, 1)
			if hw == nil {
				return n, false, w.err
			}
			h := hw[0]
			if h == 0 {
				break
			}
			k := h >> 48
			if k < 1 || r+k > end {
				return n, false, nil
			}
			if rec != nil {
				words := w.words(r, k)
				if words == nil {
					return n, false, w.err
				}
				rec(h, frame, g, words[1:])
			}
			n++
			r += k
		}
		off += size
	}
	return n, true, nil
}

// events is an open event file: its header, the virtual offsets of its
// first block read and of its tail (the words written, as far as the file
// holds them), its ring, and its truncated flag. The runtime writes words
// in the machine's byte order, so they are read in it too.
type events struct {
	f           *os.File
	hdr         [hdrWords]uint64
	start, tail uint64
	// chunk and ring are the words of a chunk and of the ring, 0 when
	// the file is no ring; size is the file's length in words.
	chunk, ring, size uint64
	truncated         bool
}

// openEvents opens the event file and reads its header. A file too short
// for its header is an empty, truncated trace.
func openEvents(name string) (*events, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("reading trace: %w", err)
	}
	ev := &events{f: f, start: hdrWords}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("reading trace: %w", err)
	}
	if _, err := io.ReadFull(f, asBytes(ev.hdr[:])); err != nil {
		ev.truncated = true
		return ev, nil
	}
	if ev.hdr[0] != magic {
		f.Close()
		return nil, fmt.Errorf("reading trace: %s: bad magic", eventsFile)
	}
	ev.size = uint64(st.Size() / 8)
	ev.tail = ev.hdr[1]
	if c := ev.hdr[hChunk]; c > 0 && ev.hdr[2] <= ev.size && ev.hdr[2] >= hdrWords+c {
		ev.chunk, ev.ring = c, (ev.hdr[2]-hdrWords)/c*c
	}
	if ev.ring == 0 || ev.tail <= hdrWords+ev.ring {
		ev.tail = min(ev.tail, ev.size)
	} else {
		// Gone round: the chunk the tail is in was the oldest, and its
		// first words are overwritten.
		old := ev.tail - ev.ring - hdrWords
		ev.start = hdrWords + (old+ev.chunk-1)/ev.chunk*ev.chunk
	}
	if ev.tail < hdrWords {
		ev.tail = 0
		ev.truncated = true
		return ev, nil
	}
	ev.truncated = ev.hdr[3] != 0
	return ev, nil
}

// marks lists the failures the header places, by the test frame's
// events, ordered by them (a failure event's mark before the frame's
// panic at the same count).
func (ev *events) marks() []FailMark {
	var out []FailMark
	for i := range min(ev.hdr[hMarks], maxMarks) {
		w := ev.hdr[hMark0+i]
		out = append(out, FailMark{Site: SiteID(w >> markBits), Events: w & (1<<markBits - 1)})
	}
	if k := ev.hdr[hPanic]; k > 0 {
		out = append(out, FailMark{Events: k})
	}
	slices.SortStableFunc(out, func(a, b FailMark) int { return cmp.Compare(a.Events, b.Events) })
	return out
}

// phys is where virtual offset v lies in the file.
func (ev *events) phys(v uint64) uint64 {
	if ev.ring == 0 || v < hdrWords+ev.ring {
		return v
	}
	return hdrWords + (v-hdrWords)%ev.ring
}

// Close closes the file.
func (ev *events) Close() error { return ev.f.Close() }

// window starts a pass over the event words.
func (ev *events) window() *window {
	return &window{r: ev.f, end: min(ev.tail, ev.size), chunk: windowWords}
}

// windowWords is how many words a window reads at once: more than the
// longest record (its length is 16 bits), so that a record always fits.
const windowWords = 1 << 17

// window hands out the words of an event file, reading a chunk at a time:
// offsets that go on from the last are read ahead. A file shorter than its tail (cut while
// being read) ends the words early, as a truncated trace.
type window struct {
	r     io.ReaderAt
	end   uint64 // the tail: no word at or past it is read
	chunk uint64
	pos   uint64 // word offset of buf[0]
	buf   []uint64
	err   error
}

// words returns the k words at word offset off, or nil past the end or on
// a read error (then w.err is set). The slice is valid until the next call.
func (w *window) words(off, k uint64) []uint64 {
	if off >= w.pos && off+k <= w.pos+uint64(len(w.buf)) {
		return w.buf[off-w.pos : off-w.pos+k]
	}
	if off+k > w.end || w.err != nil {
		return nil
	}
	n := max(k, min(w.chunk, w.end-off))
	if uint64(cap(w.buf)) < n {
		w.buf = make([]uint64, n)
	}
	w.buf, w.pos = w.buf[:n], off
	m, err := w.r.ReadAt(asBytes(w.buf), int64(off*8))
	if err != nil && !errors.Is(err, io.EOF) {
		w.buf, w.err = w.buf[:0], fmt.Errorf("reading trace: %w", err)
		return nil
	}
	if uint64(m/8) < n {
		// The file ends before the tail: the words stop here.
		w.buf, w.end = w.buf[:m/8], off+uint64(m/8)
	}
	if off+k > w.pos+uint64(len(w.buf)) {
		return nil
	}
	return w.buf[off-w.pos : off-w.pos+k]
}

// asBytes returns the memory of ws as bytes.
func asBytes(ws []uint64) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(ws))), len(ws)*8)
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
// kind 6-7, payload words 8-11, the inline flag 12, the slot 16-31 and an
// inline value in 32-63.
const (
	tagInline = 1 << 12
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
				it.Loc = Loc{Kind: LocMap, Addr: rest[0], Key: kv.digest()}
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
// values it recorded (package instrument/rt, types.go).
const typesFile = "types.txt"

// readTypes reads the types file of the trace in dir: each line is an
// interface's first word in hex and the name of the dynamic type it
// stands for. Nil when there is none (an older runtime, or no interface
// recorded). A line cut short by a dying process is skipped.
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
			// Before the message, if the value has one.
			v.Prefix = d.typeNames[v.Bits] + v.Prefix
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
