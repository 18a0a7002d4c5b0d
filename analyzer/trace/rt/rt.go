// Package rt is the tracing runtime linked into instrumented test binaries.
//
// It is compiled into the traced program through a go build overlay, so it
// depends on the standard library only. Events are appended to a shared
// memory-mapped file; see the trace package for the format.
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
	hMagic     = 0 // Magic
	hTail      = 1 // next free word (atomic)
	hCap       = 2 // capacity in words
	hTruncated = 3 // 1 once a record did not fit
	hFrames    = 4 // last frame id handed out (atomic)
	hWords     = 8 // first record word

	// Magic identifies an event file ("CULPRTv1").
	Magic = 0x31765452504c5543
	// EnvDir names the trace directory; EnvMax the size bound in bytes.
	EnvDir = "CULPRIT_TRACE"
	EnvMax = "CULPRIT_TRACE_MAX"
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

var (
	words  []uint64 // the mapped file, nil when tracing is off
	nwords uint64
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
	defer f.Close()
	if err := f.Truncate(size); err != nil {
		return
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		return
	}
	words = unsafe.Slice((*uint64)(unsafe.Pointer(&b[0])), len(b)/8)
	nwords = uint64(len(words))
	words[hCap] = nwords
	atomic.StoreUint64(&words[hTail], hWords)
	atomic.StoreUint64(&words[hMagic], Magic)
}

// bufWords bounds the operand words one frame can hold between events.
const bufWords = 62

// F is the tracing state of one activation of an instrumented function. It
// lives on the function's stack.
type F struct {
	ID  uint64 // frame id
	S   uint32 // site of the statement executing (for abnormal exits)
	R   uint32 // site of the return statement once results are evaluated
	n   uint32
	ovf bool
	buf [bufWords]uint64
}

// emit writes one record: header, frame, and the pending operand words.
// Unless keep is set, the pending words are consumed.
func emit(f *F, kind uint64, site uint32, keep bool) {
	if words == nil {
		f.n = 0
		return
	}
	n := uint64(2 + f.n)
	off := atomic.AddUint64(&words[hTail], n) - n
	if off+n > nwords {
		atomic.StoreUint64(&words[hTruncated], 1)
		atomic.StoreUint64(&words[hTail], nwords) // keep the tail from wrapping
		f.n = 0
		return
	}
	ovf := uint64(0)
	if f.ovf {
		ovf = 1
	}
	words[off+1] = f.ID
	copy(words[off+2:off+n], f.buf[:f.n])
	// The header goes last so a reader never sees a half-written record as complete.
	atomic.StoreUint64(&words[off], n<<48|kind<<40|ovf<<39|uint64(site))
	if !keep {
		f.n = 0
		f.ovf = false
	}
}

// E emits an event of the given kind consuming the pending operands.
func E(f *F, kind int, site uint32) { emit(f, uint64(kind), site, false) }

// Enter starts frame f of the function at site; the parameters were pushed
// already. It returns f for chaining in a defer.
func Enter(f *F, site uint32) *F {
	if words == nil {
		return f
	}
	f.ID = atomic.AddUint64(&words[hFrames], 1)
	f.push(tag(vInt, roleValue, 0, 0, 1), uint64(getg()))
	emit(f, KEntry, site, false)
	return f
}

// Exit ends frame f; it is deferred first so it runs last.
func Exit(f *F) {
	if f.R != 0 {
		emit(f, KReturn, f.R, false)
		return
	}
	// The reads pending when the statement panicked stay with the event:
	// for a nil dereference, the last of them is the nil pointer.
	emit(f, KPanic, f.S, false)
}

// B records a branch outcome and returns it.
func B(f *F, site uint32, c bool) bool {
	f.push(tag(vBool, roleValue, 0, 0, 1), b2u(c))
	emit(f, KBranch, site, false)
	return c
}

// SC records the left operand of && or ||; operand reads stay pending for
// the enclosing condition.
func SC(f *F, site uint32, c bool) bool {
	m, o := f.n, f.ovf
	f.push(tag(vBool, roleValue, 0, 0, 1), b2u(c))
	emit(f, KBranch, site, true)
	f.n, f.ovf = m, o
	return c
}

// Sw records that clause k of a switch or select was taken.
func Sw(f *F, site uint32, k int) {
	f.push(tag(vInt, roleValue, 0, 0, 1), uint64(k))
	emit(f, KBranch, site, false)
}

// CL emits an event (a call or failure point) once the last argument v is
// evaluated, and returns v.
func CL[T any](f *F, kind int, site uint32, v T) T {
	emit(f, uint64(kind), site, false)
	return v
}

// CF emits an event before a call whose callee is fn, and returns fn.
func CF[T any](f *F, kind int, site uint32, fn T) T {
	emit(f, uint64(kind), site, false)
	return fn
}

// X records the result of an uninstrumented call at site, emits the CallExt
// event, and pushes the result as read slot for the enclosing statement.
func X[T any](f *F, site uint32, slot int, v T) T {
	Val(f, 0, v)
	emit(f, KCallExt, site, false)
	return V(f, slot, v)
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

func (f *F) push(t, v uint64) {
	if f.n+2 > bufWords {
		f.ovf = true
		return
	}
	f.buf[f.n] = t
	f.buf[f.n+1] = v
	f.n += 2
}
