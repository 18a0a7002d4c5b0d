package analyzer_test

import (
	"bytes"
	"os"
	"runtime/debug"
	"strconv"
	"sync"
	"time"
)

// The explanations of this package's tests run in parallel (up to
// -test.parallel at once), but a new one starts only while the process's
// resident memory leaves room for it: a scenario's analysis holds its
// decoded traces, the semantic analysis and the solver, from tens of
// megabytes to more than a gigabyte, and two large ones at once made this
// test process outgrow a laptop. The budget is CULPRIT_TEST_MEMORY (MiB,
// default 3072); one explanation always runs, whatever its size.
var gate = struct {
	sync.Mutex
	running int
}{}

// admitBelow is the resident size above which no further explanation
// starts: half the budget, the room one more is allowed to take.
var admitBelow = func() int64 {
	mib := int64(3072)
	if v, err := strconv.ParseInt(os.Getenv("CULPRIT_TEST_MEMORY"), 10, 64); err == nil && v > 0 {
		mib = v
	}
	return mib << 20 / 2
}()

// admit waits until an explanation may start and returns the function
// that ends it.
func admit() (done func()) {
	freed := false
	for {
		gate.Lock()
		if gate.running == 0 || resident() < admitBelow {
			gate.running++
			gate.Unlock()
			return func() {
				gate.Lock()
				gate.running--
				gate.Unlock()
			}
		}
		gate.Unlock()
		if !freed {
			// What finished explanations left is garbage the runtime
			// has not yet handed back: collect it once before waiting.
			debug.FreeOSMemory()
			freed = true
			continue
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// resident is the process's resident set size in bytes (Linux's
// /proc/self/statm; 0 where it cannot be read, which admits everything):
// the Go heap, and the solver's C memory too.
func resident() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := bytes.Fields(b)
	if len(f) < 2 {
		return 0
	}
	pages, err := strconv.ParseInt(string(f[1]), 10, 64)
	if err != nil {
		return 0
	}
	return pages * int64(os.Getpagesize())
}
