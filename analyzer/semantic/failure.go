package semantic

import (
	"path"
	"regexp"
	"strconv"
	"strings"

	"github.com/culprit-dev/culprit/analyzer/trace"
)

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

func isTestifySite(s *trace.Site) bool {
	return strings.HasPrefix(s.Callee, "github.com/stretchr/testify/assert.") ||
		strings.HasPrefix(s.Callee, "github.com/stretchr/testify/require.")
}

// continued tells from what the frame did after the testify call i
// whether its assertion held: the frame ended abnormally at the same
// statement right after it (FailNow stops the test's goroutine), or a
// require call returned (it returns only when its assertion held). The
// exit is recorded at the statement, a site of its own on the same line.
func (a *Analysis) continued(i int, site *trace.Site) (held, known bool) {
	ev := a.tr.Event(i)
	evs := a.tr.FrameEvents(ev.Frame)
	k := indexOf(evs, i)
	if k < 0 || k+1 >= len(evs) {
		return false, false
	}
	next := a.tr.Event(evs[k+1])
	if ns := a.tr.Site(next.Site); next.Kind == trace.EvPanic && ns.Pos.File == site.Pos.File && ns.Pos.Line == site.Pos.Line {
		return false, true
	}
	if strings.HasPrefix(site.Callee, "github.com/stretchr/testify/require.") {
		return true, true
	}
	return false, false
}

func indexOf(evs []int, i int) int {
	lo, hi := 0, len(evs)
	for lo < hi {
		m := (lo + hi) / 2
		if evs[m] < i {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(evs) && evs[lo] == i {
		return lo
	}
	return -1
}

// assertionHeld evaluates a modelled testify predicate on the values the
// call's arguments were recorded with; known is false when a value is
// missing or not comparable from its record.
func (a *Analysis) assertionHeld(i int, site *trace.Site) (held, known bool) {
	name, ok := assertPred(site)
	if !ok {
		return false, false
	}
	types := map[int]trace.Type{}
	arg := func(k int) (trace.Value, bool) {
		if k >= len(site.Exprs) || site.Exprs[k] == nil {
			return trace.Value{}, false
		}
		e := site.Exprs[k]
		for e.Op == trace.ExprConv && e.Type.Kind == trace.TypeInterface && e.X != nil {
			e = e.X
		}
		types[k] = e.Type
		switch e.Op {
		case trace.ExprConst:
			return e.Const, e.Const.Kind != trace.ValNone
		case trace.ExprRead, trace.ExprCall:
			it, ok := a.tr.Event(i).Read(e.Slot)
			return it.Value, ok && it.Value.Kind != trace.ValNone
		}
		return trace.Value{}, false
	}
	switch name {
	case "Equal", "EqualValues", "NotEqual":
		x, okx := arg(1)
		y, oky := arg(2)
		// Equal compares the dynamic types too: values of different
		// types are unequal whatever their bits.
		if !okx || !oky || name != "EqualValues" && types[1] != types[2] {
			return false, false
		}
		eq, known := sameValue(x, y)
		if !known {
			return false, false
		}
		return eq == (name != "NotEqual"), true
	case "True", "False":
		x, ok := arg(1)
		if !ok || x.Kind != trace.ValBool {
			return false, false
		}
		return x.Bool() == (name == "True"), true
	case "Nil", "NoError", "NotNil", "Error":
		x, ok := arg(1)
		if !ok {
			return false, false
		}
		switch x.Kind {
		case trace.ValPointer, trace.ValSlice, trace.ValIface:
		default:
			return false, false
		}
		return x.Nil == (name == "Nil" || name == "NoError"), true
	}
	return false, false
}

// sameValue compares two recorded values where the record decides it:
// booleans, integers and strings (by length and hash).
func sameValue(x, y trace.Value) (eq, known bool) {
	num := func(v trace.Value) bool {
		return v.Kind == trace.ValInt || v.Kind == trace.ValUint || v.Kind == trace.ValBool
	}
	switch {
	case num(x) && num(y):
		return x.Bits == y.Bits, true
	case x.Kind == trace.ValString && y.Kind == trace.ValString:
		return x.Len == y.Len && x.Hash == y.Hash, true
	}
	return false, false
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

// panicOperands returns the operands of the statement where the panic
// event i occurred. A statement that is a call the tracer did not enter
// (a helper outside the module that called t.FailNow or panicked) has no
// operands of its own: the call's are what decided the failure, and its
// event, recorded after the call returns, never happened.
func (a *Analysis) panicOperands(i int) []trace.Operand {
	site := a.tr.SiteOf(i)
	if len(site.Operands) > 0 || site.Kind != trace.SiteStmt {
		return site.Operands
	}
	if a.extCalls == nil {
		a.extCalls = map[trace.Pos]trace.SiteID{}
		for k := range a.tr.Sites {
			if s := &a.tr.Sites[k]; s.Kind == trace.SiteCallExt {
				p := s.Pos
				p.EndLine, p.EndCol = 0, 0
				a.extCalls[p] = s.ID
			}
		}
	}
	p := site.Pos
	p.EndLine, p.EndCol = 0, 0
	if id, ok := a.extCalls[p]; ok {
		return a.tr.Site(id).Operands
	}
	return nil
}
