package trace

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
)

// Event file layout (see package rt): 8 header words, then records of
// [n<<48 | kind<<40 | overflow<<39 | site] [frame] [items...].
const (
	magic      = 0x31765452504c5543
	eventsFile = "events.bin"
	hdrWords   = 8
)

// Read decodes the trace in dir (events.bin and sites.json).
func Read(dir string) (*Trace, error) {
	tab, err := readTable(dir)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(filepath.Join(dir, eventsFile))
	if err != nil {
		return nil, fmt.Errorf("reading trace: %w", err)
	}
	t := &Trace{Skipped: tab.Skipped, Frames: []Frame{{}}, defs: map[Loc][]int{}}
	for _, s := range tab.Sites {
		if s == nil {
			s = &Site{}
		}
		t.Sites = append(t.Sites, *s)
	}
	if len(b) < hdrWords*8 {
		t.Truncated = true
		return t, nil
	}
	w := func(i uint64) uint64 { return binary.LittleEndian.Uint64(b[i*8:]) }
	if w(0) != magic {
		return nil, fmt.Errorf("reading trace: %s: bad magic", eventsFile)
	}
	tail := min(w(1), uint64(len(b)/8))
	t.Truncated = w(3) != 0
	d := decoder{t: t, frames: map[uint64]FrameID{}, stacks: map[int64][]FrameID{}, pendingCall: map[FrameID]int{}}
	for off := uint64(hdrWords); off < tail; {
		h := w(off)
		n := h >> 48
		if n < 2 || off+n > tail {
			t.Truncated = true // a record the process never finished
			break
		}
		rec := make([]uint64, n)
		for i := range rec {
			rec[i] = w(off + uint64(i))
		}
		d.record(rec)
		off += n
	}
	return t, nil
}

type decoder struct {
	t           *Trace
	frames      map[uint64]FrameID
	stacks      map[int64][]FrameID
	pendingCall map[FrameID]int
}

func (d *decoder) record(rec []uint64) {
	t := d.t
	h := rec[0]
	kind := EventKind(h >> 40 & 0xff)
	site := SiteID(h & 0xffffffff)
	if int(site) >= len(t.Sites) {
		return
	}
	e := Event{Index: len(t.Events), Kind: kind, Site: site}
	if kind == EvEntry {
		f := FrameID(len(t.Frames))
		d.frames[rec[1]] = f
		t.Frames = append(t.Frames, Frame{ID: f, Func: site, Entry: e.Index, Exit: -1, Call: -1})
	}
	e.Frame = d.frames[rec[1]]
	d.items(&e, rec[2:])
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
		}
		d.stacks[fr.Goroutine] = append(st, e.Frame)
	case EvReturn, EvPanic:
		if e.Frame != 0 {
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
	for _, it := range e.Writes {
		if it.Loc.Kind != LocNone {
			t.defs[it.Loc] = append(t.defs[it.Loc], e.Index)
		}
	}
	t.Events = append(t.Events, e)
}

// items decodes the operand items of a record.
func (d *decoder) items(e *Event, ws []uint64) {
	s := &d.t.Sites[e.Site]
	for len(ws) > 0 {
		tag := ws[0]
		n := int(tag >> 32 & 0xff)
		if 1+n > len(ws) {
			return
		}
		body := ws[1 : 1+n]
		ws = ws[1+n:]
		vk := ValueKind(tag & 0xff)
		role := tag >> 8 & 0xf
		lk := LocKind(tag >> 12 & 0xf)
		slot := int(tag >> 16 & 0xffff)
		v, rest := decodeValue(vk, body)
		it := Item{Slot: slot, Value: v}
		switch lk {
		case LocAddr:
			if len(rest) > 0 {
				it.Loc = Loc{Kind: LocAddr, Addr: rest[0]}
			}
		case LocMap:
			if len(rest) > 1 {
				kv, _ := decodeValue(ValueKind(rest[1]&0xff), rest[2:])
				it.Loc = Loc{Kind: LocMap, Addr: rest[0], Key: kv}
			}
		default:
			if slot < len(s.Operands) && s.Operands[slot].Obj != 0 && role != 2 {
				op := s.Operands[slot]
				it.Loc = Loc{Kind: LocLocal, Obj: op.Obj, Path: op.Path}
			}
		}
		if role != 2 && slot >= len(s.Operands) {
			continue // a read left pending by a construct without its own event
		}
		switch role {
		case 0:
			e.Reads = append(e.Reads, it)
		case 1:
			e.Writes = append(e.Writes, it)
		default:
			for len(e.Values) <= slot {
				e.Values = append(e.Values, Value{})
			}
			e.Values[slot] = v
		}
	}
	for i := range e.Reads {
		if e.Reads[i].Loc.Kind == LocLocal && !d.t.Sites[e.Site].Operands[e.Reads[i].Slot].Global {
			e.Reads[i].Loc.Frame = e.Frame
		}
	}
	for i := range e.Writes {
		if e.Writes[i].Loc.Kind == LocLocal && !d.t.Sites[e.Site].Operands[e.Writes[i].Slot].Global {
			e.Writes[i].Loc.Frame = e.Frame
		}
	}
}

func decodeValue(k ValueKind, w []uint64) (Value, []uint64) {
	need := 0
	switch k {
	case ValBool, ValInt, ValUint, ValFloat, ValPointer:
		need = 1
	case ValComplex, ValIface:
		need = 2
	case ValString, ValSlice:
		need = 3
	}
	if len(w) < need {
		return Value{}, nil
	}
	v := Value{Kind: k}
	switch k {
	case ValBool, ValInt, ValUint, ValFloat:
		v.Bits = w[0]
	case ValPointer:
		v.Bits, v.Nil = w[0], w[0] == 0
	case ValComplex:
		v.Bits, v.Hash = w[0], w[1]
	case ValIface:
		v.Bits, v.Hash, v.Nil = w[0], w[1], w[0] == 0
	case ValString:
		v.Len, v.Hash = int64(w[0]), w[1]
		var p [8]byte
		binary.LittleEndian.PutUint64(p[:], w[2])
		v.Prefix = string(p[:min(8, v.Len)])
	case ValSlice:
		v.Bits, v.Len, v.Cap, v.Nil = w[0], int64(w[1]), int64(w[2]), w[0] == 0
	}
	return v, w[need:]
}

// Float returns a ValFloat value as a float64.
func (v Value) Float() float64 { return math.Float64frombits(v.Bits) }
