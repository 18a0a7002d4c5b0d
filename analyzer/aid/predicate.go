package aid

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/culprit-dev/culprit/analyzer/trace"
)

// Family is a kind of predicate (FLAKY.md §2).
type Family uint8

const (
	Branch     Family = iota + 1 // branch(S,v): site S had outcome v
	Never                        // never(S,v): site S never had outcome v
	Interleave                   // interleave(A1,A',A2): an unserialisable triple on one location
	Order                        // order(A,B): two goroutines' access spans of one location overlapped
	RemoteDef                    // remote-def(R,W,G): R read what another goroutine, of class G, wrote at W
	ValueOut                     // value(S,slot): a value outside the passing runs' range
	Panic                        // panic(S): a panic, recovered or not, at S
	Overlap                      // overlap(F): activations of function F on two goroutines overlapped
)

var familyNames = [...]string{"", "branch", "never", "interleave", "order", "remote-def", "value", "panic", "overlap"}

func (f Family) String() string {
	if int(f) < len(familyNames) {
		return familyNames[f]
	}
	return fmt.Sprintf("family(%d)", f)
}

// Pred names a predicate by the build's site ids, which are stable across
// the runs of one build: frame ids, goroutine ids and addresses never
// appear in it.
type Pred struct {
	Family Family
	// Sites: branch/never/value/panic use Sites[0]; order A, B; remote-def
	// R, W and the writer's goroutine class (a function site); interleave
	// A1, A', A2.
	Sites [3]trace.SiteID
	// Arg is the branch outcome (0/1, or a clause index) or the value's
	// result slot.
	Arg int64
}

func (p Pred) String() string {
	switch p.Family {
	case Branch, Never, ValueOut:
		return fmt.Sprintf("%s(%d,%d)", p.Family, p.Sites[0], p.Arg)
	case Panic:
		return fmt.Sprintf("%s(%d)", p.Family, p.Sites[0])
	case Order:
		return fmt.Sprintf("%s(%d,%d)", p.Family, p.Sites[0], p.Sites[1])
	}
	return fmt.Sprintf("%s(%d,%d,%d)", p.Family, p.Sites[0], p.Sites[1], p.Sites[2])
}

// Witness is a predicate's first witness in one run: Time is the index of
// the event that completes it, Events the events that make it up (in
// order; -1 where there is none).
type Witness struct {
	Time   int
	Events [3]int
}

func witness(time int, evs ...int) Witness {
	w := Witness{Time: time, Events: [3]int{-1, -1, -1}}
	copy(w.Events[:], evs)
	return w
}

// valueKey is one result slot of a return or an external call site.
type valueKey struct {
	site trace.SiteID
	slot int
}

// valueRun keeps, for one value key in one run, the values that set a new
// running minimum or maximum, in order: the first value outside any range
// [lo, hi] that the run's extremes leave is always one of them, so this
// short list decides the value predicate for every passing range.
type valueRun struct {
	records []valueRecord
}

type valueRecord struct {
	index int
	v     float64
}

// extracted is what one run contributes: the predicates that held with
// their first witnesses, the branch outcomes seen (for the negated form),
// and the value records (decided once the passing runs' ranges are known).
type extracted struct {
	preds    map[Pred]Witness
	outcomes map[Pred]int // branch(S,v) -> last event with that outcome; never(S,v) uses it
	lastAt   map[trace.SiteID]int
	values   map[valueKey]*valueRun
	end      int // F's event, or len(Events) when the run has none
}

// extract computes the predicates of one trace except never() and
// value(), which depend on all runs (see complete).
func extract(tr *trace.Trace, end int) *extracted {
	x := &extracted{
		preds:    map[Pred]Witness{},
		outcomes: map[Pred]int{},
		lastAt:   map[trace.SiteID]int{},
		values:   map[valueKey]*valueRun{},
		end:      end,
	}
	add := func(p Pred, w Witness) {
		if _, ok := x.preds[p]; !ok {
			x.preds[p] = w
		}
	}
	for i := range tr.Events {
		e := &tr.Events[i]
		x.lastAt[e.Site] = i
		switch e.Kind {
		case trace.EvBranch:
			if len(e.Values) == 0 {
				continue
			}
			p := Pred{Family: Branch, Sites: [3]trace.SiteID{e.Site}, Arg: int64(e.Values[0].Bits)}
			add(p, witness(i, i))
			x.outcomes[p] = i
		case trace.EvPanic:
			add(Pred{Family: Panic, Sites: [3]trace.SiteID{e.Site}}, witness(i, i))
		case trace.EvReturn:
			x.record(e, i)
		case trace.EvCallExt:
			if observedCallee(tr.Site(e.Site).Callee) {
				x.record(e, i)
			}
		}
	}
	shared(tr, add)
	activations(tr, add)
	return x
}

// activations adds overlap(F) when an activation of function F began on
// one goroutine while another goroutine's activation of F had not ended
// (or never ended: the process died inside it, as a fatal concurrent map
// write does, before the access that crashed it could be recorded). The
// witnesses are the two entries, the later first; its time is the later
// entry.
func activations(tr *trace.Trace, add func(Pred, Witness)) {
	byFunc := map[trace.SiteID][]trace.FrameID{}
	for id := 1; id < len(tr.Frames); id++ {
		f := &tr.Frames[id]
		if f.Entry >= 0 && f.Entry < len(tr.Events) {
			byFunc[f.Func] = append(byFunc[f.Func], trace.FrameID(id))
		}
	}
	end := func(f *trace.Frame) int {
		if f.Exit < 0 {
			return len(tr.Events)
		}
		return f.Exit
	}
	for fn, ids := range byFunc {
		sort.Slice(ids, func(i, j int) bool { return tr.Frames[ids[i]].Entry < tr.Frames[ids[j]].Entry })
		// open holds, per goroutine, its activation of fn that ends last
		// so far.
		open := map[int64]*trace.Frame{}
		for _, id := range ids {
			f := &tr.Frames[id]
			for g, o := range open {
				if g != f.Goroutine && end(o) > f.Entry {
					add(Pred{Family: Overlap, Sites: [3]trace.SiteID{fn}}, witness(f.Entry, f.Entry, o.Entry))
					break
				}
			}
			if o := open[f.Goroutine]; o == nil || end(f) > end(o) {
				open[f.Goroutine] = f
			}
		}
	}
}

func (x *extracted) record(e *trace.Event, i int) {
	for slot, v := range e.Values {
		f, ok := number(v)
		if !ok {
			continue
		}
		k := valueKey{e.Site, slot}
		r := x.values[k]
		if r == nil {
			r = &valueRun{}
			x.values[k] = r
		}
		lo, hi := math.Inf(1), math.Inf(-1)
		if n := len(r.records); n > 0 {
			lo, hi = r.min(), r.max()
		}
		if f < lo || f > hi {
			r.records = append(r.records, valueRecord{i, f})
		}
	}
}

func (r *valueRun) min() float64 {
	m := math.Inf(1)
	for _, x := range r.records {
		m = math.Min(m, x.v)
	}
	return m
}

func (r *valueRun) max() float64 {
	m := math.Inf(-1)
	for _, x := range r.records {
		m = math.Max(m, x.v)
	}
	return m
}

// number is a scalar value as a float64 (large integers lose precision,
// which only blurs the range test).
func number(v trace.Value) (float64, bool) {
	switch v.Kind {
	case trace.ValInt:
		return float64(int64(v.Bits)), true
	case trace.ValUint, trace.ValBool:
		return float64(v.Bits), true
	case trace.ValFloat:
		f := v.Float()
		return f, !math.IsNaN(f)
	}
	return 0, false
}

// observedCallee reports whether a call's results are a source of
// nondeterminism worth a value predicate: time, randomness, the runtime
// and the operating system. Methods are named "(time.Time).Sub" or
// "(*math/rand.Rand).Intn".
func observedCallee(callee string) bool {
	callee = strings.TrimPrefix(strings.TrimPrefix(callee, "("), "*")
	for _, p := range []string{"time.", "math/rand.", "math/rand/v2.", "math.", "runtime.", "os."} {
		if strings.HasPrefix(callee, p) {
			return true
		}
	}
	return false
}

// access is one read or write of a shared location.
type access struct {
	event int
	write bool
	g     int64
	frame trace.FrameID
}

// shared derives the predicates over locations that goroutines share:
// heap and captured variables (LocAddr), maps (LocMap, one location per
// map: concurrent map writes crash whatever the keys) and package-level
// variables.
func shared(tr *trace.Trace, add func(Pred, Witness)) {
	byLoc := map[trace.Loc][]access{}
	var locs []trace.Loc
	put := func(l trace.Loc, a access) {
		if _, ok := byLoc[l]; !ok {
			locs = append(locs, l)
		}
		byLoc[l] = append(byLoc[l], a)
	}
	class := goroutineClasses(tr)
	for i := range tr.Events {
		e := &tr.Events[i]
		g := tr.Frames[e.Frame].Goroutine
		if e.Frame == 0 {
			continue // package initialisation: before any goroutine
		}
		for _, it := range e.Reads {
			if l, ok := sharedLoc(it.Loc); ok {
				put(l, access{i, false, g, e.Frame})
				if e.Kind != trace.EvEntry {
					remoteDef(tr, class, i, it, add)
				}
			}
		}
		for _, it := range e.Writes {
			if l, ok := sharedLoc(it.Loc); ok {
				put(l, access{i, true, g, e.Frame})
			}
		}
	}
	for _, l := range locs {
		as := byLoc[l]
		interleavings(tr, as, add)
		overlaps(tr, as, add)
	}
}

// sharedLoc is the location as goroutines share it, false for a
// frame-local variable or an unknown identity.
func sharedLoc(l trace.Loc) (trace.Loc, bool) {
	switch l.Kind {
	case trace.LocAddr:
		return trace.Loc{Kind: trace.LocAddr, Addr: l.Addr, Path: l.Path}, true
	case trace.LocMap:
		return trace.Loc{Kind: trace.LocMap, Addr: l.Addr}, true
	case trace.LocLocal:
		return l, l.Frame == 0 // a package-level variable
	}
	return trace.Loc{}, false
}

// goroutineClasses maps each goroutine to the function site of its
// outermost instrumented frame (the first frame without a parent).
func goroutineClasses(tr *trace.Trace) map[int64]trace.SiteID {
	out := map[int64]trace.SiteID{}
	for id := 1; id < len(tr.Frames); id++ {
		f := &tr.Frames[id]
		if _, ok := out[f.Goroutine]; !ok && f.Parent == 0 {
			out[f.Goroutine] = f.Func
		}
	}
	return out
}

// remoteDef adds remote-def(R,W,G) when the value read by event i was
// last written by another goroutine.
func remoteDef(tr *trace.Trace, class map[int64]trace.SiteID, i int, it trace.Item, add func(Pred, Witness)) {
	w := tr.LastDef(it.Loc, i)
	if w < 0 {
		return
	}
	wg := tr.Frames[tr.Events[w].Frame].Goroutine
	if tr.Events[w].Frame == 0 || wg == tr.Frames[tr.Events[i].Frame].Goroutine {
		return
	}
	add(Pred{Family: RemoteDef, Sites: [3]trace.SiteID{tr.Events[i].Site, tr.Events[w].Site, class[wg]}}, witness(i, w, i))
}

// interleavings adds interleave(A1,A',A2) for each goroutine's consecutive
// accesses A1, A2 of one location in one frame with another goroutine's
// access A' between them that makes the triple unserialisable: R-W-R,
// W-W-R, R-W-W or W-R-W.
func interleavings(tr *trace.Trace, as []access, add func(Pred, Witness)) {
	last := map[int64]int{} // goroutine -> position of its latest access in as
	for p, a2 := range as {
		q, ok := last[a2.g]
		last[a2.g] = p
		if !ok || as[q].frame != a2.frame {
			continue
		}
		a1 := as[q]
		for k := q + 1; k < p; k++ {
			b := as[k]
			if b.g == a2.g || !unserialisable(a1.write, b.write, a2.write) {
				continue
			}
			add(Pred{Family: Interleave, Sites: [3]trace.SiteID{
				tr.Events[a1.event].Site, tr.Events[b.event].Site, tr.Events[a2.event].Site,
			}}, witness(a2.event, a1.event, b.event, a2.event))
		}
	}
}

func unserialisable(w1, w, w2 bool) bool {
	switch {
	case !w1 && w && !w2, w1 && w && !w2, !w1 && w && w2, w1 && !w && w2:
		return true
	}
	return false
}

// overlaps adds order(A,B) when a goroutine's first access of the
// location (at A) came after another goroutine's first and before its
// last access (at B), at least one of the two a write: the two spans of
// access overlapped. The plain "A before B" would hold in every run where
// the goroutines take turns, since one goroutine always starts before the
// other ends.
func overlaps(tr *trace.Trace, as []access, add func(Pred, Witness)) {
	type span struct{ first, last int }
	spans := map[int64]*span{}
	var gs []int64
	for k, a := range as {
		s := spans[a.g]
		if s == nil {
			spans[a.g] = &span{k, k}
			gs = append(gs, a.g)
			continue
		}
		s.last = k
	}
	sort.Slice(gs, func(i, j int) bool { return spans[gs[i]].first < spans[gs[j]].first })
	for i, g := range gs {
		a := as[spans[g].first]
		for _, h := range gs[:i] {
			b := as[spans[h].last]
			if b.event > a.event && (a.write || b.write) {
				add(Pred{Family: Order, Sites: [3]trace.SiteID{tr.Events[a.event].Site, tr.Events[b.event].Site}},
					witness(a.event, a.event, b.event))
			}
		}
	}
}
