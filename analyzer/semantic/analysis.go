package semantic

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sort"
	"time"

	"github.com/culprit-dev/culprit/analyzer/smt"
	"github.com/culprit-dev/culprit/analyzer/trace"
)

// Setup is what an Analysis is given beside the trace: its bounds (solver
// time, window, slice size) and the code the change deleted. The zero value
// is usable.
type Setup struct {
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
	// the cause says it was cut (Cause.Cut, Effort.Cut). Default
	// DefaultMaxSlice.
	MaxSlice int
	// Deleted lists the code the change removed from the traced tree, so
	// that a branch whose taken side lost a definition of what a cause
	// reads is a critical predicate (an omission error).
	Deleted []Deletion
}

// Defaults of Setup.Window and Setup.MaxSlice.
const (
	DefaultWindow   = 512
	DefaultMaxSlice = 8192
)

// Effort is the work done and how much of it was approximate.
type Effort struct {
	SolverCalls int
	Clauses     int // soft clauses encoded
	Slice       int // events in the largest slice
	Cut         int // causes whose slice stopped at Setup.MaxSlice
	PointWise   int // expressions encoded point-wise
	Inputs      int // hard clauses v = observed
	NonMinimal  int // cores not proven minimal (solver gave up)
}

// ErrNoCause is returned when no cause can be derived for a target.
var ErrNoCause = errors.New("semantic: no cause could be derived")

// Analysis answers causes and critical predicates over one failing run.
// It is not safe for concurrent use (it owns one solver context).
type Analysis struct {
	tr     *trace.Trace
	src    *sources
	opt    Setup
	c      *smt.Context
	idx    *index
	f      *formula
	effort Effort
	seen   map[int]bool // target events already handed out
	ctl    map[int]int  // memo of control()
	// omit holds, by critical predicate event, the deletions in the side
	// it took that may have defined what a cause reads.
	omit map[int][]int
	// dels memoises what is derived from each of Setup.Deleted.
	dels []*deletion
	// places caches source lookups by site.
	places map[trace.SiteID]*place
	// fExact is the formula without the premises of unmodelled reads,
	// tried when a target is not forced with them.
	fExact *formula
	// writers holds the operands each site writes by where the site
	// starts (built on first use, see writesOperand).
	writers map[trace.Pos][]trace.Operand
	// objs names the run's objects in the values shown.
	objs trace.Objects
}

// New prepares an analysis of tr; dir is the traced module root, whose
// files the sites name (used for post-dominators and the statically
// possible definitions of Algorithm 3).
func New(tr *trace.Trace, dir string, opt Setup) *Analysis {
	if opt.SolverTimeout == 0 {
		opt.SolverTimeout = 10 * time.Second
	}
	if opt.Window == 0 {
		opt.Window = DefaultWindow
	}
	if opt.MaxSlice == 0 {
		opt.MaxSlice = DefaultMaxSlice
	}
	c := smt.NewContext(smt.Limits{Timeout: opt.SolverTimeout})
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

// Effort returns the work done so far.
func (a *Analysis) Effort() Effort {
	if a.c == nil {
		return a.effort // released: the figures as they were then
	}
	s := a.effort
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
// the Go objects that own it are collected). Afterwards only Effort,
// Tree and the causes' own methods may be used.
func (a *Analysis) Release() {
	if a.c == nil {
		return
	}
	a.effort = a.Effort()
	a.f = &formula{tr: a.tr, idx: a.idx}
	a.fExact, a.c = nil, nil
	runtime.GC()
}

// Cause is a minimal set of executed statements forcing a target.
type Cause struct {
	Target Target
	// Events are the generator events, ascending, including the target's
	// own event.
	Events []int
	// Minimal is false when the solver gave up on some check.
	Minimal bool
	// Cut is set when the slice stopped at Setup.MaxSlice events with
	// definitions beyond it in the core: those definitions are among
	// Events, as observed, and what decided their values is not.
	Cut bool
	// Omitted are indices into Setup.Deleted: deleted code that stood in
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
	// A core search resets its solver when it returns, but the terms it
	// made (selectors, the negated target) are Z3's memory too, which
	// the Go heap does not see grow: collect when done, or those of many
	// targets stay alive until the heap grows.
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
		a.effort.NonMinimal++
	}
	if cut {
		cause.Cut = true
		a.effort.Cut++
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

func (a *Analysis) describe(i int) string {
	s := a.siteOfStmt(i)
	return fmt.Sprintf("%s:%d %s", s.Pos.File, s.Pos.Line, s.Text)
}
