package analyzer

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"time"

	"github.com/culprit-dev/culprit/analyzer/gotest"
	"github.com/culprit-dev/culprit/analyzer/note"
	"github.com/culprit-dev/culprit/analyzer/result"
	"github.com/culprit-dev/culprit/analyzer/search"
	"github.com/culprit-dev/culprit/analyzer/stats"
	"github.com/culprit-dev/culprit/analyzer/trial"
	"github.com/culprit-dev/culprit/diffhunks"
)

// Limits of the flaky classification (FLAKY.md §5).
const (
	maxHeadRuns     = 60               // head runs at most without a deadline, the first reruns included
	maxBaseRuns     = 60               // base runs at most without a deadline
	minHeadFailures = 5                // head failures wanted before its rate is trusted
	maxHalfWidth    = 0.15             // widest Wilson half-width of head's rate that stops head's runs
	baseAlpha       = 0.01             // (1 − L_h)^n_b at most: base ruled out as failing like head
	minRunTimeout   = 10 * time.Second // least time limit of one repeated run
	// Shares of the remaining budget planned for each phase of a flaky
	// regression; unspent time rolls over to the next. classifyShare is
	// the whole classification of a head that passed some runs: measuring
	// the amplifications, running head until it fails, measuring head's
	// rate, then base's.
	classifyShare = 0.30
	searchShare   = 0.35
)

// Flakiness is the statistics behind a flaky verdict: how often head and
// base failed in repeated runs under the same parallelism, and, for a
// flaky regression, the runs of each variant the revert search judged.
type Flakiness struct {
	// Workers is how many runs went at once in every measurement: load
	// moves a flaky test's rate, so only rates measured alike compare.
	Workers int
	Head    HeadRate
	Base    BaseRate
	// Variants are the variants the noisy revert search judged, in the
	// order it judged them.
	Variants []VariantRuns
	// Race is what head's runs under the race detector showed, nil when
	// none ran.
	Race *RaceRuns
	// Interventions is how the chain was sought, nil when it was not.
	Interventions *Interventions
	// Amplification is how every run above was made to fail more often,
	// nil when runs were plain.
	Amplification *Amplification
}

// RaceRuns is evidence from head's test built with -race: the data races
// whose two accesses both reach the module's code, each once. A detector
// that reports nothing proves nothing: an atomicity violation under a lock
// is no data race.
type RaceRuns struct {
	Runs    int
	Reports []RaceReport
	// Unavailable says why no run was made, "" when they were.
	Unavailable string
}

// RaceReport is one data race: its two accesses, the current one first.
type RaceReport struct {
	Accesses []RaceAccess
}

// RaceAccess is one side of a race at its innermost place in the module:
// the access ("write", "previous read", …), the function, the place
// relative to the repository, and the hunk whose head lines hold it.
type RaceAccess struct {
	Op   string
	Func string
	File string
	Line int
	Hunk diffhunks.ID
}

// HeadRate is head's measured failure rate with its 95 % Wilson interval.
type HeadRate struct {
	Runs, Failures int
	Rate           float64
	CI             stats.Interval
}

// BaseRate is base's runs; Upper is the 99 % upper bound of its failure
// rate when it never failed (1 − 0.01^{1/Runs}), 0 otherwise.
type BaseRate struct {
	Runs, Failures int
	Upper          float64
}

// VariantRuns is one variant's repeated runs in the noisy revert search
// and their verdict; ProofRuns and ProofFailures are the fresh runs that
// proved it, when it was the answer.
type VariantRuns struct {
	Reverted       []diffhunks.ID
	Runs, Failures int
	// Verdict is "passes", "fails" or "undecided", or the outcome of a
	// variant that could not run the test ("build-error", "no-tests").
	Verdict                  string
	ProofRuns, ProofFailures int
}

// runTimer is the optional ability of a repeater to bound its runs more
// tightly than its builds (*trial.Runner has it).
type runTimer interface {
	SetRunTimeout(d time.Duration)
}

// planRuns is how many runs of duration d fit in share of the time left
// before ctx's deadline, workers at a time (runsIn). Without a deadline or
// a duration the plan is unbounded (-1).
func planRuns(ctx context.Context, share float64, workers int, d time.Duration) int {
	dl, ok := ctx.Deadline()
	if !ok || d <= 0 {
		return -1
	}
	return runsIn(time.Duration(share*float64(time.Until(dl))), workers, d)
}

// sharedNote says how many runs shared a worker's place (trial.Runner.
// PerWorker), when any did, and how busy the runs made alone kept their
// processor, in percent; nil when every run ran alone.
func sharedNote(runs []trial.Result) *result.Note {
	per := 0
	var wall, cpu time.Duration
	for _, r := range runs {
		per = max(per, r.PerWorker)
		if r.PerWorker <= 1 {
			wall, cpu = wall+r.Duration, cpu+r.CPU
		}
	}
	if per <= 1 {
		return nil
	}
	n := &result.Note{Code: note.SharedWorker, N: per}
	if wall > 0 {
		n.M = max(int(math.Round(100*cpu.Seconds()/wall.Seconds())), 1)
	}
	return n
}

// runsIn is how many runs of duration d fit in left, workers at a time,
// with a tenth kept spare; 0 when nothing is left.
func runsIn(left time.Duration, workers int, d time.Duration) int {
	if left <= 0 {
		return 0
	}
	return int(0.9 * left.Seconds() * float64(workers) / d.Seconds())
}

// median is the median duration of runs.
func median(runs []trial.Result) time.Duration {
	ds := make([]time.Duration, 0, len(runs))
	for _, r := range runs {
		ds = append(ds, r.Duration)
	}
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	return ds[len(ds)/2]
}

// headRuns are the runs of head (nothing reverted) among runs.
func headRuns(runs []trial.Result) []trial.Result {
	var out []trial.Result
	for _, r := range runs {
		if len(r.Reverted) == 0 {
			out = append(out, r)
		}
	}
	return out
}

// flaky goes on from head runs with mixed outcomes (FLAKY.md §5): it runs
// head until its rate is known well enough, then base until base is shown
// not to fail like head, or fails. It sets c's status, notes and rates.
func (c *classification) flaky(ctx context.Context, r repeater, all []diffhunks.ID, head []trial.Result, workers int) error {
	batch := atOnce(r, workers)
	d := median(head) // of one process, however many iterations it runs
	if rt, ok := r.(runTimer); ok && d > 0 {
		// The runner scales a run's limit by its iterations.
		one := d
		if c.amplified != nil {
			one /= time.Duration(c.amplified.Chosen.PerProcess())
		}
		rt.SetRunTimeout(max(10*one, minRunTimeout))
	}
	// With a deadline the classification's time bounds the runs, not a
	// count: a rare flake needs hundreds of base runs to be ruled out,
	// and they stop as soon as the rates separate. Head may take half of
	// what is left, so that base gets the rest.
	plan := c.plan(batch, d)
	headCap := max(maxHeadRuns, len(head))
	if plan >= 0 {
		headCap = max(plan/2, len(head))
	}
	for {
		f, _ := count(head)
		ci := stats.Wilson(f, len(head), stats.Z95)
		if f >= minHeadFailures && ci.HalfWidth() <= maxHalfWidth || len(head) >= headCap || c.over() {
			break
		}
		batch = atOnce(r, workers) // runs may have begun to share a worker
		more, err := c.repeat(ctx, r, nil, min(batch, headCap-len(head)), batch)
		head = append(head, more...)
		if err != nil {
			return fmt.Errorf("running the test on head: %w", err)
		}
	}
	hf, _ := count(head)
	ci := stats.Wilson(hf, len(head), stats.Z95)
	c.rates = &Flakiness{Workers: batch, Head: HeadRate{Runs: len(head), Failures: hf, Rate: stats.Rate(hf, len(head)), CI: ci},
		Amplification: c.amplified}

	need := stats.RunsToRuleOut(ci.Lo, baseAlpha)
	baseCap := maxBaseRuns
	if plan >= 0 {
		baseCap = max(plan-len(head), 0)
	}
	if b := atOnce(r, workers); b != batch && plan >= 0 {
		// Head's runs began to share a worker: base's go faster than
		// the plan made at the start says.
		batch, baseCap = b, c.plan(b, d)
	}
	var base []trial.Result
	for len(base) < min(need, baseCap) && !c.over() {
		more, err := c.repeat(ctx, r, all, min(batch, need-len(base)), batch)
		base = append(base, more...)
		if err != nil {
			return fmt.Errorf("running the test on base: %w", err)
		}
		if bf, _ := count(more); bf > 0 || more[0].Outcome == trial.BuildError || more[0].Outcome == trial.NoTests {
			break
		}
	}
	bf, _ := count(base)
	c.rates.Base = BaseRate{Runs: len(base), Failures: bf}
	c.rates.Workers = batch
	if n := sharedNote(append(head[:len(head):len(head)], base...)); n != nil {
		c.notes.Add(*n)
	}
	c.status = result.Flaky
	switch {
	case len(base) == 0:
		c.notes.Add(result.Note{Code: note.FlakyInconclusive, N: need, M: 0})
	case base[0].Outcome == trial.NoTests:
		c.notes.Add(result.Note{Code: note.FlakyOnHead, N: hf, M: len(head)})
		c.notes.Add(result.Note{Code: note.NewTest})
	case base[0].Outcome == trial.BuildError:
		c.notes.Add(result.Note{Code: note.FlakyOnHead, N: hf, M: len(head)})
		c.notes.Add(result.Note{Code: note.BaseBuildFails, Detail: firstLine(base[0].Message)})
	case bf > 0:
		c.notes.Add(result.Note{Code: note.FlakyOnBoth, N: bf, M: len(base)})
	case len(base) < need:
		c.notes.Add(result.Note{Code: note.FlakyInconclusive, N: need, M: len(base)})
	default:
		c.status = result.FlakyRegression
		c.rates.Base.Upper = stats.ZeroUpper(len(base), baseAlpha)
		c.head = firstFailing(head)
	}
	return nil
}

func firstFailing(runs []trial.Result) trial.Result {
	for _, r := range runs {
		if failing(r.Outcome) {
			return r
		}
	}
	return trial.Result{}
}

// searchFlaky looks for the root hunks of a flaky regression: the revert
// search of req's strategy over a NoisyTester, which judges every variant
// by its failure rate against head's. The status stays FlakyRegression
// whatever the search finds; a root is reported only when its proof (a
// fresh batch of runs, none failing) passed. It derives no causal chain
// and notes so; explainFlaky replaces the note with a chain when it finds
// one.
func searchFlaky(ctx context.Context, req Request, b *budget, res *Result) error {
	res.Notes.Add(result.Note{Code: note.NoIntervention})
	all := ids(res.Hunks)
	candidates, testHunks := revertible(res.Hunks, req.Test)
	res.TestHunks = testHunks
	if len(testHunks) > 0 {
		res.Notes.Add(result.Note{Code: note.TestHunks, N: len(testHunks)})
	}
	nt := search.NewNoisyTester(b, res.Flakiness.Head.CI.Lo, atOnce(b, req.Workers))
	// One variant at a time: its own repeats use the workers, so every
	// rate is measured under the load head's was.
	opt := search.Plan{Revertible: all, TestHunks: testHunks, Parallel: 1}
	b.enter(PhaseSearch)
	var found *search.Found
	var err error
	switch req.Strategy {
	case StrategyDDMin:
		found, err = search.DDMin(ctx, nt, res.Hunks, candidates, opt)
	case StrategyOneByOne:
		found, err = search.OneByOne(ctx, nt, res.Hunks, candidates, opt)
	default:
		found, err = search.Asymmetric(ctx, nt, res.Hunks, candidates, opt)
	}
	judged := nt.Judged()
	for _, j := range judged {
		v := VariantRuns{
			Reverted: j.Reverted, Runs: j.Runs, Failures: j.Failures, Verdict: j.Verdict.String(),
			ProofRuns: j.ProofRuns, ProofFailures: j.ProofFailures,
		}
		if j.Outcome != "" {
			v.Verdict = string(j.Outcome)
		}
		res.Flakiness.Variants = append(res.Flakiness.Variants, v)
	}
	switch {
	case spent(ctx, err):
		if s, ok := smallestJudgedPassing(judged); ok {
			res.Notes.Add(result.Note{Code: note.BudgetSuspect, Limit: limit(req), Hunks: s})
		} else {
			res.Notes.Add(result.Note{Code: note.BudgetNothing, Limit: limit(req)})
		}
		return nil
	case errors.Is(err, search.ErrProofFailed):
		addAll(&res.Notes, found.Notes)
		res.Notes.Add(result.Note{Code: note.FlakyProof, Hunks: found.Suspect})
		return nil
	case err != nil:
		return fmt.Errorf("searching for the culprit hunks of a flaky regression: %w", err)
	}
	if len(found.Root) == 0 || !found.Proof.Passed() {
		res.Notes.Add(result.Note{Code: note.NothingPasses})
		addAll(&res.Notes, found.Notes)
		return nil
	}
	if err := preferUses(ctx, b, found, res.Hunks, candidates); err != nil && !spent(ctx, err) {
		return fmt.Errorf("telling root from auxiliary hunks: %w", err)
	}
	proof := found.Proof
	res.Proof = &proof
	res.Root, res.Aux = found.Root, found.Aux
	addAll(&res.Notes, found.Notes)
	return nil
}

// Limits of the race detector's runs (FLAKY.md §5).
const (
	maxRaceRuns  = 5
	raceSlowdown = 10 // a run under -race takes up to this many plain runs' time
	raceShare    = 0.10
)

// raceEvidence runs head's test under the race detector, as many times as
// fit in a tenth of the time left (at most maxRaceRuns), and keeps the
// races whose both accesses reach the module's code.
func raceEvidence(ctx context.Context, b *budget, head time.Duration, workers int, res *Result) {
	ev := &RaceRuns{}
	res.Flakiness.Race = ev
	n := maxRaceRuns
	if plan := planRuns(ctx, raceShare, max(workers, 1), raceSlowdown*head); plan >= 0 {
		n = min(n, plan)
	}
	if b.maxTrials > 0 {
		n = min(n, max(b.maxTrials-b.Runner.Counts().Trials, 0))
	}
	if n == 0 {
		ev.Unavailable = "no time or trials left in the budget"
		return
	}
	runs, err := b.Runner.RaceRepeat(ctx, n)
	ev.Runs = len(runs)
	if err != nil && len(runs) == 0 {
		ev.Unavailable = err.Error()
		return
	}
	seen := map[string]bool{}
	for _, run := range runs {
		for _, race := range gotest.Races(run.Output) {
			rep, ok := moduleRace(race, res.Hunks)
			if ok && !seen[race.Key()] {
				seen[race.Key()] = true
				ev.Reports = append(ev.Reports, rep)
			}
		}
	}
}

// moduleRace places each access of a race at its innermost frame in the
// module, whose paths the runner made relative to the repository (frames
// in the standard library and the module cache keep absolute paths). A
// race with an access that never reaches the module is not the change's.
func moduleRace(race gotest.Race, hunks []diffhunks.Hunk) (RaceReport, bool) {
	var rep RaceReport
	for _, a := range race.Accesses {
		at := slices.IndexFunc(a.Stack, func(f gotest.Frame) bool { return !filepath.IsAbs(f.File) })
		if at < 0 {
			return RaceReport{}, false
		}
		f := a.Stack[at]
		rep.Accesses = append(rep.Accesses, RaceAccess{Op: a.Op, Func: f.Func, File: f.File, Line: f.Line,
			Hunk: hunkAtPath(hunks, f.File, f.Line)})
	}
	return rep, true
}

// smallestJudgedPassing is the passing variant with the fewest hunks.
func smallestJudgedPassing(judged []search.Judged) ([]diffhunks.ID, bool) {
	var best []diffhunks.ID
	ok := false
	for _, j := range judged {
		if j.Verdict == stats.Passes && (!ok || len(j.Reverted) < len(best)) {
			best, ok = j.Reverted, true
		}
	}
	return best, ok
}
