package analyzer

import (
	"context"
	"github.com/culprit-dev/culprit/analyzer/result"
	"math/rand/v2"
	"testing"

	"github.com/culprit-dev/culprit/analyzer/note"
	"github.com/culprit-dev/culprit/analyzer/stats"
	"github.com/culprit-dev/culprit/analyzer/trial"
	"github.com/culprit-dev/culprit/diffhunks"
)

// simulated is a repeater whose head and base fail at given rates, drawn
// from a seeded PCG.
type simulated struct {
	head, base  float64
	baseOutcome trial.Outcome // when set, every base run gives it
	rng         *rand.Rand
	runs        map[bool]int // by "is base"
}

func (s *simulated) Repeat(_ context.Context, revert []diffhunks.ID, n int) ([]trial.Result, error) {
	isBase := len(revert) > 0
	p := s.head
	if isBase {
		p = s.base
	}
	out := make([]trial.Result, n)
	for i := range out {
		s.runs[isBase]++
		out[i] = trial.Result{Reverted: revert, Outcome: trial.Pass}
		switch {
		case isBase && s.baseOutcome != "":
			out[i].Outcome = s.baseOutcome
		case s.rng.Float64() < p:
			out[i].Outcome = trial.Fail
		}
	}
	return out, nil
}

func TestClassifyFlaky(t *testing.T) {
	all := []diffhunks.ID{1, 2}
	tests := []struct {
		name      string
		sim       simulated
		status    result.Status
		note      note.Code
		wantRates bool
	}{
		{"flaky regression", simulated{head: 0.4}, result.FlakyRegression, "", true},
		{"flaky on base too", simulated{head: 0.4, base: 0.3}, result.Flaky, note.FlakyOnBoth, true},
		{"new flaky test", simulated{head: 0.4, baseOutcome: trial.NoTests}, result.Flaky, note.NewTest, true},
		{"deterministic regression", simulated{head: 1}, "", "", false},
		{"passes on head", simulated{head: 0}, result.NotRegression, note.PassesOnHead, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for seed := uint64(1); seed <= 30; seed++ {
				sim := tc.sim
				sim.rng = rand.New(rand.NewPCG(seed, 3))
				sim.runs = map[bool]int{}
				c, err := classify(context.Background(), &sim, all, 10, 2)
				if err != nil {
					t.Fatal(err)
				}
				if c.status != tc.status || tc.note != "" && !c.notes.Has(tc.note) {
					t.Fatalf("seed %d: status %q, notes %+v; want %q with %s", seed, c.status, c.notes, tc.status, tc.note)
				}
				if (c.rates != nil) != tc.wantRates {
					t.Fatalf("seed %d: rates %+v", seed, c.rates)
				}
				if c.rates == nil {
					continue
				}
				h, b := c.rates.Head, c.rates.Base
				if h.Runs != sim.runs[false] || b.Runs != sim.runs[true] || h.Runs > maxHeadRuns || b.Runs > maxBaseRuns {
					t.Errorf("seed %d: head %d/%d runs, base %d/%d", seed, h.Runs, sim.runs[false], b.Runs, sim.runs[true])
				}
				if h.Runs < maxHeadRuns && (h.Failures < minHeadFailures || h.CI.HalfWidth() > maxHalfWidth) {
					t.Errorf("seed %d: head stopped early at %+v", seed, h)
				}
				if h.CI.Lo > h.Rate || h.CI.Hi < h.Rate {
					t.Errorf("seed %d: rate %v outside %+v", seed, h.Rate, h.CI)
				}
				if c.status == result.FlakyRegression {
					if b.Failures != 0 || b.Runs != stats.RunsToRuleOut(h.CI.Lo, baseAlpha) || b.Upper >= h.CI.Lo {
						t.Errorf("seed %d: base %+v against head %+v", seed, b, h)
					}
					if c.head.Outcome != trial.Fail {
						t.Errorf("seed %d: no failing head run kept", seed)
					}
				}
			}
		})
	}
}

// TestClassifyRareFlake: head fails one run in seven, so its three first
// runs often all pass; it is run on until it fails (within 30 runs for
// these seeds) and measured as flaky, never called passing. A head that
// never fails stops at 30 runs.
func TestClassifyRareFlake(t *testing.T) {
	extra := 0
	for seed := uint64(1); seed <= 30; seed++ {
		sim := simulated{head: 0.15, rng: rand.New(rand.NewPCG(seed, 5)), runs: map[bool]int{}}
		c, err := classify(context.Background(), &sim, []diffhunks.ID{1}, 3, 2)
		if err != nil {
			t.Fatal(err)
		}
		if c.status != result.Flaky && c.status != result.FlakyRegression || c.rates == nil || c.rates.Head.Failures == 0 {
			t.Fatalf("seed %d: status %q, rates %+v, notes %+v", seed, c.status, c.rates, c.notes)
		}
		if first, _ := count(c.runs[:3]); first == 0 {
			extra++
		}
	}
	if extra == 0 {
		t.Error("no seed had three passing first runs: the case is not exercised")
	}
	sim := simulated{head: 0, rng: rand.New(rand.NewPCG(1, 5)), runs: map[bool]int{}}
	c, err := classify(context.Background(), &sim, []diffhunks.ID{1}, 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	if c.status != result.NotRegression || sim.runs[false] != maxPassingRuns || !c.notes.Has(note.PassesOnHead) {
		t.Errorf("never failing head: status %q after %d runs, notes %+v", c.status, sim.runs[false], c.notes)
	}
}

// TestClassifyFlakyPlan: a deadline too close leaves no room for base, and
// the verdict is an inconclusive flaky, not a regression.
func TestClassifyFlakyPlan(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 0)
	defer cancel()
	sim := simulated{head: 0.5, rng: rand.New(rand.NewPCG(1, 1)), runs: map[bool]int{}}
	head, _ := sim.Repeat(ctx, nil, 4)
	head[0].Outcome, head[1].Outcome = trial.Pass, trial.Fail
	for i := range head {
		head[i].Duration = 1e9
	}
	c := &classification{}
	c.window(ctx)
	if err := c.flaky(ctx, &sim, []diffhunks.ID{1}, head, 2); err != nil {
		t.Fatal(err)
	}
	if c.status != result.Flaky || !c.notes.Has(note.FlakyInconclusive) || c.rates.Base.Runs != 0 {
		t.Errorf("status %q, notes %+v, rates %+v", c.status, c.notes, c.rates)
	}
}
