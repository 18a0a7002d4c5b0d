package semantic

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"

	"github.com/culprit-dev/culprit/analyzer/trace"
)

// Failure returns the first failure of the run (SEMANTIC.md §3) as a
// target: the branch that controls a t.Error/Fatal/Fail call or an
// explicit panic, a testify assertion's predicate, or the statement of a
// runtime panic.
func (a *Analysis) Failure() (Target, error) {
	fails := a.tr.Failures()
	if len(fails) == 0 {
		return Target{}, fmt.Errorf("%w: the trace records no failure", ErrNoCause)
	}
	i := a.firstFailure(fails)
	if j := a.exitAfter(i); j >= 0 && slices.Contains(fails, j) {
		// The failure that code the trace does not enter reported also
		// ended the frame there (t.FailNow), and the test with it: the
		// frame's exit is the failure, as when nothing reported it.
		i = j
	}
	ev := a.tr.Event(i)
	site := a.tr.SiteOf(i)
	t := Target{Event: i, Outcome: "failed", Failure: i}
	if ev.Kind == trace.EvPanic && ev.Panic != trace.PanicNone {
		// An abnormal exit without a panic is runtime.Goexit: t.FailNow
		// in a helper the trace does not enter (an assertion library).
		t.Outcome = "panic"
	}
	switch {
	case isTestifySite(site):
		t.pred = predObserved
		if b, ok := a.assertion(i); ok {
			return b, nil
		}
	case ev.Kind == trace.EvFail && site.Kind != trace.SiteFail && len(ev.Reads) > 0:
		// The test failed inside a call the trace does not enter (an
		// assertion library's), made by this statement: its operands, as
		// observed, are what the failure depends on.
		if b, ok := a.assertion(i); ok {
			return b, nil
		}
	case ev.Kind == trace.EvPanic && site.Kind != trace.SiteFail && a.isNilDeref(i):
		// The implicit check of a dereference: the pointer was nil.
		t.pred = predNilDeref
	case ev.Kind == trace.EvPanic && site.Kind != trace.SiteFail && len(a.implicitLocals(i)) > 0:
		// A runtime panic whose check reads only local variables.
		t.pred = predImplicit
	default:
		// t.Error*, t.Fatal*, panic(...) and runtime panics: the branch
		// that decided to reach the failing statement.
		if b := a.control(i); b >= 0 {
			t.Event = b
			t.pred = predBranch
		} else {
			t.pred = predNone
		}
	}
	a.seen[t.Event] = true
	return t, nil
}

// exitAfter returns the frame's abnormal exit that comes right after the
// failure event i, at the same statement, when i is a failure that code
// the trace does not enter reported (a failure event at a site that is
// no fail site); else -1.
func (a *Analysis) exitAfter(i int) int {
	ev := a.tr.Event(i)
	if ev.Kind != trace.EvFail || a.tr.SiteOf(i).Kind == trace.SiteFail {
		return -1
	}
	if j := a.nextInFrame(i); j >= 0 && a.tr.Event(j).Kind == trace.EvPanic && a.tr.Event(j).Site == ev.Site {
		return j
	}
	return -1
}

// firstFailure returns the first of the failure events fails that is a
// failure: a testify call is recorded as a failure point before it runs,
// whether its assertion then holds or not, so a call that held (an
// earlier `require.NoError(t, err)`, the passing rows of a table loop) is
// passed over. The evidence, strongest first: a require call whose frame
// went on returned, one followed by the frame's abnormal exit at the same
// statement failed (FailNow); the assertion's predicate evaluated on the
// recorded arguments; the locations the test's output reports. Without
// evidence a call counts as failed, and when none does the first is kept.
func (a *Analysis) firstFailure(fails []int) int {
	var locs map[string]bool
	for _, i := range fails {
		site := a.tr.SiteOf(i)
		if a.tr.Event(i).Kind != trace.EvFail || !isTestifySite(site) {
			return i
		}
		if held, known := a.continued(i, site); known {
			if !held {
				return i
			}
			continue
		}
		if held, known := a.assertionHeld(i, site); known {
			if !held {
				return i
			}
			continue
		}
		if locs == nil {
			locs = outputLocations(a.tr.Result.Output)
		}
		if len(locs) == 0 || a.reportedAt(i, locs) {
			return i
		}
	}
	return fails[0]
}

// continued tells from what the frame did after the testify call i
// whether its assertion held: the frame ended abnormally at the same
// statement right after it (FailNow stops the test's goroutine), or a
// require call returned (it returns only when its assertion held). The
// exit is recorded at the statement, a site of its own on the same line.
func (a *Analysis) continued(i int, site *trace.Site) (held, known bool) {
	j := a.nextInFrame(i)
	if j < 0 {
		return false, false
	}
	next := a.tr.Event(j)
	if ns := a.tr.Site(next.Site); next.Kind == trace.EvPanic && ns.Pos.File == site.Pos.File && ns.Pos.Line == site.Pos.Line {
		return false, true
	}
	if pkg, _ := testifyCall(site); pkg == "require" {
		return true, true
	}
	return false, false
}

// nextInFrame returns the event its frame made right after event i, -1
// if none.
func (a *Analysis) nextInFrame(i int) int {
	evs := a.tr.FrameEvents(a.tr.Event(i).Frame)
	if k, ok := slices.BinarySearch(evs, i); ok && k+1 < len(evs) {
		return evs[k+1]
	}
	return -1
}

var goLocation = regexp.MustCompile(`([^\s:]+\.go):(\d+)`)

// outputLocations returns the "file.go:line" places (base names) that the
// test's output names: testify's Error Trace, t.Error's prefix, stacks.
func outputLocations(out string) map[string]bool {
	locs := map[string]bool{}
	for _, m := range goLocation.FindAllStringSubmatch(out, -1) {
		locs[path.Base(m[1])+":"+m[2]] = true
	}
	return locs
}

// reportedAt reports whether the output names the statement of event i or
// the call of one of the frames it runs in (a helper's caller).
func (a *Analysis) reportedAt(i int, locs map[string]bool) bool {
	at := func(s *trace.Site) bool {
		return s != nil && s.Pos.File != "" && locs[path.Base(s.Pos.File)+":"+strconv.Itoa(s.Pos.Line)]
	}
	if at(a.tr.SiteOf(i)) {
		return true
	}
	for fr := a.tr.Event(i).Frame; fr > 0 && int(fr) < len(a.tr.Frames); {
		f := a.tr.Frame(fr)
		if f.Call < 0 {
			break
		}
		if at(a.tr.SiteOf(f.Call)) {
			return true
		}
		fr = a.tr.Event(f.Call).Frame
	}
	return false
}
