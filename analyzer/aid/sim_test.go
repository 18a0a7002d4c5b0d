package aid

import (
	"context"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strings"
	"sync"

	"github.com/culprit-dev/culprit/analyzer/trace"
)

// The simulated program's sites: one function, six branches, the failing
// assertion and a statement that crashes.
const (
	simFunc trace.SiteID = iota + 1
	simP1                // root cause: the bad timing became visible
	simL                 // load effect of the same timing, not a cause: it also holds when P1 is forced off
	simS1                // symptom of P1 that causes nothing
	simP2                // caused by P1
	simX                 // caused by P2, causes nothing; forcing it crashes the program
	simP3                // caused by P2, causes F
	simFail
	simCrash
)

func simSites() []trace.Site {
	ss := make([]trace.Site, simCrash+1)
	names := map[trace.SiteID]string{simP1: "p1", simL: "load", simS1: "s1", simP2: "p2", simX: "x", simP3: "p3"}
	for id := range ss {
		s := trace.Site{ID: trace.SiteID(id), Kind: trace.SiteIf, Pos: trace.Pos{File: "sim/sim.go", Line: 10 + id}}
		s.Text = names[s.ID]
		switch s.ID {
		case 0:
			s = trace.Site{}
		case simFunc:
			s.Kind, s.Text = trace.SiteFunc, "func Run()"
		case simFail:
			s.Kind, s.Text = trace.SiteFail, "t.Errorf(\"bad\")"
		case simCrash:
			s.Kind, s.Text = trace.SiteStmt, "crash()"
		}
		ss[id] = s
	}
	return ss
}

// sim is a TracedTest over a simulated flaky program with a known causal
// chain P1 → P2 → P3 → F. Each run draws its randomness from a PCG seeded
// by the spec and the spec's run number, so a batch's outcomes are the
// same whatever order its goroutines call in.
type sim struct {
	seed uint64
	rate float64 // chance of the bad timing

	mu    sync.Mutex
	calls map[string]uint64
	specs []string // every run's spec, in call order
}

func newSim(seed uint64, rate float64) *sim {
	return &sim{seed: seed, rate: rate, calls: map[string]uint64{}}
}

func (s *sim) Run(ctx context.Context, spec string) (Run, error) {
	if err := ctx.Err(); err != nil {
		return Run{}, err
	}
	s.mu.Lock()
	k := s.calls[spec]
	s.calls[spec]++
	s.specs = append(s.specs, spec)
	s.mu.Unlock()
	rng := specRNG(s.seed, spec, k)

	forced := map[trace.SiteID]bool{}
	applied := 0
	for _, it := range strings.Split(spec, ";") {
		if it == "" {
			continue
		}
		var id trace.SiteID
		var v int
		if _, err := fmt.Sscanf(it, "force:%d=%d", &id, &v); err != nil || v != 0 {
			return Run{}, fmt.Errorf("simulated runner: unexpected spec item %q", it)
		}
		forced[id] = true
		applied++ // every branch site runs in every run, so each hook acts
	}
	bad := rng.Float64() < s.rate
	loadFirst := rng.IntN(2) == 0
	p1 := bad && !forced[simP1]
	p2 := p1 && !forced[simP2]
	p3 := p2 && !forced[simP3]
	out := map[trace.SiteID]bool{simP1: p1, simL: bad && !forced[simL], simS1: p1 && !forced[simS1], simP2: p2, simX: p2, simP3: p3}
	order := []trace.SiteID{simP1, simS1, simP2, simX, simP3}
	if loadFirst {
		order = append([]trace.SiteID{simL}, order...)
	} else {
		order = append(order, simL)
	}
	rec := newSimTrace()
	for _, id := range order {
		if forced[simX] && id == simX {
			rec.ev(trace.EvPanic, simCrash)
			rec.tr.Result = trace.RunResult{Failed: true, ExitCode: 2}
			return Run{Trace: rec.tr, Applied: applied}, nil
		}
		rec.branch(id, out[id])
	}
	return Run{Trace: rec.end(p3), Applied: applied}, nil
}

// specRNG is the randomness of run k of spec in a simulation seeded by
// seed: the same for that run whatever order a batch's goroutines call in.
func specRNG(seed uint64, spec string, k uint64) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(spec))
	return rand.New(rand.NewPCG(seed^h.Sum64(), k))
}

// simTrace records one run of the simulated function.
type simTrace struct{ tr *trace.Trace }

// newSimTrace starts a run: the function's entry.
func newSimTrace() *simTrace {
	r := &simTrace{tr: &trace.Trace{
		Sites:  simSites(),
		Frames: []trace.Frame{{}, {ID: 1, Func: simFunc, Goroutine: 1, Call: -1, Exit: -1}},
	}}
	r.ev(trace.EvEntry, simFunc)
	return r
}

func (r *simTrace) ev(kind trace.EventKind, site trace.SiteID, vals ...trace.Value) {
	r.tr.Events = append(r.tr.Events, trace.Event{Index: len(r.tr.Events), Kind: kind, Site: site, Frame: 1, Values: vals})
}

// branch records the branch at site id taking outcome.
func (r *simTrace) branch(id trace.SiteID, outcome bool) {
	b := uint64(0)
	if outcome {
		b = 1
	}
	r.ev(trace.EvBranch, id, trace.Value{Kind: trace.ValBool, Bits: b})
}

// end ends the run with the failure, or with the function's return.
func (r *simTrace) end(fail bool) *trace.Trace {
	if fail {
		r.ev(trace.EvFail, simFail)
		r.tr.Result = trace.RunResult{Failed: true, ExitCode: 1}
	} else {
		r.ev(trace.EvReturn, simFunc)
		r.tr.Frames[1].Exit = len(r.tr.Events) - 1
		r.tr.Result = trace.RunResult{Passed: true}
	}
	return r.tr
}
