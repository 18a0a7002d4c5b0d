package semantic

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/culprit-dev/culprit/analyzer/smt"
	"github.com/culprit-dev/culprit/analyzer/trace"
)

// Options tune an Analysis. The zero value is usable.
type Options struct {
	// SolverTimeout bounds one solver check; a check that runs out keeps
	// its clauses in the core (which then may not be minimal). Default 10s.
	SolverTimeout time.Duration
	// Window is how many events of a target's backward slice are encoded
	// first; the slice then grows, doubling the step, only from the
	// definitions beyond it that the last core needed. Default
	// DefaultWindow.
	Window int
	// MaxSlice bounds the number of events encoded for one target; the
	// definitions beyond it that the core needs enter it as observed, and
	// the cause says it was cut (Cause.Cut, Stats.Cut). Default
	// DefaultMaxSlice.
	MaxSlice int
	// Deleted lists the code the change removed from the traced tree, so
	// that a branch whose taken side lost a definition of what a cause
	// reads is a critical predicate (an omission error).
	Deleted []Deletion
}

// Defaults of Options.Window and Options.MaxSlice.
const (
	DefaultWindow   = 512
	DefaultMaxSlice = 8192
)

// Stats describe the work done and how much of it was approximate.
type Stats struct {
	SolverCalls int
	Clauses     int // soft clauses encoded
	Slice       int // events in the largest slice
	Cut         int // causes whose slice stopped at Options.MaxSlice
	PointWise   int // expressions encoded point-wise
	Inputs      int // hard clauses v = observed
	NonMinimal  int // cores not proven minimal (solver gave up)
}

// ErrNoCause is returned when no cause can be derived for a target.
var ErrNoCause = errors.New("semantic: no cause could be derived")

// Analysis answers causes and critical predicates over one failing run.
// It is not safe for concurrent use (it owns one solver context).
type Analysis struct {
	tr    *trace.Trace
	src   *sources
	opt   Options
	c     *smt.Context
	idx   *index
	f     *formula
	stats Stats
	seen  map[int]bool // target events already handed out
	ctl   map[int]int  // memo of control()
	// omit holds, by critical predicate event, the deletions in the side
	// it took that may have defined what a cause reads.
	omit map[int][]int
	// dels memoises what is derived from each of Options.Deleted.
	dels []*deletion
	// places caches source lookups by site.
	places map[trace.SiteID]*place
	// fExact is the formula without the premises of unmodelled reads,
	// tried when a target is not forced with them.
	fExact *formula
	// extCalls finds the site of an uninstrumented call by where it
	// starts (built on first use).
	extCalls map[trace.Pos]trace.SiteID
	// objs names the run's objects in the values shown.
	objs trace.Objects
}

// New prepares an analysis of tr; dir is the traced module root, whose
// files the sites name (used for post-dominators and the statically
// possible definitions of Algorithm 3).
func New(tr *trace.Trace, dir string, opt Options) *Analysis {
	if opt.SolverTimeout == 0 {
		opt.SolverTimeout = 10 * time.Second
	}
	if opt.Window == 0 {
		opt.Window = DefaultWindow
	}
	if opt.MaxSlice == 0 {
		opt.MaxSlice = DefaultMaxSlice
	}
	c := smt.NewContext(smt.Options{Timeout: opt.SolverTimeout})
	idx := newIndex(tr)
	return &Analysis{
		tr: tr, src: newSources(dir), opt: opt, c: c, idx: idx,
		f:    newFormula(tr, c, idx),
		seen: map[int]bool{},
		ctl:  map[int]int{},
		omit: map[int][]int{},

		places: map[trace.SiteID]*place{},
	}
}

// Stats returns the work done so far.
func (a *Analysis) Stats() Stats {
	if a.c == nil {
		return a.stats // released: the figures as they were then
	}
	s := a.stats
	s.SolverCalls = a.c.Calls()
	s.PointWise = a.f.pointWise
	s.Inputs = len(a.f.inputs)
	for _, ec := range a.f.clause {
		if ec != nil {
			s.Clauses++
		}
	}
	return s
}

// Release drops the solver context and the encoded formula, which hold
// most of an analysis's memory (Z3's, outside the Go heap, freed when
// the Go objects that own it are collected). Afterwards only Stats,
// Tree and the causes' own methods may be used.
func (a *Analysis) Release() {
	if a.c == nil {
		return
	}
	a.stats = a.Stats()
	a.f = &formula{tr: a.tr, idx: a.idx}
	a.fExact, a.c = nil, nil
	runtime.GC()
}

// Target is a predicate to explain: a branch with its observed outcome,
// or the failing assertion.
type Target struct {
	// Event is the branch or failure event.
	Event int
	// Outcome is "true" or "false" for a branch, the failure kind for the
	// failing assertion ("failed", "panic").
	Outcome string
	// Failure is the failure event for the root target, -1 otherwise.
	Failure int
	// pred says how to negate the target; via is the cause whose critical
	// predicate it is.
	pred predKind
	via  *Cause
}

type predKind uint8

const (
	predBranch   predKind = iota // [[cond]] = ¬outcome
	predObserved                 // not all of the event's reads as observed
	predNone                     // nothing to negate: the statement alone
	predAssert                   // a testify predicate that failed: assert it
	predImplicit                 // a runtime panic's implicit check over locals
	predNilDeref                 // a nil dereference: the pointer read last was nil
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
	ev := a.tr.Event(i)
	site := a.tr.SiteOf(i)
	t := Target{Event: i, Outcome: "failed", Failure: i}
	if ev.Kind == trace.EvPanic {
		t.Outcome = "panic"
	}
	callee := site.Callee
	switch {
	case strings.HasPrefix(callee, "github.com/stretchr/testify/assert.") ||
		strings.HasPrefix(callee, "github.com/stretchr/testify/require."):
		t.pred = predObserved
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

// assertion makes the target of a testify call: the assertion's predicate
// over its arguments where it is one of the common ones, else the call's
// reads negated point-wise, which keeps the dependence on every argument.
func (a *Analysis) assertion(i int) (Target, bool) {
	a.seen[i] = true
	t := Target{Event: i, Outcome: "failed", Failure: i, pred: predObserved}
	if _, ok := assertPred(a.tr.SiteOf(i)); ok {
		t.pred = predAssert
		return t, true
	}
	if len(a.tr.Event(i).Reads) == 0 {
		return Target{}, false
	}
	return t, true
}

// assertPred returns the testify function name of a fail site when its
// predicate is modelled.
func assertPred(s *trace.Site) (string, bool) {
	name := s.Callee[strings.LastIndex(s.Callee, ".")+1:]
	name = strings.TrimSuffix(name, "f")
	switch name {
	case "Equal", "NotEqual", "EqualValues", "True", "False", "Nil", "NotNil", "NoError", "Error":
		return name, len(s.Exprs) >= 2
	}
	return "", false
}

// assertHolds returns [[p]] for the modelled testify predicate p of event
// b.ev, with the arguments after the testing.T.
func (b *builder) assertHolds(name string, args []*trace.Expr) smt.Term {
	c := b.f.c
	arg := func(k int) smt.Term {
		if k >= len(args) {
			b.opaque = true
			return c.Bool(false)
		}
		e := args[k]
		// Arguments are passed as interface values; the predicate is
		// about the operand converted.
		for e.Op == trace.ExprConv && e.Type.Kind == trace.TypeInterface && e.X != nil {
			e = e.X
		}
		return b.expr(e)
	}
	isNil := func(x smt.Term) smt.Term {
		eq, err := c.Eq(x, c.Const(x.Sort(), 0))
		if err != nil {
			b.opaque = true
			return c.Bool(false)
		}
		return eq
	}
	switch name {
	case "Equal", "EqualValues", "NotEqual":
		x, y := arg(1), arg(2)
		if b.opaque {
			return x
		}
		if x.Sort() != y.Sort() {
			if z, err := c.Convert(x, y.Sort()); err == nil {
				x = z
			}
		}
		eq, err := c.Eq(x, y)
		if err != nil {
			b.opaque = true
			return x
		}
		if name == "NotEqual" {
			return c.Not(eq)
		}
		return eq
	case "True":
		return arg(1)
	case "False":
		x := arg(1)
		if b.opaque || x.Sort().Kind != smt.Bool {
			b.opaque = true
			return x
		}
		return c.Not(x)
	case "Nil", "NoError":
		return isNil(arg(1))
	case "NotNil", "Error":
		return c.Not(isNil(arg(1)))
	}
	b.opaque = true
	return c.Bool(false)
}

// control returns the closest enclosing branch event of event i that i
// does not post-dominate (its dynamic control dependence), looking into
// the calling frames when i's own frame has none; -1 if none.
func (a *Analysis) control(i int) int {
	if b, ok := a.ctl[i]; ok {
		return b
	}
	b := a.controlUncached(i)
	a.ctl[i] = b
	return b
}

func (a *Analysis) controlUncached(i int) int {
	for i >= 0 {
		ev := a.tr.Event(i)
		gp := a.place(a.siteOfStmt(i))
		for _, j := range a.idx.before(ev.Frame, i) {
			bj := a.tr.Event(j)
			if bj.Kind != trace.EvBranch {
				continue
			}
			if k := a.tr.SiteOf(j).Kind; k == trace.SiteAndAnd || k == trace.SiteOrOr {
				// A short-circuit decides part of an expression, not
				// whether a later statement runs.
				continue
			}
			if gp == nil {
				return j // no source: the closest branch is the best guess
			}
			bp := a.place(a.tr.SiteOf(j))
			if bp != nil && !postDominatesBranch(gp, bp) {
				return j
			}
		}
		if ev.Frame == 0 || int(ev.Frame) >= len(a.tr.Frames) {
			return -1
		}
		i = a.tr.Frame(ev.Frame).Call
	}
	return -1
}

// siteOfStmt is the site where event i's statement is written: an entry
// is its call.
func (a *Analysis) siteOfStmt(i int) *trace.Site {
	ev := a.tr.Event(i)
	if ev.Kind == trace.EvEntry && ev.Frame > 0 {
		if c := a.tr.Frame(ev.Frame).Call; c >= 0 {
			return a.tr.SiteOf(c)
		}
	}
	return a.tr.SiteOf(i)
}

func (a *Analysis) place(s *trace.Site) *place {
	if s == nil || s.Pos.File == "" {
		return nil
	}
	if p, ok := a.places[s.ID]; ok {
		return p
	}
	p, err := a.src.find(s.Pos.File, s.Pos.Line, s.Pos.Col)
	if err != nil || p.block == nil {
		p = nil
	}
	a.places[s.ID] = p
	return p
}

// Cause is a minimal set of executed statements forcing a target.
type Cause struct {
	Target Target
	// Events are the generator events, ascending, including the target's
	// own event.
	Events []int
	// Minimal is false when the solver gave up on some check.
	Minimal bool
	// Cut is set when the slice stopped at Options.MaxSlice events with
	// definitions beyond it in the core: those definitions are among
	// Events, as observed, and what decided their values is not.
	Cut bool
	// Omitted are indices into Options.Deleted: deleted code that stood in
	// the side the target branch took and may have defined what a cause
	// reads.
	Omitted []int
	// Constants are the package-level constants the statements read.
	Constants []ConstUse
	a         *Analysis
}

// Cause computes the cause of t (SEMANTIC.md §3): the generators of a
// minimal unsatisfiable core of the slice's clauses under the negated
// target, plus the target's own event.
func (a *Analysis) Cause(ctx context.Context, t Target) (*Cause, error) {
	a.seen[t.Event] = true
	cause := &Cause{Target: t, Minimal: true, a: a, Omitted: a.omit[t.Event]}
	if t.pred == predNone {
		cause.Events = []int{t.Event}
		cause.Constants = a.constantsOf(cause.Events)
		return cause, nil
	}
	// Each core has its own solver, whose memory is Z3's: the Go heap
	// does not grow with it, so collect when done, or the solvers and
	// clauses of many targets stay alive until the heap grows.
	defer runtime.GC()
	labels, core, cut, err := a.solve(ctx, t)
	if errors.Is(err, smt.ErrSatisfiable) && !a.f.exact {
		// The premises that make uninstrumented calls depend on what
		// they were called on weaken clauses: when a hole in the trace
		// then leaves the target free, the run's results alone are
		// tried, as observed.
		if a.fExact == nil {
			a.fExact = newFormula(a.tr, a.c, a.idx)
			a.fExact.exact = true
		}
		a.f, a.fExact = a.fExact, a.f
		labels, core, cut, err = a.solve(ctx, t)
		a.f, a.fExact = a.fExact, a.f
	}
	if err != nil {
		if errors.Is(err, smt.ErrSatisfiable) {
			return nil, fmt.Errorf("%w: target %s is not forced by the encoded run (trace incomplete)", ErrNoCause, a.describe(t.Event))
		}
		return nil, fmt.Errorf("%w: target %s: %v", ErrNoCause, a.describe(t.Event), err)
	}
	if !core.Minimal {
		cause.Minimal = false
		a.stats.NonMinimal++
	}
	if cut {
		cause.Cut = true
		a.stats.Cut++
	}
	evs := []int{t.Event}
	for _, k := range core.Soft {
		evs = append(evs, labels[k])
	}
	sort.Ints(evs)
	cause.Events = dedup(evs)
	for _, g := range cause.Events {
		cause.Omitted = mergeInts(cause.Omitted, a.straightOmissions(g))
	}
	cause.Constants = a.constantsOf(cause.Events)
	return cause, nil
}

// solve returns the minimal core of t's slice under its negation, with
// the event of each soft clause, grown in windows (windowed); cut says the
// slice reached its bound.
func (a *Analysis) solve(ctx context.Context, t Target) ([]int, *smt.Core, bool, error) {
	neg, deps, err := a.negate(t)
	if err != nil {
		return nil, nil, false, err
	}
	return a.windowed(ctx, neg, deps, t.Event)
}

func (a *Analysis) hard() []smt.Term {
	out := make([]smt.Term, 0, len(a.f.inputOrder))
	for _, n := range a.f.inputOrder {
		out = append(out, a.f.inputs[n])
	}
	return out
}

// negate returns the negation of t's predicate and the events it reads.
func (a *Analysis) negate(t Target) (neg smt.Term, deps []int, err error) {
	var bad error
	err = a.c.Do(func() {
		b := &builder{f: a.f, ev: t.Event}
		ev := a.tr.Event(t.Event)
		site := a.tr.SiteOf(t.Event)
		if t.pred == predImplicit {
			// The statement panics again whenever the locals its check
			// reads have their observed values: point-wise.
			var obs []smt.Term
			for _, d := range a.implicitLocals(t.Event) {
				w := a.tr.Event(d[0]).Writes[d[1]]
				x := a.f.defVar(d[0], w.Slot)
				eq, err := a.c.Eq(x, a.c.Const(x.Sort(), code(w.Value)))
				if err != nil {
					bad = err
					return
				}
				obs = append(obs, eq)
				deps = append(deps, d[0])
			}
			a.f.pointWise++
			neg = a.c.Not(a.c.And(obs...))
			return
		}
		if t.pred == predNilDeref {
			np, _ := a.nilDeref(t.Event)
			var p smt.Term
			if np.read >= 0 {
				it := ev.Reads[np.read]
				o, _ := a.f.operand(t.Event, it.Slot)
				p = b.read(it.Slot, o.Type)
			} else {
				p = a.f.defVar(np.def, a.tr.Event(np.def).Writes[np.k].Slot)
				b.deps = append(b.deps, np.def)
			}
			eq, err := a.c.Eq(p, a.c.Const(p.Sort(), 0))
			if err != nil {
				bad = err
				return
			}
			neg, deps = a.c.Not(eq), b.deps
			return
		}
		if h := a.rangeHeader(t.Event); h >= 0 {
			// Iteration k of a range over a slice or string happened
			// because the ranged value was long enough: point-wise, it
			// would not have happened unless that value were as observed.
			b = &builder{f: a.f, ev: h}
			if obs := b.observed(); len(obs) > 0 {
				a.f.pointWise++
				neg, deps = a.c.Not(a.c.And(obs...)), b.deps
				return
			}
			b = &builder{f: a.f, ev: t.Event}
		}
		if t.pred == predBranch && len(ev.Values) > 0 && ev.Values[0].Kind == trace.ValBool && len(site.Exprs) > 0 && site.Kind != trace.SiteRange {
			cond := b.expr(site.Exprs[0])
			if !b.opaque {
				neg, bad = a.c.Eq(cond, a.c.Bool(!ev.Values[0].Bool()))
				deps = b.deps
				return
			}
			a.f.pointWise++
		}
		if name, ok := assertPred(site); ok && t.pred == predAssert {
			holds := b.assertHolds(name, site.Exprs)
			if !b.opaque && holds.Sort().Kind == smt.Bool {
				neg, deps = holds, b.deps
				return
			}
			a.f.pointWise++
		}
		b = &builder{f: a.f, ev: t.Event}
		obs := b.observed()
		if len(obs) == 0 {
			bad = errors.New("it reads nothing the run could have changed")
			return
		}
		neg, deps = a.c.Not(a.c.And(obs...)), b.deps
	})
	if err == nil {
		err = bad
	}
	return neg, dedup(deps), err
}

// slice returns the soft clauses of the backward dynamic slice from the
// given events (def-use and dynamic control dependence), up to
// Options.MaxSlice events, without pins; labels[k] is the event of
// soft[k].
func (a *Analysis) slice(from []int, target int) (labels []int, soft []smt.Term, err error) {
	w := a.newWindow(target)
	if b := a.control(target); b >= 0 {
		from = append(from, b)
	}
	if err := w.grow(from, a.opt.MaxSlice); err != nil {
		return nil, nil, err
	}
	labels, soft, pinned, err := w.clauses()
	if err != nil {
		return nil, nil, err
	}
	n := len(pinned)
	for n > 0 && pinned[n-1] {
		n--
	}
	return labels[:n], soft[:n], nil
}

type byLabel struct {
	l []int
	t []smt.Term
}

func (b byLabel) Len() int           { return len(b.l) }
func (b byLabel) Less(i, j int) bool { return b.l[i] < b.l[j] }
func (b byLabel) Swap(i, j int) {
	b.l[i], b.l[j] = b.l[j], b.l[i]
	b.t[i], b.t[j] = b.t[j], b.t[i]
}

func (a *Analysis) describe(i int) string {
	s := a.siteOfStmt(i)
	return fmt.Sprintf("%s:%d %s", s.Pos.File, s.Pos.Line, s.Text)
}

// rangeHeader returns, for an iteration event i of a range loop, the event
// that recorded the ranged value before the loop's first iteration, or -1.
func (a *Analysis) rangeHeader(i int) int {
	ev := a.tr.Event(i)
	if ev.Kind != trace.EvBranch || a.tr.SiteOf(i).Kind != trace.SiteRange {
		return -1
	}
	for _, j := range a.idx.before(ev.Frame, i) {
		e := a.tr.Event(j)
		if e.Site == ev.Site && e.Kind == trace.EvAssign {
			return j
		}
	}
	return -1
}

// localNamed returns the operand of the local variable named name in the
// frame of event i, when the name denotes one never address-taken local
// the frame defined before i.
func (a *Analysis) localNamed(i int, name string) (trace.Operand, bool) {
	var found trace.Operand
	for _, j := range a.idx.before(a.tr.Event(i).Frame, i) {
		for _, w := range a.tr.Event(j).Writes {
			o, ok := a.f.operand(j, w.Slot)
			if !ok || o.Text != name {
				continue
			}
			if o.Obj == 0 || o.Global || o.Path != "" || w.Loc.Kind != trace.LocLocal || found.Obj != 0 && found.Obj != o.Obj {
				return trace.Operand{}, false
			}
			found = o
		}
	}
	found.Write = false
	return found, found.Obj != 0
}

// nilPtr is the nil pointer a runtime panic dereferenced: a read of the
// panicking event (read >= 0), or the last definition of a local pointer
// (event def, write k).
type nilPtr struct {
	read   int
	def, k int
}

// nilDeref finds the nil pointer the runtime panic event i dereferenced.
// The run's output must say it was a nil dereference. Then either the
// last read pending when the statement panicked is a nil pointer operand
// (a pointer held in memory is read, then dereferenced), or a selector or
// star operand of the statement starts from a local pointer that was nil.
func (a *Analysis) nilDeref(i int) (nilPtr, bool) {
	if !strings.Contains(a.tr.Result.Output, "nil pointer dereference") {
		return nilPtr{}, false
	}
	ev := a.tr.Event(i)
	if k := len(ev.Reads) - 1; k >= 0 {
		it := ev.Reads[k]
		o, ok := a.f.operand(i, it.Slot)
		if ok && !o.Write && o.Type.Kind == trace.TypePointer && it.Value.Kind == trace.ValPointer && it.Value.Nil {
			return nilPtr{read: k}, true
		}
	}
	if ev.Frame == 0 {
		return nilPtr{}, false
	}
	for _, o := range a.tr.SiteOf(i).Operands {
		if o.Write {
			continue
		}
		e, err := parser.ParseExpr(o.Text)
		if err != nil {
			continue
		}
		root := derefRoot(e)
		if root == "" {
			continue
		}
		lo, ok := a.localNamed(i, root)
		if !ok {
			continue
		}
		loc := trace.Loc{Kind: trace.LocLocal, Frame: ev.Frame, Obj: lo.Obj}
		d := a.tr.LastDef(loc, i)
		if d < 0 {
			continue
		}
		for k, w := range a.tr.Event(d).Writes {
			if w.Loc == loc && w.Value.Kind == trace.ValPointer && w.Value.Nil {
				return nilPtr{read: -1, def: d, k: k}, true
			}
		}
	}
	return nilPtr{}, false
}

// derefRoot returns the variable a selector chain or star expression
// dereferences first (n in n.Next.Val or *n), "" if none.
func derefRoot(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.SelectorExpr:
			e = x.X
		case *ast.StarExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

func (a *Analysis) isNilDeref(i int) bool {
	_, ok := a.nilDeref(i)
	return ok
}

// implicitLocals returns, for the runtime panic event i, the definitions
// (event, index in its Writes) of the local variables read by the
// statement that panicked, when its panic is a function of them alone:
// every operand is a never-address-taken local, or an index or selector
// expression over such locals (x[i], x.f, *x; the element itself is not
// needed to decide the panic). Nil otherwise.
func (a *Analysis) implicitLocals(i int) [][2]int {
	ev := a.tr.Event(i)
	operands := a.panicOperands(i)
	if ev.Kind != trace.EvPanic || ev.Frame == 0 || len(operands) == 0 {
		return nil
	}
	locals := map[string]trace.Operand{}
	for _, o := range operands {
		if o.Obj != 0 && !o.Global && o.Path == "" && !o.Write {
			locals[o.Text] = o
		}
	}
	// A base the statement reads only through an element (xs in xs[i])
	// is no operand of its own: find the local by name among the frame's
	// definitions, only when the name denotes one variable there.
	ident := func(e ast.Expr) bool {
		id, ok := e.(*ast.Ident)
		if !ok {
			return false
		}
		if _, ok := locals[id.Name]; ok {
			return true
		}
		found, ok := a.localNamed(i, id.Name)
		if ok {
			locals[id.Name] = found
		}
		return ok
	}
	for _, o := range operands {
		if o.Write {
			return nil
		}
		if _, ok := locals[o.Text]; ok {
			continue
		}
		e, err := parser.ParseExpr(o.Text)
		if err != nil {
			return nil
		}
		switch x := e.(type) {
		case *ast.IndexExpr:
			if !ident(x.X) || !(ident(x.Index) || isLit(x.Index)) {
				return nil
			}
		case *ast.StarExpr:
			if !ident(x.X) {
				return nil
			}
		default:
			return nil
		}
	}
	var out [][2]int
	for _, o := range locals {
		loc := trace.Loc{Kind: trace.LocLocal, Frame: ev.Frame, Obj: o.Obj, Path: o.Path}
		d := a.tr.LastDef(loc, i)
		if d < 0 {
			return nil
		}
		k := -1
		for j, w := range a.tr.Event(d).Writes {
			if w.Loc == loc {
				k = j
			}
		}
		if k < 0 {
			return nil
		}
		out = append(out, [2]int{d, k})
	}
	sort.Slice(out, func(x, y int) bool {
		if out[x][0] != out[y][0] {
			return out[x][0] < out[y][0]
		}
		return out[x][1] < out[y][1]
	})
	return out
}

func isLit(e ast.Expr) bool {
	_, ok := e.(*ast.BasicLit)
	return ok
}
