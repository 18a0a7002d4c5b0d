package analyzer

import (
	"context"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/culprit-dev/culprit/analyzer/note"
	"github.com/culprit-dev/culprit/analyzer/result"
	"github.com/culprit-dev/culprit/analyzer/trial"
	"github.com/culprit-dev/culprit/diffhunks"
)

// amplified is a repeater whose head fails at a rate that depends on the
// amplification its runs use, as a rare flake's does; base never fails.
// A process of k iterations takes start plus k times perRun (slow times
// that with GOMAXPROCS set).
type amplified struct {
	rate       map[trial.Amplification]float64
	start      time.Duration
	perRun     time.Duration
	slowGMP    float64
	canPerturb bool
	amp        trial.Amplification
	rng        *rand.Rand
	head, base int
	measured   map[trial.Amplification]int
}

func (s *amplified) SetAmplification(a trial.Amplification) { s.amp = a }

func (s *amplified) CanPerturb() bool { return s.canPerturb }

func (s *amplified) Repeat(_ context.Context, revert []diffhunks.ID, n int) ([]trial.Result, error) {
	out := make([]trial.Result, n)
	d := s.start + s.perRun*time.Duration(s.amp.PerProcess())
	if s.amp.GoMaxProcs > 0 {
		d = time.Duration(float64(d) * s.slowGMP)
	}
	if s.amp.Perturb > 0 {
		d *= 3
	}
	for i := range out {
		out[i] = trial.Result{Reverted: revert, Outcome: trial.Pass, Duration: d}
		if len(revert) > 0 {
			s.base++
			continue
		}
		s.head++
		s.measured[s.amp]++
		if s.rng.Float64() < s.rate[s.amp] {
			out[i].Outcome = trial.Fail
		}
	}
	return out, nil
}

// TestAmplifyChoosesByMeasurement: the candidates are measured until one
// has failed often enough, and the one that separates head from base
// fastest is kept, whichever it is (perturbed runs only when the cheap
// ways fail less than half their runs); when none fails, the one with the most tries
// per second is kept and the choice says so; with a deadline, base runs
// as long as ruling it out needs, beyond the count that bounds runs
// without one.
func TestAmplifyChoosesByMeasurement(t *testing.T) {
	const k = 20 // iterationsFor(100ms)
	iter := trial.Amplification{Iterations: k}
	gmp := trial.Amplification{Iterations: k, GoMaxProcs: 4 * runtime.NumCPU()}
	pert := trial.Amplification{GoMaxProcs: 4 * runtime.NumCPU(), Perturb: perturbEvery}
	tests := []struct {
		name       string
		rate       map[trial.Amplification]float64
		want       trial.Amplification
		noneFailed bool
		perturb    bool // the repeater can perturb
	}{
		{"iterations expose it", map[trial.Amplification]float64{iter: 0.25}, iter, false, false},
		{"GOMAXPROCS exposes it", map[trial.Amplification]float64{iter: 0.02, gmp: 0.5}, gmp, false, false},
		{"nothing fails while measured", map[trial.Amplification]float64{}, iter, true, false},
		// Perturbed runs are slower (3x) but fail nearly always, where the
		// cheap ways fail one run in fifty: a few base runs then settle
		// what hundreds would at the cheap rate.
		{"perturbation exposes it", map[trial.Amplification]float64{iter: 0.01, gmp: 0.02, pert: 0.95}, pert, false, true},
		// The cheap ways fail most runs: nothing is built to perturb.
		{"perturbation not needed", map[trial.Amplification]float64{iter: 0.02, gmp: 0.9, pert: 1}, gmp, false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			early := 0
			for seed := uint64(1); seed <= 20; seed++ {
				s := &amplified{rate: tc.rate, perRun: 100 * time.Millisecond, slowGMP: 1.5, canPerturb: tc.perturb,
					rng: rand.New(rand.NewPCG(seed, 7)), measured: map[trial.Amplification]int{}}
				plain, _ := s.Repeat(context.Background(), nil, 3)
				c := &classification{}
				runs, err := c.amplify(context.Background(), s, plain, 2)
				if err != nil {
					t.Fatal(err)
				}
				a := c.amplified
				if a.Chosen != tc.want || a.NoneFailed != tc.noneFailed || s.amp != tc.want {
					t.Fatalf("seed %d: chose %v (runner %v), none failed %v; want %v, %v; tried %+v", seed, a.Chosen, s.amp, a.NoneFailed, tc.want, tc.noneFailed, a.Tried)
				}
				if len(runs) != s.measured[tc.want] {
					t.Errorf("seed %d: %d runs returned, %d made under the choice", seed, len(runs), s.measured[tc.want])
				}
				if p := s.measured[pert]; p > 0 && (!tc.perturb || tc.want != pert) {
					t.Errorf("seed %d: %d perturbed runs measured, want none: the cheap ways sufficed", seed, p)
				}
				if tc.noneFailed && (s.measured[iter] != maxProbeRuns || s.measured[gmp] != maxProbeRuns) {
					t.Errorf("seed %d: measured %v, want %d runs of each when none fails", seed, s.measured, maxProbeRuns)
				}
				if s.measured[tc.want] < maxProbeRuns {
					early++
				}
			}
			// A candidate failing a quarter of its runs or more is
			// seen before the most runs are spent, almost always.
			if !tc.noneFailed && early < 16 {
				t.Errorf("the measurement ended early for %d of 20 seeds", early)
			}
		})
	}

	// One of the classification's three plain runs failed, by luck: plain
	// runs fail one in three hundred, a process with GOMAXPROCS raised
	// nearly one in three, so the latter separates head from base about
	// four times as fast per second. Plain runs are measured afresh, on
	// the same run time as the others, and the choice follows the rates
	// rather than the lucky failure (which alone made plain runs win every
	// seed before). A few failures apiece cannot tell a fourfold
	// difference every time: at most four seeds of twenty may choose
	// otherwise.
	t.Run("a lucky plain failure", func(t *testing.T) {
		other := 0
		for seed := uint64(1); seed <= 20; seed++ {
			s := &amplified{rate: map[trial.Amplification]float64{{}: 0.003, iter: 0.02, gmp: 0.3}, perRun: 100 * time.Millisecond, slowGMP: 1.5,
				rng: rand.New(rand.NewPCG(seed, 7)), measured: map[trial.Amplification]int{}}
			plain, _ := s.Repeat(context.Background(), nil, 3)
			plain[0].Outcome = trial.Fail
			c := &classification{}
			if _, err := c.amplify(context.Background(), s, plain, 2); err != nil {
				t.Fatal(err)
			}
			if a := c.amplified; a.Chosen != gmp {
				t.Logf("seed %d: chose %v; tried %+v", seed, a.Chosen, a.Tried)
				other++
			}
		}
		if other > 4 {
			t.Errorf("%d of 20 seeds chose another way than %v", other, gmp)
		}
	})

	// The process start costs most of a run, so every way runs about as
	// many processes a round; plain runs fail about half the time, a
	// process of iterations almost always. After a round or two every
	// run of every way may have failed, which ranks them by cost alone,
	// and plain runs are the cheapest: the measurement goes on until a
	// run passes, which tells the ways apart, and iterations are kept.
	t.Run("every run failed so far", func(t *testing.T) {
		const k = 7 // iterationsFor(255ms)
		iter := trial.Amplification{Iterations: k}
		gmp := trial.Amplification{Iterations: k, GoMaxProcs: 4 * runtime.NumCPU()}
		for seed := uint64(1); seed <= 40; seed++ {
			s := &amplified{rate: map[trial.Amplification]float64{{}: 0.55, iter: 0.99, gmp: 0.99}, start: 250 * time.Millisecond,
				perRun: 5 * time.Millisecond, slowGMP: 1.1, rng: rand.New(rand.NewPCG(seed, 11)), measured: map[trial.Amplification]int{}}
			plain := []trial.Result{{Outcome: trial.Fail, Duration: 255 * time.Millisecond}, {Outcome: trial.Pass, Duration: 255 * time.Millisecond},
				{Outcome: trial.Fail, Duration: 255 * time.Millisecond}}
			c := &classification{}
			if _, err := c.amplify(context.Background(), s, plain, 2); err != nil {
				t.Fatal(err)
			}
			if a := c.amplified; a.Chosen.Iterations != k {
				t.Errorf("seed %d: chose %v; tried %+v", seed, a.Chosen, a.Tried)
			}
		}
	})

	t.Run("budget bounds base, not a count", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
		defer cancel()
		s := &amplified{rate: map[trial.Amplification]float64{iter: 0.03}, perRun: 100 * time.Millisecond, slowGMP: 1,
			rng: rand.New(rand.NewPCG(1, 7)), measured: map[trial.Amplification]int{}}
		c, err := classify(ctx, s, []diffhunks.ID{1}, 3, 2)
		if err != nil {
			t.Fatal(err)
		}
		if c.rates == nil {
			t.Fatalf("status %q, notes %+v: no rates", c.status, c.notes)
		}
		if c.status != result.FlakyRegression || c.rates.Base.Runs <= maxBaseRuns || c.rates.Base.Runs != s.base {
			t.Errorf("status %q, base %+v (%d runs made), head %+v; want a flaky regression after more than %d base runs",
				c.status, c.rates.Base, s.base, c.rates.Head, maxBaseRuns)
		}
	})
	t.Run("the plan counts processes, not iterations", func(t *testing.T) {
		const budget = 5 * time.Minute
		ctx, cancel := context.WithTimeout(context.Background(), budget)
		defer cancel()
		s := &amplified{rate: map[trial.Amplification]float64{iter: 0.02}, perRun: 100 * time.Millisecond, slowGMP: 1,
			rng: rand.New(rand.NewPCG(3, 7)), measured: map[trial.Amplification]int{}}
		c, err := classify(ctx, s, []diffhunks.ID{1}, 3, 2)
		if err != nil {
			t.Fatal(err)
		}
		var spent time.Duration
		for _, r := range c.runs {
			spent += r.Duration
		}
		// Two at a time, within the classification's share of the
		// budget; one batch may start just before the plan ends.
		t.Logf("status %q, %d head and %d base runs, %v run time", c.status, s.head, s.base, spent)
		if wall, most := spent/2, time.Duration(classifyShare*float64(budget))+2*time.Second; wall > most {
			t.Errorf("the runs took %v of run time two at a time, over %v of a %v budget (status %q, %d head and %d base runs)",
				wall, most, budget, c.status, s.head, s.base)
		}
	})
}

// TestRecheck: after a variant passed once and failed its proof, a head
// that failed its first runs but fails only often is run until it passes
// and then measured as flaky; a head that always fails stays as it was.
func TestRecheck(t *testing.T) {
	all := []diffhunks.ID{1, 2}
	for seed := uint64(1); seed <= 20; seed++ {
		sim := simulated{head: 0.6, rng: rand.New(rand.NewPCG(seed, 11)), runs: map[bool]int{}}
		c := &classification{}
		first, _ := sim.Repeat(context.Background(), nil, 3)
		for i := range first {
			first[i].Outcome = trial.Fail // as if the first runs all failed
		}
		c.runs = first
		flaky, err := c.recheck(context.Background(), &sim, all, []diffhunks.ID{2}, 2)
		if err != nil {
			t.Fatal(err)
		}
		if !flaky || c.rates == nil || c.rates.Head.Runs-c.rates.Head.Failures == 0 || !c.notes.Has(note.FlakyRemeasured) {
			t.Fatalf("seed %d: flaky %v, rates %+v, notes %+v", seed, flaky, c.rates, c.notes)
		}
		if c.status != result.FlakyRegression && c.status != result.Flaky {
			t.Errorf("seed %d: status %q", seed, c.status)
		}
	}
	sim := simulated{head: 1, rng: rand.New(rand.NewPCG(1, 11)), runs: map[bool]int{}}
	c := &classification{}
	c.runs, _ = sim.Repeat(context.Background(), nil, 3)
	flaky, err := c.recheck(context.Background(), &sim, all, []diffhunks.ID{2}, 2)
	if err != nil || flaky || c.status != "" || c.rates != nil || sim.runs[false] != 3+maxPassingRuns {
		t.Errorf("always failing head: flaky %v, status %q, rates %+v, %d head runs, err %v", flaky, c.status, c.rates, sim.runs[false], err)
	}
}

// TestChooseBySeparation: a way of running that fails nearly always wins
// over one with more failures per second that fails rarely, as a handful
// of base runs then settles what dozens would (the figures are a real
// flaky regression's measurement); among rare failures, failures per
// second decide.
func TestChooseBySeparation(t *testing.T) {
	iter := trial.Amplification{Iterations: 30}
	gmp := trial.Amplification{Iterations: 30, GoMaxProcs: 8}
	pert := trial.Amplification{Iterations: 30, GoMaxProcs: 8, Perturb: perturbEvery}
	for _, tc := range []struct {
		name  string
		tried []AmplificationRuns
		want  int
	}{
		{"nearly always beats more per second", []AmplificationRuns{
			{Runs: 3, Seconds: 0.2}, {Amplification: iter, Runs: 24, Failures: 1, Seconds: 5.0},
			{Amplification: gmp, Runs: 24, Failures: 2, Seconds: 5.5}, {Amplification: pert, Runs: 4, Failures: 4, Seconds: 13.0}}, 3},
		{"rare failures: per second", []AmplificationRuns{
			{Runs: 3, Seconds: 0.3}, {Amplification: iter, Runs: 24, Failures: 3, Seconds: 5.0},
			{Amplification: gmp, Runs: 24, Failures: 3, Seconds: 7.0}}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := &Amplification{Tried: tc.tried}
			if got := a.choose(); got != tc.want || a.NoneFailed {
				t.Errorf("chose %d (none failed %v), want %d", got, a.NoneFailed, tc.want)
			}
		})
	}
}
