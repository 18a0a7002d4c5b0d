package rt

import (
	"os"
	"strconv"
	"sync/atomic"
)

// A run places its failures by the frame of the test function (EnvTest
// names its site): each failure event records how many events that frame
// had made when it happened, and so does the frame's own abnormal exit.
// The test function runs the same statements, in the same order, in any
// run of the test up to its first failure, so such a count names the same
// point of a failing run and of a passing one. A run given EnvFrom records
// nothing until the test function's frame makes that many events: two
// runs started at the same count can be aligned from their first events.
const (
	// EnvTest names the site of the test function; EnvFrom the event of
	// its frame from which a run records.
	EnvTest = "CULPRIT_TRACE_TEST"
	EnvFrom = "CULPRIT_TRACE_FROM"

	hMarks   = 9  // failure events marked (atomic)
	hFrom    = 10 // the EnvFrom the run was given, 0 if none
	hPanic   = 11 // the test frame's events when it exited panicking, 0 if it did not
	hMark0   = 16 // maxMarks words: site<<markBits | the test frame's events
	maxMarks = 16
	markBits = 40
)

var (
	testSite uint32
	testK    uint64 // events the test function's frame has made
	fromK    uint64
	// waiting is set while a run given EnvFrom has not reached it.
	waiting atomic.Bool
)

// window reads EnvTest and EnvFrom once the file is mapped; it reports
// whether the recording waits for the test frame's event fromK.
func window() bool {
	if n, err := strconv.ParseUint(os.Getenv(EnvTest), 10, 32); err == nil {
		testSite = uint32(n)
	}
	n, err := strconv.ParseUint(os.Getenv(EnvFrom), 10, 64)
	if err != nil || n == 0 || testSite == 0 {
		return false
	}
	fromK = n
	words[hFrom] = n
	waiting.Store(true)
	return true
}

// testEvent counts an event of the test function's frame, and starts the
// recording at event fromK.
//
//go:noinline
func testEvent() {
	testK++
	if testK == fromK && waiting.Load() {
		tail = &words[hTail]
		waiting.Store(false)
	}
}

// failed marks a failure event at site.
//
//go:noinline
func failed(site uint32) {
	if words == nil {
		return
	}
	if i := atomic.AddUint64(&words[hMarks], 1) - 1; i < maxMarks {
		words[hMark0+i] = uint64(site)<<markBits | testK&(1<<markBits-1)
	}
}

// testPanicked marks the test function's frame leaving by a panic.
func testPanicked() {
	if words != nil && words[hPanic] == 0 {
		words[hPanic] = testK
	}
}
