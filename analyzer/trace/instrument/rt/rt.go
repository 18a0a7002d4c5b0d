// Package rt is the tracing runtime linked into instrumented test binaries.
//
// It is compiled into the traced program through a go build overlay, so it
// depends on the standard library only. Events are appended to a shared
// memory-mapped file; see the trace package for the format.
//
// The file holds blocks. A frame reserves a block with one atomic addition
// on the tail word and then appends its records to it with plain stores, as
// long as no other block was reserved after it: every event first checks
// that the tail still ends the frame's block, and otherwise moves on to a
// new block. The blocks in file order, each with its records in program
// order, are one global order of all events: an event that happens before
// another (earlier in the same goroutine, or ordered by a channel
// operation, a lock or other synchronisation between them) comes first,
// because the later event's tail check sees the reservation of the earlier
// event's block. A caller's events after a call come after the callee's for
// the same reason.
//
// Operand reads are pushed into a small per-frame buffer while an expression
// evaluates and copied into the block with the event that consumes them,
// record header last, so a process that dies in the middle of an event
// leaves a zero header, which ends its block.
//
// A full file stops the recording, unless the run asked for its latest
// events (EnvRing): then the file is a ring of chunks, and the offsets the
// tail hands out are virtual, each mapped onto the ring (phys). A block
// never straddles a chunk, so every chunk starts with a block or a pad
// (padMark), and a reader that starts at the oldest chunk still whole finds
// the run's latest events in order. A block reserved on a later lap is
// cleared before use, so that the records of the lap before do not follow
// its own.
package rt

import (
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// Header words of the event file.
const (
	hMagic     = 0  // Magic
	hTail      = 1  // next free word (atomic)
	hCap       = 2  // capacity in words
	hTruncated = 3  // 1 once a block did not fit
	hChunk     = 8  // words of a ring chunk; 0 when the file is no ring
	hWords     = 32 // first block word; words 4 to 7 count interventions (iv.go), 9 to 31 place failures (window.go)

	// Magic identifies an event file ("CULPRTv3").
	Magic = 0x33765452504c5543
	// EnvDir names the trace directory; EnvMax the size bound in bytes.
	EnvDir = "CULPRIT_TRACE"
	EnvMax = "CULPRIT_TRACE_MAX"
	// EnvRing, set to 1, makes a full file keep the latest events.
	EnvRing = "CULPRIT_TRACE_RING"
	// FileName is the event file inside the trace directory.
	FileName = "events.bin"
)

// Event kinds (same numbering as trace.EventKind).
const (
	KEntry   = 1
	KReturn  = 2
	KPanic   = 3
	KCall    = 4
	KCallExt = 5
	KAssign  = 6
	KBranch  = 7
	KFail    = 8
)

// Block layout: a header word (blockMark | length in words), the frame id
// with the goroutine above idBits, then records. A pad (padMark | length)
// fills words no block uses, up to the end of a chunk. A record is a
// header word (n<<48 | kind<<40 | overflow<<39 | site, n counting the
// header) followed by its items. The kind byte holds
// the event kind in its low 5 bits; a branch outcome, the bool value 0 of
// the event, is in the kind byte too (hasOutcome, and the value in bit 5).
// A zero word where a record header would be ends the block's records.
const (
	blockMark  = 0xb1 << 56
	padMark    = 0xb2 << 56
	idBits     = 40
	blockHdr   = 2    // words before the first record of a block
	firstBlock = 16   // words of a frame's first block
	maxBlock   = 4096 // words a frame asks for at most at once
	// bufWords bounds the operand words of one record.
	bufWords = 62
)

var (
	words  []uint64 // the mapped file, nil when tracing is off
	nwords uint64
	// tail points at the tail word: the file's, or noTail when tracing is
	// off, which no frame's block end ever equals.
	tail   = &noTail
	noTail = ^uint64(0)
	// file stays open (and reachable, so not finalised) for provisioning
	// the file's pages; fd is its descriptor, -1 if none.
	fd   = -1
	file *os.File
	// chunk and ringLen are the words of a ring chunk and of the ring,
	// which starts at hWords; both 0 when the file is no ring.
	chunk, ringLen uint64
)

// Ring chunks: maxChunk words at most, and at least minChunks of them.
const (
	maxChunk  = 1 << 17
	minChunks = 4
)

func init() {
	dir := os.Getenv(EnvDir)
	if dir == "" {
		return
	}
	size := int64(256 << 20)
	if s := os.Getenv(EnvMax); s != "" {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil && n >= 4096 {
			size = n
		}
	}
	size &^= 7
	f, err := os.OpenFile(filepath.Join(dir, FileName), os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return
	}
	if err := f.Truncate(size); err != nil {
		f.Close()
		return
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		f.Close()
		return
	}
	largePages(b)
	fd = int(f.Fd())
	file = f
	words = unsafe.Slice((*uint64)(unsafe.Pointer(&b[0])), len(b)/8)
	nwords = uint64(len(words))
	words[hCap] = nwords
	if os.Getenv(EnvRing) == "1" {
		ring(nwords - hWords)
	}
	atomic.StoreUint64(&words[hTail], hWords)
	atomic.StoreUint64(&words[hMagic], Magic)
	if !window() {
		tail = &words[hTail]
	}
	openTypes(dir)
	provision(provisionStep)
}

// ring makes the file a ring of the words after the header, avail of
// them, with chunks as large as maxChunk allows while there are at least
// minChunks. A file too small for chunks that hold the largest block
// stays no ring.
func ring(avail uint64) {
	c := uint64(maxChunk)
	for c > 1 && avail/c < minChunks {
		c /= 2
	}
	if c < 2*(maxBlock+blockHdr+bufWords) {
		return
	}
	chunk, ringLen = c, avail/c*c
	words[hChunk] = chunk
}

// phys maps a virtual word offset onto the file.
func phys(v uint64) uint64 {
	if ringLen == 0 || v < hWords+ringLen {
		return v
	}
	return hWords + (v-hWords)%ringLen
}

// chunkEnd is the virtual offset where the chunk holding v ends.
func chunkEnd(v uint64) uint64 { return v - (v-hWords)%chunk + chunk }

// pad marks the virtual words [from, to) as unused.
func pad(from, to uint64) {
	if to > from {
		words[phys(from)] = padMark | (to - from)
	}
}

// F is the tracing state of one activation of an instrumented function. It
// lives on the function's stack.
type F struct {
	ID uint64 // frame id: the (virtual) offset of the frame's first block
	g  uint64 // goroutine id, set by Enter
	S  uint32 // site of the statement executing (for abnormal exits)
	R  uint32 // site of the return statement once results are evaluated
	E  uint32 // site of the end of the body, where a recovered frame returns
	// test marks the frame of the test function (window.go).
	test bool
	// T marks a frame of test code (a function of a test file, a test
	// helper, a closure inside either), whose events watch for a failure
	// reported by code the tracer does not enter (watch.go).
	T bool

	n   uint32 // pending item words in buf
	ovf uint64 // overflow bit of the pending record (1<<39)
	// p is where the frame's next record goes, bstart and bend bound its
	// block and end is the block end as a word offset: the tail, while the
	// block is the last one reserved. All are zero before the first block.
	p, bstart, bend unsafe.Pointer
	end             uint64
	next            uint64 // words to ask for with the next block
	// marks holds, for the calls being evaluated (innermost last), how
	// many items were pending when each began (M); nm counts the calls,
	// including any beyond the room in marks.
	marks [4]uint32
	nm    uint32
	// hold is the serial lock this activation took in Enter, released
	// in Exit (see iv.go).
	hold *serialLock
	buf  [bufWords]uint64
}

// emit writes a record of the pending items to the frame's block. Unless
// keep is set, the pending items are consumed; with keep they stay pending
// for the next record. For a branch outcome it returns the outcome, which
// an intervention may have forced: the branch hooks stay one inlined call,
// and without interventions the forcing costs one test.
func emit(f *F, kind uint64, site uint32, keep bool) bool {
	if iv != nil {
		kind = iv.atEvent(site, kind)
	}
	if f.T {
		watch(f, kind, site)
	}
	if f.test {
		testEvent()
	}
	if kind == KFail {
		failed(site)
		announced.Store(true)
	}
	n := uintptr(f.n)
	p := f.p
	if keep || atomic.LoadUint64(tail) != f.end || uintptr(p)+n*8+8 > uintptr(f.bend) {
		emitSlow(f, kind, site)
		if !keep {
			f.n, f.ovf = 0, 0
		}
		return kind&outcome != 0
	}
	w := unsafe.Add(p, 8)
	for i := uintptr(0); i < n && i < bufWords; i++ {
		*(*uint64)(unsafe.Add(w, i*8)) = f.buf[i]
	}
	// The header goes last, so a process that dies in the middle leaves a
	// zero header, which ends the block.
	*(*uint64)(p) = uint64(n+1)<<48 | kind<<40 | f.ovf | uint64(site)
	f.p = unsafe.Add(w, n*8)
	f.n, f.ovf = 0, 0
	return kind&outcome != 0
}

// emitSlow is emit when the block is no longer the last one reserved or
// has no room for the record. It leaves the pending items in place.
//
//go:noinline
func emitSlow(f *F, kind uint64, site uint32) {
	n := uintptr(f.n)
	if words == nil || !f.renew(n+1) {
		return
	}
	p := f.p
	copy(unsafe.Slice((*uint64)(unsafe.Add(p, 8)), n), f.buf[:n])
	*(*uint64)(p) = uint64(n+1)<<48 | kind<<40 | f.ovf | uint64(site)
	f.p = unsafe.Add(p, 8+n*8)
}

// renew makes room for need words: it extends the frame's block when the
// block is still the last one reserved, and otherwise reserves a new
// block. It reports false when tracing is off or the file is full.
func (f *F) renew(need uintptr) bool {
	if words == nil || atomic.LoadUint64(&words[hTruncated]) != 0 || waiting.Load() {
		return false
	}
	last := f.end != 0 && atomic.LoadUint64(tail) == f.end
	if last && uintptr(f.p)+need*8 <= uintptr(f.bend) {
		return true
	}
	switch {
	case f.end == 0:
		f.next = firstBlock
	case last:
		// The block filled up uninterrupted: grow faster.
		f.next = min(2*f.next, maxBlock)
	default:
		// Another block came after this one: size the next one by what
		// this one held.
		used := uint64(uintptr(f.p)-uintptr(f.bstart)) / 8
		f.next = min(max(used+8, firstBlock), maxBlock)
	}
	size := max(f.next, uint64(blockHdr+need))
	for {
		off := atomic.AddUint64(tail, size) - size
		if off < hWords || ringLen == 0 && off+size > nwords {
			truncate()
			return false
		}
		if ringLen != 0 {
			if end := chunkEnd(off); off+size > end {
				// A block never straddles a chunk: pad both parts and
				// reserve again, as a new block.
				pad(off, end)
				pad(end, off+size)
				last = false
				continue
			}
			if off >= hWords+ringLen {
				clear(words[phys(off) : phys(off)+size])
			}
		}
		if last && off == f.end && (ringLen == 0 || (off-hWords)%chunk != 0) {
			// Nobody reserved in between: the block grows in place.
			f.bend = unsafe.Add(f.bend, size*8)
			f.end += size
			*(*uint64)(f.bstart) = blockMark | uint64(uintptr(f.bend)-uintptr(f.bstart))/8
			f.provide()
			return true
		}
		p := phys(off)
		b := unsafe.Slice(&words[p], size)
		if f.ID == 0 {
			f.ID = off
		}
		b[1] = f.ID&(1<<idBits-1) | f.g<<idBits
		b[0] = blockMark | size
		f.p = unsafe.Pointer(&b[blockHdr])
		f.bstart, f.bend, f.end = unsafe.Pointer(&b[0]), unsafe.Add(unsafe.Pointer(&b[0]), size*8), off+size
		f.provide()
		return true
	}
}

// truncate marks the trace truncated and moves the tail beyond any block
// end, so that every frame stops recording.
func truncate() {
	atomic.StoreUint64(&words[hTruncated], 1)
	atomic.StoreUint64(tail, 1<<62)
}

// put1 appends a one-word item.
func (f *F) put1(w uint64) {
	if n := f.n; n < bufWords {
		f.buf[n] = w
		f.n = n + 1
	} else {
		f.ovf = 1 << 39
	}
}

// put2 appends a two-word item.
func (f *F) put2(w0, w1 uint64) {
	if n := f.n; n+1 < bufWords {
		f.buf[n] = w0
		f.buf[n+1] = w1
		f.n = n + 2
	} else {
		f.ovf = 1 << 39
	}
}

// E emits an event of the given kind consuming the pending operands.
func E(f *F, kind int, site uint32) { emit(f, uint64(kind), site, false) }

// Enter starts frame f of the function at site; the parameters were pushed
// already. It returns f for chaining in a defer.
func Enter(f *F, site uint32) *F {
	if iv != nil {
		iv.enterHooks(f, site)
	}
	if words == nil {
		return f
	}
	f.g = goid()
	f.test = site == testSite && testSite != 0
	f.putInt(tag(0, roleValue, 0, 0), int64(f.g))
	emit(f, KEntry, site, false)
	return f
}

// Exit ends frame f; it is deferred first so it runs last, also when the
// frame panics, and then gives up a serial lock the frame holds.
func Exit(f *F) {
	if f.R != 0 {
		emit(f, KReturn, f.R, false)
	} else if _, ok := recovered.LoadAndDelete(goid()); ok && f.E != 0 {
		// A deferred call of this frame recovered the panic: the frame
		// returns normally, with its named results as they are.
		f.n, f.ovf = 0, 0
		emit(f, KReturn, f.E, false)
	} else {
		// The reads pending when the statement panicked stay with the
		// event: for a nil dereference, the last of them is the nil
		// pointer. What panicked goes in the header (panic.go).
		f.ovf |= panicKind() << panicShift
		emit(f, KPanic, f.S, false)
		if f.test {
			testPanicked()
		}
	}
	if f.hold != nil {
		f.hold.release()
		f.hold = nil
	}
}

// hasOutcome marks a kind byte that holds a branch outcome in outcome.
const (
	hasOutcome = 0x40
	outcome    = 0x20
)

// At makes site the statement executing and returns true. A condition no
// statement marker can precede (an if's after its init statement, an else
// if's, a loop's on every later iteration) is evaluated as At(f, s) &&
// (cond), so a panic inside it is the condition's, with the reads pending
// in its operand slots.
func At(f *F, site uint32) bool {
	f.S = site
	return true
}

// B records a branch outcome and returns it; an intervention may force it
// (see emit).
func B(f *F, site uint32, c bool) bool {
	return emit(f, KBranch|hasOutcome|b2u(c)<<5, site, false)
}

// SC records the left operand of && or ||; operand reads stay pending for
// the enclosing condition. An intervention may force it (see emit).
func SC(f *F, site uint32, c bool) bool {
	return emit(f, KBranch|hasOutcome|b2u(c)<<5, site, true)
}

// Sw records that clause k of a switch or select was taken.
func Sw(f *F, site uint32, k int) {
	f.putInt(tag(0, roleValue, 0, 0), int64(k))
	emit(f, KBranch, site, false)
}

// CL emits an event (a call or failure point) once the last argument v is
// evaluated, and returns v.
func CL[T any](f *F, kind int, site uint32, v T) T {
	emit(f, uint64(kind), site, false)
	return v
}

// N notes, as M does, that the evaluation of a call begins, for a method
// call whose receiver is a call's result (`get().M(x)`): it goes before
// the receiver, which R passes on, so that the receiver's read is the
// call's own.
//
//go:noinline
func N(f *F) struct{} {
	f.open()
	return struct{}{}
}

// R returns the receiver v once N has marked the call's beginning.
func R[T any](_ struct{}, v T) T { return v }

// CF emits an event before a call whose callee is fn, and returns fn.
func CF[T any](f *F, kind int, site uint32, fn T) T {
	emit(f, uint64(kind), site, false)
	return fn
}

// M notes that the evaluation of a call begins: the items pending now were
// read by the enclosing statement before the call, and stay pending for it
// when the call's event is emitted (CLM, CFM, XM). It is wrapped around the
// function value, which is evaluated before the arguments, and returns fn.
//
// M is never inlined. Inlined, each of the thousand and more calls of a
// module like kong becomes a branch and a store in its caller, and the
// instrumented package took a sixth longer to compile (kong: 3.4 s instead
// of 2.9 s); a mark is one call per call site, not per loop iteration.
//
//go:noinline
func M[T any](f *F, fn T) T {
	f.open()
	return fn
}

// open pushes the mark of a call whose evaluation begins: the number of
// items pending now.
func (f *F) open() {
	if f.nm < uint32(len(f.marks)) {
		f.marks[f.nm] = f.n
	}
	f.nm++
}

// mark pops the mark of the innermost call being evaluated: the number of
// pending items that are not the call's own.
func (f *F) mark() uint32 {
	if f.nm == 0 {
		return 0
	}
	f.nm--
	if f.nm < uint32(len(f.marks)) {
		return f.marks[f.nm]
	}
	return 0
}

// emitFrom emits an event with the pending items from m on, and leaves
// the first m pending.
//
//go:noinline
func emitFrom(f *F, kind uint64, site uint32, m uint32) {
	if m == 0 || m > f.n {
		emit(f, kind, site, false)
		return
	}
	var outer [bufWords]uint64
	copy(outer[:m], f.buf[:m])
	copy(f.buf[:], f.buf[m:f.n])
	f.n -= m
	ovf := f.ovf
	emit(f, kind, site, false)
	copy(f.buf[:m], outer[:m])
	f.n, f.ovf = m, ovf
}

// CLM is CL for a call whose evaluation began with M.
func CLM[T any](f *F, kind int, site uint32, v T) T {
	emitFrom(f, uint64(kind), site, f.mark())
	return v
}

// CFM is CF for a call whose evaluation began with M.
func CFM[T any](f *F, kind int, site uint32, fn T) T {
	emitFrom(f, uint64(kind), site, f.mark())
	return fn
}

// XM is X for a call whose evaluation began with M.
func XM[T any](f *F, site uint32, slot int, v T) T {
	put(f, tag(0, roleValue, 0, 0), v)
	emitFrom(f, KCallExt, site, f.mark())
	put(f, tag(0, roleRead, 0, uint64(slot)), v)
	return v
}

// X records the result of an uninstrumented call at site, emits the CallExt
// event, and pushes the result as read slot for the enclosing statement.
func X[T any](f *F, site uint32, slot int, v T) T {
	put(f, tag(0, roleValue, 0, 0), v)
	emit(f, KCallExt, site, false)
	put(f, tag(0, roleRead, 0, uint64(slot)), v)
	return v
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}
