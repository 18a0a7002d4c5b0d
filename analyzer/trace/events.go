package trace

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
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

// walk calls rec, if not nil, for each record of the event file, read
// through w, in order. It returns the number of records and false if the
// words end in an incomplete block or record. The items handed to rec are
// valid only during the call.
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
