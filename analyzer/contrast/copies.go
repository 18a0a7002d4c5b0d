package contrast

import (
	"sort"
	"strings"

	"github.com/culprit-dev/culprit/analyzer/trace"
)

// A function's entry copies its value receiver and its struct parameters
// from what the call passed; a read of a local whole also sees the writes
// of its parts made since. The definitions below follow such values back
// to the writes that made them, where Def alone stops at the copy or the
// whole.

// copyDef is the caller's write that gave the value v of operand o, a
// location below a copy the function's entry, def, made of what its call
// passed (a value receiver, a parameter of struct type): the last write
// before the call of the same part of what the call passed, or of a whole
// holding it (whole). -1 when o is no such location, or the write
// recorded there did not write v.
func copyDef(tr *trace.Trace, def int, o trace.Operand, v trace.Value) (int, bool) {
	if !o.InCopy || def < 0 || tr.Event(def).Kind != trace.EvEntry {
		return -1, false
	}
	call := tr.Frame(tr.Event(def).Frame).Call
	if call < 0 {
		return -1, false
	}
	loc, ok := copiedFrom(tr, call, o)
	if !ok {
		return -1, false
	}
	d, whole := tr.DefAt(loc, call)
	if d < 0 || whole {
		return d, whole
	}
	if _, ok := tr.WriteOf(d, loc, v); ok {
		return d, false
	}
	return -1, false
}

// copiedFrom is the location that call event call copied part o of a
// receiver or argument from: below the local or field the call names for
// its receiver (trace.Operand.RecvFrom) or at the address it read for it,
// or below the location of the argument it read.
func copiedFrom(tr *trace.Trace, call int, o trace.Operand) (trace.Loc, bool) {
	site := tr.SiteOf(call)
	part := func(l trace.Loc) (trace.Loc, bool) {
		switch l.Kind {
		case trace.LocLocal:
			l.Path += o.Path
			return l, true
		case trace.LocAddr:
			l.Addr += uint64(o.Offset)
			return l, true
		}
		return trace.Loc{}, false
	}
	if o.Param > 0 {
		k := o.Param - 1
		if k >= len(site.Exprs) || site.Exprs[k].Op != trace.ExprRead {
			return trace.Loc{}, false
		}
		if it, ok := tr.Event(call).Read(site.Exprs[k].Slot); ok {
			return part(it.Loc)
		}
		return trace.Loc{}, false
	}
	for _, a := range site.Operands {
		if a.RecvFrom && a.Obj != 0 {
			loc := trace.Loc{Kind: trace.LocLocal, Frame: tr.Event(call).Frame, Obj: a.Obj, Path: a.Path}
			if a.Global {
				loc.Frame = 0
			}
			return part(loc)
		}
	}
	for _, it := range tr.Event(call).Reads {
		if a, ok := operand(site, it.Slot); ok && a.RecvFrom && it.Value.Kind == trace.ValPointer && !it.Value.Nil {
			return part(trace.Loc{Kind: trace.LocAddr, Addr: it.Value.Bits})
		}
	}
	return trace.Loc{}, false
}

// partsWindow bounds how far back in a frame partsSince looks.
const partsWindow = 4096

// partsSince are the writes, after def and before event e, of the parts
// of the local that e's read it took whole (a field set after the struct
// was, which a read of the struct saw as well), the latest of each part.
// Only a struct or an array, of type t, has parts: other reads are not
// looked back from.
func partsSince(tr *trace.Trace, e, def int, it trace.Item, t trace.Type) []read {
	loc := it.Loc
	if loc.Kind != trace.LocLocal || loc.Frame == 0 || def < 0 || t.Kind != trace.TypeStruct && t.Kind != trace.TypeArray {
		return nil
	}
	var out []read
	seen := map[string]bool{}
	evs := tr.FrameEvents(loc.Frame)
	at := sort.SearchInts(evs, e)
	for k := at - 1; k >= 0 && k >= at-partsWindow && evs[k] > def; k-- {
		for _, w := range tr.Event(evs[k]).Writes {
			l := w.Loc
			if l.Kind != trace.LocLocal || l.Frame != loc.Frame || l.Obj != loc.Obj || !below(l.Path, loc.Path) || seen[l.Path] {
				continue
			}
			seen[l.Path] = true
			out = append(out, read{def: evs[k], value: w.Value, slot: it.Slot})
		}
	}
	return out
}

// below reports whether path p lies strictly below path whole (".a.b"
// below ".a", "[2]" below "").
func below(p, whole string) bool {
	return len(p) > len(whole) && strings.HasPrefix(p, whole) && (p[len(whole)] == '.' || p[len(whole)] == '[')
}
