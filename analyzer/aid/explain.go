package aid

import (
	"context"
	"fmt"

	"github.com/culprit-dev/culprit/analyzer/note"
	"github.com/culprit-dev/culprit/analyzer/result"
	"github.com/culprit-dev/culprit/analyzer/trace"
)

// Bounds are the explanation's limits (parallel runs, observed and
// intervened runs, the candidate pool) and, in Prefer, which candidates take
// the pool's places first. Zero values take defaults.
type Bounds struct {
	// Workers is how many runs go at once (default 2). Every run that is
	// compared uses the same parallelism, since load moves the rate.
	Workers int
	// MaxObserve caps the unintervened traced runs (default 120).
	MaxObserve int
	// MaxRuns caps the intervened runs over all tests (default 400; a
	// negative value allows none); the ctx deadline bounds them too.
	MaxRuns int
	// MaxTotal, when positive, caps every traced run, observed and
	// intervened: the caller's trial budget. Observation gets at most
	// half of it, the interventions what observation left.
	MaxTotal int
	// MaxCandidates is the pool size K (default 32).
	MaxCandidates int
	// Prefer marks sites whose predicates enter the pool first (the head
	// lines of root hunks).
	Prefer func(trace.SiteID) bool
	// TraceLimit is the size bound of each run's trace, as the notes
	// word it ("64 MiB"); a run that filled it is set aside.
	TraceLimit string
	// Direct are the function sites that hold the root hunks: when no
	// observed fact tells the failing runs from the passing ones, their
	// calls are serialised directly, one function at a time (direct).
	Direct []trace.SiteID
}

func (o Bounds) withDefaults() Bounds {
	if o.Workers <= 0 {
		o.Workers = 2
	}
	if o.MaxObserve <= 0 {
		o.MaxObserve = maxObserve
	}
	if o.MaxRuns == 0 {
		o.MaxRuns = 400
	}
	if o.MaxCandidates <= 0 {
		o.MaxCandidates = 32
	}
	return o
}

// Explanation is the interventional explanation of a flaky failure.
type Explanation struct {
	// Tree is the chain as a cause tree: F at the root.
	Tree *result.Node
	// Output is the output of the traced failing run whose failure the
	// tree's root shows, with its values: a flaky test's runs fail with
	// other values, and the message that printed these is this run's.
	Output string
	Steps  []Step
	// Preconditions are confirmed causes (and the correlated steps
	// between them) earlier than the first confirmed step in preferred
	// code: they set the stage, the chain starts after them.
	Preconditions []Step
	// Candidates is the selected pool; Interventions name candidates by
	// their index here.
	Candidates []*Candidate
	// Order lists the candidates on a DAG path to F, in topological order
	// (earliest first).
	Order         []int
	Interventions []Intervention
	// Traced counts the unintervened traced runs observed in full and
	// how many of them failed; Full, those set aside because their
	// trace filled its buffer.
	Traced struct{ Runs, Failures, Full int }
	Notes  result.Findings
}

// Explain observes traced head and explains its failure by intervention.
func Explain(ctx context.Context, r TracedTest, opt Bounds) (*Explanation, error) {
	opt = opt.withDefaults()
	if opt.MaxTotal > 0 {
		opt.MaxObserve = min(opt.MaxObserve, max(opt.MaxTotal/2, 1))
	}
	ob, err := Observe(ctx, r, opt)
	if err != nil {
		return nil, err
	}
	if opt.MaxTotal > 0 {
		// None left is -1, not 0, which would mean the default.
		opt.MaxRuns = min(opt.MaxRuns, max(opt.MaxTotal-ob.Runs, -1))
		if opt.MaxRuns == 0 {
			opt.MaxRuns = -1
		}
	}
	return Intervene(ctx, r, ob, opt)
}

// Intervene selects the candidates of an observation, orders them in the
// AC-DAG and runs GIWP over those with an intervention (FLAKY.md §2–§4).
func Intervene(ctx context.Context, r TracedTest, ob *Observation, opt Bounds) (*Explanation, error) {
	opt = opt.withDefaults()
	ex := &Explanation{}
	ex.Traced.Runs, ex.Traced.Failures, ex.Traced.Full = ob.Runs, ob.Failures, ob.Full
	if ob.Cut > 0 {
		ex.Notes.Add(result.Note{Code: note.ObserveCut, N: ob.Runs, M: ob.Runs - ob.Failures})
	}
	if ob.Full > 0 {
		ex.Notes.Add(result.Note{Code: note.TracesFull, N: ob.Full, M: ob.Full + ob.Observed, Limit: opt.TraceLimit})
		if ob.Observed == 0 {
			return ex, nil
		}
	}
	if ob.Failures == 0 || ob.Failures == ob.Runs || ob.Rate.Lo <= 0 {
		ex.Notes.Add(result.Note{Code: note.NoTracedFailure, N: ob.Runs, M: ob.Runs - ob.Failures})
		return ex, nil
	}
	cs := ob.selectCandidates(opt)
	d := buildDAG(ob, cs)
	for _, i := range d.order {
		cs[i].Item = ob.item(cs[i])
	}
	d.mergeCycles(cs)
	g := newGIWP(r, ob, cs, d, opt)
	var pool []int
	for _, i := range d.order {
		if cs[i].Item == "" {
			g.unintervenable[i] = true
		} else {
			pool = append(pool, i)
		}
	}
	if len(d.order) == 0 {
		ex.Notes.Add(result.Note{Code: note.NoDiscriminator})
		if len(opt.Direct) > 0 {
			if err := g.direct(ctx, ex); err != nil {
				return nil, fmt.Errorf("intervening on the root hunks' functions: %w", err)
			}
			return ex, nil
		}
	}
	if n := len(d.order) - len(pool); n > 0 {
		ex.Notes.Add(result.Note{Code: note.Unintervenable, N: n})
	}
	if err := g.run(ctx, pool); err != nil {
		return nil, fmt.Errorf("intervening: %w", err)
	}
	if g.out {
		open := 0
		for _, i := range pool {
			if !g.decided(i) {
				open++
			}
		}
		ex.Notes.Add(result.Note{Code: note.InterventionBudget, N: len(g.tests), M: open})
	}
	checked, err := g.placebos(ctx)
	if err != nil {
		return nil, fmt.Errorf("running placebos: %w", err)
	}
	if n := len(g.confirmed) + len(g.downgraded) - checked; n > 0 {
		ex.Notes.Add(result.Note{Code: note.NoPlacebo, N: n, M: checked})
	}
	ex.Steps, ex.Preconditions = g.chain()
	ex.Tree = tree(ob, ex.Steps)
	if ob.Sample != nil {
		ex.Output = ob.Sample.Result.Output
	}
	ex.Candidates, ex.Order = cs, d.order
	ex.Interventions = g.tests
	return ex, nil
}
