package aid

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/culprit-dev/culprit/analyzer/note"
	"github.com/culprit-dev/culprit/analyzer/result"
	"github.com/culprit-dev/culprit/analyzer/trace"
)

// timingSim is a simulated flaky program whose failure no recorded fact
// tells apart: every run takes the same branches, and half of them fail.
// Serialising the simulated function (serial:simFunc) stops the failure
// when serialStops, waiting 3ms per run; a delay on entering it stops the
// failure when delayStops. Each run's randomness comes from a PCG seeded
// by the spec and its run number.
type timingSim struct {
	serialStops, delayStops bool

	mu    sync.Mutex
	calls map[string]uint64
}

func (s *timingSim) Run(ctx context.Context, spec string) (Run, error) {
	if err := ctx.Err(); err != nil {
		return Run{}, err
	}
	s.mu.Lock()
	k := s.calls[spec]
	s.calls[spec]++
	s.mu.Unlock()
	fail := specRNG(0, spec, k).IntN(2) == 0
	rn := Run{}
	for _, it := range strings.Split(spec, ";") {
		switch {
		case it == "":
		case it == fmt.Sprintf("serial:%d", simFunc):
			rn.Applied, rn.Waited = 1, 3*time.Millisecond
			fail = fail && !s.serialStops
		case strings.HasPrefix(it, fmt.Sprintf("delay:%d=", simFunc)):
			if it != fmt.Sprintf("delay:%d=3ms", simFunc) {
				return Run{}, fmt.Errorf("placebo %q, want the serialisation's mean wait", it)
			}
			rn.Applied = 1
			fail = fail && !s.delayStops
		default:
			return Run{}, fmt.Errorf("timing simulation: unexpected spec item %q", it)
		}
	}
	rec := newSimTrace()
	rec.branch(simP1, true)
	rn.Trace = rec.end(fail)
	return rn, nil
}

// TestDirect: when nothing the traced runs record discriminates, the
// function that holds the root hunks is serialised directly. Serialising
// it stops the failure and a delay of the same length does not: a
// confirmed timing step under F, at the root hunk's statement, and the
// note says the step came from direct intervention. When the delay stops
// it too, the step is only correlated. When serialising does not stop it,
// there is no tree, and the note says nothing discriminated.
func TestDirect(t *testing.T) {
	prefer := func(id trace.SiteID) bool { return id == simP1 }
	for _, tc := range []struct {
		name                    string
		serialStops, delayStops bool
		link                    string // "" for no tree
	}{
		{"serialising stops it", true, false, Confirmed},
		{"a delay stops it too", true, true, Correlated},
		{"serialising does not stop it", false, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &timingSim{serialStops: tc.serialStops, delayStops: tc.delayStops, calls: map[string]uint64{}}
			ex, err := Explain(context.Background(), r, Bounds{Prefer: prefer, Direct: []trace.SiteID{simFunc}})
			if err != nil {
				t.Fatal(err)
			}
			if ex.Traced.Failures == 0 || ex.Traced.Failures == ex.Traced.Runs {
				t.Fatalf("traced %d runs, %d failing: want both outcomes", ex.Traced.Runs, ex.Traced.Failures)
			}
			if tc.link == "" {
				if ex.Tree != nil || !ex.Notes.Has(note.NoDiscriminator) || ex.Notes.Has(note.DirectIntervention) {
					t.Fatalf("tree %+v, notes %+v: want none, and no-discriminator", ex.Tree, ex.Notes)
				}
				if len(ex.Interventions) != 1 || ex.Interventions[0].Verdict != Persists {
					t.Errorf("interventions %+v: want the serialisation, persisting", ex.Interventions)
				}
				if i := slices.IndexFunc(ex.Notes, func(n result.Note) bool { return n.Code == note.NoDiscriminator }); ex.Notes[i].M != 1 {
					t.Errorf("note %+v: want M 1, the function serialised in vain", ex.Notes[i])
				}
				return
			}
			if ex.Tree == nil || len(ex.Tree.Children) != 1 {
				t.Fatalf("tree %+v: want F with one step", ex.Tree)
			}
			if ex.Tree.Target.Text != `t.Errorf("bad")` {
				t.Errorf("tree target %+v, want the failure", ex.Tree.Target)
			}
			step := ex.Tree.Children[0]
			want := result.Statement{File: "sim/sim.go", Line: 10 + int(simP1), Text: "p1"}
			if step.Fact != Timing || step.Link != tc.link || !reflect.DeepEqual(step.Target, want) || len(step.Statements) != 1 {
				t.Errorf("step %+v: want a %s timing step at %+v", step, tc.link, want)
			}
			if (step.Effect != "") != (tc.link == Confirmed) || tc.link == Confirmed && !strings.HasSuffix(step.Effect, " → 0/"+fmt.Sprint(ex.Interventions[0].Valid)) {
				t.Errorf("effect %q with link %s", step.Effect, step.Link)
			}
			if !ex.Notes.Has(note.DirectIntervention) || ex.Notes.Has(note.NoDiscriminator) {
				t.Errorf("notes %+v: want direct-intervention instead of no-discriminator", ex.Notes)
			}
			last := ex.Interventions[len(ex.Interventions)-1]
			if !last.Placebo || (last.Verdict == Stopped) != tc.delayStops {
				t.Errorf("placebo %+v, want stopped %v", last, tc.delayStops)
			}
		})
	}
}
