package rt

import (
	"runtime"
	"strings"
)

// Panic kinds, recorded in bits 32-34 of a panic record's header (same
// numbering as trace.PanicKind).
const (
	PanicNone     = 0 // no panic: runtime.Goexit (t.FailNow), or unknown
	PanicNilDeref = 1
	PanicIndex    = 2 // index or slice bounds out of range
	PanicRuntime  = 3 // another runtime error
	PanicUser     = 4 // a call of panic
	panicShift    = 32
)

// panicKind tells what the panic unwinding the calling frame is, from the
// stack its deferred calls run on: the panicking frames are still there,
// below runtime.gopanic, and the function that called gopanic says which
// check failed. Recovering the value instead would change the panic the
// test sees (and its report).
func panicKind() uint64 {
	var pcs [48]uintptr
	n := runtime.Callers(2, pcs[:])
	frames := runtime.CallersFrames(pcs[:n])
	seen := false
	for {
		fr, more := frames.Next()
		if seen {
			fn := fr.Function
			switch {
			case fn == "runtime.panicmem" || fn == "runtime.panicmemAddr":
				return PanicNilDeref
			case strings.HasPrefix(fn, "runtime.panicBounds") || strings.HasPrefix(fn, "runtime.goPanicIndex") || strings.HasPrefix(fn, "runtime.goPanicSlice"):
				return PanicIndex
			case strings.HasPrefix(fn, "runtime.") || strings.HasPrefix(fn, "internal/runtime/"):
				return PanicRuntime
			}
			return PanicUser
		}
		if fr.Function == "runtime.gopanic" {
			seen = true
		}
		if !more {
			return PanicNone
		}
	}
}
