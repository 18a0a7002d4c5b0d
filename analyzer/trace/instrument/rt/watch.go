package rt

import "sync/atomic"

// A test can fail inside code the tracer does not enter: an assertion
// library (goconvey's So, quicktest's Assert, gotest.tools' assert) calls
// t.Fail or t.Errorf itself, and no fail site of the test's code runs.
// The frames of test code (functions of test files, test helpers that
// take a testing.T, closures inside them) watch for it: at each of their
// events they ask the test function's testing.T whether the test has
// failed, and the first event after it has is preceded by a failure event
// at the same site, holding the same pending reads: the operands of the
// statement whose call failed the test. A failure that a fail site's event
// announced (t.Errorf, a testify call) is that site's, and the watch
// records nothing more.

// failer is what the watch asks of a testing.T.
type failer interface{ Failed() bool }

var (
	watched atomic.Pointer[failer]
	// reported is set once the watch has seen the test failed.
	reported atomic.Bool
	// announced is set by a fail site's event, in any frame, and cleared
	// by a watch that finds the test not failed: a failure seen while it
	// is set is the fail site's.
	announced atomic.Bool
)

// Watch gives the test function's frame f its testing.T t; other frames'
// calls do nothing.
func Watch(f *F, t failer) {
	if f.test && t != nil && words != nil {
		watched.Store(&t)
	}
}

// watch is emit's check in a frame of test code, before the event of the
// given kind at site is recorded.
//
//go:noinline
func watch(f *F, kind uint64, site uint32) {
	p := watched.Load()
	if p == nil || reported.Load() {
		return
	}
	switch {
	case !(*p).Failed():
		announced.Store(false)
	case kind == KFail || announced.Load():
		reported.Store(true)
	default:
		reported.Store(true)
		failed(site)
		emitSlow(f, KFail, site)
	}
}
