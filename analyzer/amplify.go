package analyzer

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"time"

	"github.com/culprit-dev/culprit/analyzer/note"
	"github.com/culprit-dev/culprit/analyzer/result"
	"github.com/culprit-dev/culprit/analyzer/stats"
	"github.com/culprit-dev/culprit/analyzer/trial"
)

// amplifier is the optional ability of a repeater to amplify its runs
// (*trial.Runner has it).
type amplifier interface {
	SetAmplification(trial.Amplification)
}

// Choosing an amplification.
const (
	// probeFailures is how many failures of one candidate end its
	// measurement: enough to rank it by rate, not by luck.
	probeFailures = 3
	// maxProbeRuns bounds the processes measuring one candidate when
	// none fails often enough; maxCatchUp bounds how many times more a
	// cheaper candidate runs to match the slowest one's run time.
	maxProbeRuns = 24
	maxCatchUp   = 16
	// processTarget is about how long one amplified process's tests run:
	// iterations are chosen so that the process start is a small share.
	processTarget = 2 * time.Second
	maxIterations = 50
)

// Amplification is how head's runs were made to fail more often before
// judging (FLAKY.md: a failure that shows rarely is made to show): every
// candidate measured, cheapest first, and the one every later run used.
type Amplification struct {
	Chosen trial.Amplification
	Tried  []AmplificationRuns
	// NoneFailed says that no measured run failed, so the choice is the
	// candidate that tried the test most often per second.
	NoneFailed bool
	// PerturbError says why perturbed runs were not measured although
	// the cheap candidates left the failure rare: the build with the
	// tracing runtime failed.
	PerturbError string
	// FailingSeed is the seed of a failing perturbed run of head under the
	// choice, 0 when the choice does not perturb.
	FailingSeed uint64
}

// AmplificationRuns is head measured under one candidate: its runs (one
// process each), how many failed, and the seconds they took.
type AmplificationRuns struct {
	Amplification trial.Amplification
	Runs          int
	Failures      int
	Seconds       float64
}

// amplify measures head under each candidate amplification after the
// plain runs it has, and keeps the one that separates head from base in
// the least run time (choose; the plain runs when none beats them). The
// cheap candidates (iterations, then GOMAXPROCS too) are measured first,
// in rounds (measure); only when none failed in half its runs are
// perturbed runs measured, which need a build with the tracing runtime. A
// failure seen once in thirty runs needs more than a handful of runs to
// show. When no run failed at all, the candidate with the most tries of
// the test per second is kept, so that a rare failure gets its best
// chance. Base, the revert search
// and the proof then run under the same amplification, so their rates
// compare with head's. It returns head's runs under the chosen
// amplification: only runs made alike enter one rate.
func (c *classification) amplify(ctx context.Context, r repeater, plain []trial.Result, workers int) ([]trial.Result, error) {
	amp, ok := r.(amplifier)
	if !ok {
		return plain, nil
	}
	k := iterationsFor(median(plain))
	// Plain runs are measured afresh, on the same terms as the others:
	// the classification's few are not a fair sample, since a failure
	// among them is what brought the analysis here, and one in three
	// would rank plain runs above ways measured over dozens of runs.
	cands := []trial.Amplification{{}, {Iterations: k}, {Iterations: k, GoMaxProcs: 4 * runtime.NumCPU()}}
	runs, err := c.measure(ctx, r, amp, cands, workers)
	if err != nil {
		return nil, err
	}
	c.amplified = &Amplification{}
	// Perturbed runs need a build of their own, with the tracing runtime,
	// and run slower: they are measured only when the cheap ways left the
	// failure less likely than not, where settling a rate takes many runs.
	if p, ok := r.(perturber); ok && p.CanPerturb() && bestShare(runs) < 0.5 && !c.over() {
		// One iteration per process: a perturbed iteration can take
		// twenty plain ones' time, and a process that passes runs all
		// its iterations, so k of them would make every passing run
		// (base's, a fixed variant's) cost what the measurement of
		// failing runs, which stop early, never shows.
		pc := trial.Amplification{GoMaxProcs: 4 * runtime.NumCPU(), Perturb: perturbEvery}
		more, err := c.measure(ctx, r, amp, []trial.Amplification{pc}, workers)
		switch {
		case spent(ctx, err):
			return nil, err
		case err != nil:
			c.amplified.PerturbError = firstLine(err.Error())
		default:
			cands, runs = append(cands, pc), append(runs, more[0])
		}
	}
	for i, a := range cands {
		c.amplified.Tried = append(c.amplified.Tried, measured(a, runs[i]))
	}
	best := c.amplified.choose()
	chosen, chosenRuns := cands[best], runs[best]
	amp.SetAmplification(chosen)
	c.amplified.Chosen = chosen
	for _, run := range chosenRuns {
		if run.Seed != 0 && failing(run.Outcome) {
			c.amplified.FailingSeed = run.Seed
			break
		}
	}
	return chosenRuns, nil
}

// perturber is the optional ability of a repeater to perturb its runs'
// schedules (*trial.Runner has it when it can build with the tracing
// runtime).
type perturber interface {
	CanPerturb() bool
}

// perturbEvery is the share of traced points at which a perturbed run
// pauses: one in this many.
const perturbEvery = 16

// measure runs head under each candidate in rounds, workers processes
// each per round (more for a cheap one, up to maxCatchUp times, so that
// each gets about the slowest one's run time: the choice is by failures
// per second), until one has failed probeFailures times and some run
// has passed (anyPassed; a lone candidate, the perturbed one, is ranked
// against the cheap ones measured before it, whose runs passed), each
// has run maxProbeRuns processes (times its catch-up), or a third of the
// classification's time left is spent. It returns each candidate's runs;
// on an error, the amplification is plain again.
func (c *classification) measure(ctx context.Context, r repeater, amp amplifier, cands []trial.Amplification, workers int) ([][]trial.Result, error) {
	runs := make([][]trial.Result, len(cands))
	probe, began := c.left()/3, c.length-c.left()
	// A cheaper way runs more processes a round, so that every way gets
	// about the same run time: up to maxCatchUp times the slowest's.
	catchUp := func(i int) int {
		slow := slices.MaxFunc(runs, func(a, b []trial.Result) int { return cmp.Compare(perRun(a), perRun(b)) })
		if p := perRun(runs[i]); p > 0 {
			return min(max(int(perRun(slow)/p), 1), maxCatchUp)
		}
		return 1
	}
	full := func() bool {
		for i := range runs {
			if len(runs[i]) < maxProbeRuns*catchUp(i) {
				return false
			}
		}
		return true
	}
	for done := false; !done; {
		for i, a := range cands {
			amp.SetAmplification(a)
			k, batch := catchUp(i), atOnce(r, workers)
			n := min(batch*k, maxProbeRuns*k-len(runs[i]))
			if n <= 0 {
				continue
			}
			more, err := c.repeat(ctx, r, nil, n, batch)
			runs[i] = append(runs[i], more...)
			if err != nil {
				amp.SetAmplification(trial.Amplification{})
				return nil, fmt.Errorf("running the test on head with %s: %w", a, err)
			}
		}
		done = !c.until.IsZero() && c.length-c.left()-began >= probe || full() || mostFailures(runs) >= probeFailures && (len(cands) == 1 || anyPassed(runs))
	}
	return runs, nil
}

// anyPassed reports whether a run of any candidate passed. While every
// run failed, the candidates' rates cannot be told apart, and the choice
// would fall to the cheapest: plain runs, although head passed some of
// those before (which is why it is amplified).
func anyPassed(runs [][]trial.Result) bool {
	for _, rs := range runs {
		if f, _ := count(rs); f < len(rs) {
			return true
		}
	}
	return false
}

// bestShare is the highest failure share among the candidates' runs, each
// smoothed as separation's is.
func bestShare(runs [][]trial.Result) float64 {
	best := 0.0
	for _, rs := range runs {
		f, _ := count(rs)
		best = max(best, (float64(f)+0.5)/(float64(len(rs))+1))
	}
	return best
}

// mostFailures is the most failures among the candidates' runs.
func mostFailures(runs [][]trial.Result) int {
	most := 0
	for _, rs := range runs {
		f, _ := count(rs)
		most = max(most, f)
	}
	return most
}

// choose is the index in a.Tried of the way to run the test: the one
// that separates head's failure rate from a base that never fails in the
// least run time (separation), the first (cheapest) on a tie; when
// nothing failed, the most tries per second among the amplified
// candidates, and NoneFailed is set.
func (a *Amplification) choose() int {
	best, bestRate, failed := 0, separation(a.Tried[0]), a.Tried[0].Failures > 0
	for i, t := range a.Tried[1:] {
		failed = failed || t.Failures > 0
		if rate := separation(t); rate > bestRate {
			best, bestRate = i+1, rate
		}
	}
	if failed {
		return best
	}
	// Plain runs, one try a process, come last: the time measured leaves
	// out each process's start, which a way with iterations pays once for
	// many tries.
	a.NoneFailed = true
	best, bestTries := 0, 0.0
	for i, t := range a.Tried {
		if tries := triesPerSecond(t); tries > bestTries && (i > 0 || len(a.Tried) == 1) {
			best, bestTries = i, tries
		}
	}
	return best
}

// notes are the findings that say how the runs were amplified.
func (a *Amplification) notes() []result.Note {
	out := []result.Note{{Code: note.Amplified, N: a.Chosen.PerProcess(), M: a.Chosen.GoMaxProcs}}
	if a.Chosen.Perturb > 0 {
		out = append(out, result.Note{Code: note.Perturbed, N: a.Chosen.Perturb})
	}
	if a.PerturbError != "" {
		out = append(out, result.Note{Code: note.PerturbFailed, Detail: a.PerturbError})
	}
	return out
}

// iterationsFor is how many iterations one process runs for a test whose
// plain process takes d: about processTarget of tests, at least 2.
func iterationsFor(d time.Duration) int {
	if d <= 0 {
		return 10
	}
	return min(max(int(processTarget/d), 2), maxIterations)
}

// perRun is the mean run time of runs, 0 for none.
func perRun(runs []trial.Result) time.Duration {
	if len(runs) == 0 {
		return 0
	}
	var total time.Duration
	for _, r := range runs {
		total += cost(r)
	}
	return total / time.Duration(len(runs))
}

func measured(a trial.Amplification, runs []trial.Result) AmplificationRuns {
	m := AmplificationRuns{Amplification: a, Runs: len(runs)}
	m.Failures, _ = count(runs)
	for _, r := range runs {
		m.Seconds += cost(r).Seconds()
	}
	return m
}

// triesPerSecond is how many times m's runs could run the test per second
// of run time (each process runs it up to its iterations).
func triesPerSecond(m AmplificationRuns) float64 {
	if m.Seconds <= 0 {
		return 0
	}
	return float64(m.Runs*m.Amplification.PerProcess()) / m.Seconds
}

// separation is how fast runs made like m's tell a head that fails at
// m's rate p from a base that never fails: n base runs without a failure
// rule p out at level α once (1-p)^n ≤ α, so n grows as 1/-ln(1-p), and
// the runs cost m's seconds per run. For a rare failure -ln(1-p) is about
// p, and this is the failures per second of run time; a way of running
// that fails nearly always is worth more than its failures per second
// say, since a handful of base runs then settles the question. p is the
// lower end of the 95 % interval of m's failure share, so that a way
// measured in few runs is not ranked by its luck: one failure in three
// runs says little, three in twenty-four a good deal more.
func separation(m AmplificationRuns) float64 {
	if m.Seconds <= 0 || m.Runs == 0 || m.Failures == 0 {
		return 0
	}
	p := stats.Wilson(m.Failures, m.Runs, stats.Z95).Lo
	return -math.Log1p(-p) / (m.Seconds / float64(m.Runs))
}
