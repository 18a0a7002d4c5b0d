package aid

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/culprit-dev/culprit/analyzer/stats"
	"github.com/culprit-dev/culprit/analyzer/trace"
)

// Run is one run of the traced test binary: its trace and, for an
// intervened run, how often the hooks acted.
type Run struct {
	Trace *trace.Trace
	// Applied counts hook actions that took effect; Expired counts locks
	// and gates that gave up waiting. A run with an intervention and no
	// applied hook tells nothing about it.
	Applied, Expired int
	// Waited is the time the hooks held goroutines back in total (lock
	// waits, delays), 0 when unknown. It sizes the placebo of a serial
	// link.
	Waited time.Duration
}

// TracedTest is the traced test, run once per call. The analyzer adapts the
// build that instrument.Build makes to it; every run shares that build, so
// site ids are the same across runs.
type TracedTest interface {
	// Run runs the test once with the intervention spec ("" for none).
	// A failing test is not an error.
	Run(ctx context.Context, spec string) (Run, error)
}

// Observation is traced head: its failure rate and the predicates of its
// runs with the dominant failure signature (runs failing otherwise are
// set aside: one chain per signature).
type Observation struct {
	Runs, Failures int
	// Rate is the traced failure rate's 95 % Wilson interval; its lower
	// bound is the H1 of every intervention's SPRT.
	Rate stats.Interval
	// Signature is F's site (0: the process died without reaching a
	// failure event, e.g. a fatal runtime error).
	Signature trace.SiteID
	// Sample is one failing trace with the dominant signature, for the
	// values a report shows.
	Sample *trace.Trace
	// Cut is, when observation stopped short of its quota because the
	// rates observed put it out of reach (outOfReach), the runs the
	// forecast said it would still need; 0 otherwise.
	Cut int
	// Full counts the runs set aside because their trace filled its
	// buffer: a cut trace records neither the failure nor the whole of a
	// passing run. Observed counts the runs observed in full, of every
	// signature.
	Full, Observed int

	runs     []*observed
	branches map[Pred]bool           // every branch(S,v) seen
	ranges   map[valueKey][2]float64 // passing runs' [min, max] per value key
	sites    []trace.Site
}

// observed is one run, reduced to its predicates.
type observed struct {
	failing bool
	sig     trace.SiteID
	// guard is the branch that let F run: the last branch of F's frame
	// before F (0 if none). It is the failure's own check, not a cause.
	guard trace.SiteID
	x     *extracted
	tr    *trace.Trace // kept for the first few failing runs of each signature
}

// keptTraces is how many failing traces per signature are kept for
// witnesses: a candidate that is not fully discriminative may be missing
// from the first. Past the first, a trace is kept only while the kept
// traces hold at most keptEvents events in all: a decoded event takes a
// few hundred bytes, and a concurrent test's trace can hold millions.
const (
	keptTraces = 3
	keptEvents = 3 << 20
)

// Observation targets and cap (FLAKY.md §2).
const (
	minFailing = 10
	minPassing = 10
	maxObserve = 120
)

// observeRun reduces a run to its outcome, F and predicates.
func observeRun(tr *trace.Trace) (*observed, bool) {
	switch {
	case tr.Result.Failed:
		end, sig, guard := len(tr.Events), trace.SiteID(0), trace.SiteID(0)
		if fs := tr.Failures(); len(fs) > 0 {
			end, sig = fs[0], tr.Events[fs[0]].Site
			guard = guardOf(tr, fs[0])
		}
		return &observed{failing: true, sig: sig, guard: guard, x: extract(tr, end)}, true
	case tr.Result.Passed:
		return &observed{x: extract(tr, len(tr.Events))}, true
	}
	return nil, false
}

// guardOf is the test's own check of the failure: the site of the last
// branch before failure f in f's frame, when both are test code (a
// _test.go file), 0 otherwise.
func guardOf(tr *trace.Trace, f int) trace.SiteID {
	if !strings.HasSuffix(tr.SiteOf(f).Pos.File, "_test.go") {
		return 0
	}
	evs := tr.FrameEvents(tr.Events[f].Frame)
	for k := len(evs) - 1; k >= 0; k-- {
		if i := evs[k]; i < f && tr.Events[i].Kind == trace.EvBranch {
			if !strings.HasSuffix(tr.SiteOf(i).Pos.File, "_test.go") {
				return 0
			}
			return tr.Events[i].Site
		}
	}
	return 0
}

// Observe runs the traced test without interventions, Workers at a time,
// until it has seen minFailing failing runs with one signature and
// minPassing passing runs, the rates seen put that out of reach
// (outOfReach), or the budget (opt.MaxObserve runs, ctx) ends.
func Observe(ctx context.Context, r TracedTest, opt Bounds) (*Observation, error) {
	opt = opt.withDefaults()
	var all []*observed
	kept := map[trace.SiteID]int{}
	keptN := 0 // events in the kept traces
	var sites []trace.Site
	bySig := map[trace.SiteID]int{}
	passing, cut, full := 0, 0, 0
	began := time.Now()
	for len(all)+full < opt.MaxObserve && ctx.Err() == nil {
		if len(all) == 0 && full >= minForecast {
			break // every run so far outgrew its trace: so will the rest
		}
		dom := 0
		for _, n := range bySig {
			dom = max(dom, n)
		}
		if dom >= minFailing && passing >= minPassing {
			break
		}
		if more, out := outOfReach(ctx, dom, passing, len(all), time.Since(began), opt.MaxObserve); out {
			cut = more
			break
		}
		n := min(opt.Workers, opt.MaxObserve-len(all)-full)
		runs, err := batch(ctx, r, "", n)
		if err != nil {
			if ctx.Err() != nil {
				break // the budget ended: judge what ran
			}
			return nil, err
		}
		for _, rn := range runs {
			if rn.Trace == nil {
				continue
			}
			if rn.Trace.Truncated {
				full++
				continue
			}
			o, ok := observeRun(rn.Trace)
			if !ok {
				continue
			}
			if sites == nil {
				sites = rn.Trace.Sites
			}
			all = append(all, o)
			if o.failing {
				bySig[o.sig]++
				if n := len(rn.Trace.Events); kept[o.sig] == 0 || kept[o.sig] < keptTraces && keptN+n <= keptEvents {
					kept[o.sig]++
					keptN += n
					o.tr = rn.Trace
				}
			} else {
				passing++
			}
		}
	}
	ob := &Observation{sites: sites, Cut: cut, Full: full, Observed: len(all)}
	best := -1
	for sig, n := range bySig {
		if n > best || n == best && sig < ob.Signature {
			best, ob.Signature = n, sig
		}
	}
	for _, o := range all {
		if o.failing && o.sig != ob.Signature {
			continue
		}
		if o.tr != nil && ob.Sample == nil {
			ob.Sample = o.tr
		}
		ob.runs = append(ob.runs, o)
		ob.Runs++
		if o.failing {
			ob.Failures++
		}
	}
	ob.Rate = stats.Wilson(ob.Failures, ob.Runs, stats.Z95)
	ob.complete()
	return ob, nil
}

// minForecast is how many observed runs the forecast of outOfReach waits
// for: two batches of two workers. Fewer give a rate too rough to stop on;
// the interval's upper end keeps a small sample hopeful.
const minForecast = 4

// outOfReach forecasts, from the runs observed so far (runs of them, taking
// spent), how many more runs would give minFailing failing runs of the
// dominant signature (dom so far) and minPassing passing ones. The
// forecast is hopeful: each outcome's rate is taken at the upper end of
// its 95 % interval, so that a few unlucky runs stop nothing. The quota is
// out of reach when even those runs exceed the cap's runs left, or take
// more than half the time left before ctx's deadline at the pace so far:
// the interventions that follow need the other half. A minority outcome
// seen once in twenty runs would otherwise hold the explanation until its
// deadline.
func outOfReach(ctx context.Context, dom, passing, runs int, spent time.Duration, maxRuns int) (more int, out bool) {
	if runs < minForecast {
		return 0, false
	}
	need := func(have, want int) float64 {
		if have >= want {
			return 0
		}
		return float64(want-have) / stats.Wilson(have, runs, stats.Z95).Hi
	}
	more = int(math.Ceil(max(need(dom, minFailing), need(passing, minPassing))))
	if more > maxRuns-runs {
		return more, true
	}
	dl, ok := ctx.Deadline()
	if !ok {
		return more, false
	}
	pace := spent / time.Duration(runs)
	return more, pace*time.Duration(more) > time.Until(dl)/2
}

// complete computes the passing ranges and adds the predicates that
// depend on all runs: never(S,v) and value(S,slot).
func (ob *Observation) complete() {
	ob.branches = map[Pred]bool{}
	ob.ranges = map[valueKey][2]float64{}
	for _, o := range ob.runs {
		for p := range o.x.outcomes {
			ob.branches[p] = true
		}
		if o.failing {
			continue
		}
		for k, v := range o.x.values {
			r, ok := ob.ranges[k]
			if !ok {
				r = [2]float64{math.Inf(1), math.Inf(-1)}
			}
			ob.ranges[k] = [2]float64{math.Min(r[0], v.min()), math.Max(r[1], v.max())}
		}
	}
	for _, o := range ob.runs {
		ob.derive(o.x)
	}
}

// derive adds never() and value() predicates to one run's, against this
// observation's branches and ranges (also for intervened runs).
func (ob *Observation) derive(x *extracted) {
	for p := range ob.branches {
		if _, ok := x.outcomes[p]; ok {
			continue
		}
		n := Pred{Family: Never, Sites: p.Sites, Arg: p.Arg}
		if i, ok := x.lastAt[p.Sites[0]]; ok {
			x.preds[n] = witness(i, i)
		} else {
			x.preds[n] = witness(x.end)
		}
	}
	for k, v := range x.values {
		r, ok := ob.ranges[k]
		if !ok {
			r = [2]float64{math.Inf(1), math.Inf(-1)} // no passing value: every value is outside
		}
		for _, rec := range v.records {
			if rec.v < r[0] || rec.v > r[1] {
				x.preds[Pred{Family: ValueOut, Sites: [3]trace.SiteID{k.site}, Arg: int64(k.slot)}] = witness(rec.index, rec.index)
				break
			}
		}
	}
}

// batch runs n runs of spec at once and returns them in launch order.
func batch(ctx context.Context, r TracedTest, spec string, n int) ([]Run, error) {
	out := make([]Run, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for k := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[k], errs[k] = r.Run(ctx, spec)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("running the traced test (spec %q): %w", spec, err)
	}
	return out, nil
}
