package analyzer

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/culprit-dev/culprit/analyzer/gotest"
	"github.com/culprit-dev/culprit/analyzer/note"
	"github.com/culprit-dev/culprit/analyzer/result"
	"github.com/culprit-dev/culprit/analyzer/search"
	"github.com/culprit-dev/culprit/analyzer/trial"
	"github.com/culprit-dev/culprit/diffhunks"
	"github.com/culprit-dev/culprit/internal/version"
)

// change is what an analysis works on: the two commits, resolved once so
// that the hunks, the trials and the report all name the same two even if
// a branch moves meanwhile, the hunks between them, and the module of the
// test (zero in command mode).
type change struct {
	req              Request
	baseSHA, headSHA string
	set              *diffhunks.Set
	mod              module
}

// prepare resolves the commits, splits the change into hunks and finds
// the test's package and module.
func prepare(ctx context.Context, req Request) (*change, error) {
	ch := &change{req: req}
	var err error
	if ch.baseSHA, err = diffhunks.Commit(ctx, req.Dir, req.Base); err != nil {
		return nil, err
	}
	if ch.headSHA, err = diffhunks.Commit(ctx, req.Dir, req.Head); err != nil {
		return nil, err
	}
	if ch.set, err = diffhunks.FromGit(ctx, req.Dir, ch.baseSHA, ch.headSHA); err != nil {
		return nil, fmt.Errorf("splitting %s..%s into hunks: %w", req.Base, req.Head, err)
	}
	if req.Mode != trial.ModeGo {
		return ch, nil
	}
	if ch.req.Test.Package == "" {
		if ch.req.Test.Package, err = findTestPackage(ctx, req.Dir, req.Head, req.Test.Name); err != nil {
			return nil, err
		}
	}
	if ch.mod, err = moduleOf(ctx, req.Dir, req.Head, ch.req.Test.Package); err != nil {
		return nil, err
	}
	if err := checkWorkspace(ctx, req.Dir, ch.mod); err != nil {
		return nil, err
	}
	return ch, nil
}

// result starts the result every later phase adds to.
func (ch *change) result() *Result {
	return &Result{
		Test:    ch.req.Test,
		Base:    ch.req.Base,
		Head:    ch.req.Head,
		BaseSHA: ch.baseSHA,
		HeadSHA: ch.headSHA,
		Tool:    version.Tool(),
		Hunks:   ch.set.Hunks(),
		Cost:    Cost{Strategy: ch.req.Strategy},
	}
}

// analysis is one pass of the phases over a change: the trials, under
// the budget, and the test as it is explained (a leaf subtest may replace
// the named test).
type analysis struct {
	*change
	b       *budget
	earlier trial.Counts // of a runner replaced to explain a subtest
	cls     *classification
	ledger  *trial.Ledger // counts the rounds (Cost.Rounds)
}

// begin prepares the trials of the change's test.
func (ch *change) begin(ctx context.Context, start time.Time) (*analysis, error) {
	runner, err := newRunner(ctx, ch.req, ch.headSHA, ch.set, ch.mod)
	if err != nil {
		return nil, err
	}
	return &analysis{change: ch, b: newBudget(runner, start, ch.req.MaxTrials, ch.req.Progress), ledger: trial.LedgerOf(ctx)}, nil
}

// finish closes the trials and records what the analysis cost.
func (a *analysis) finish(res *Result, start time.Time) {
	a.b.enter(PhaseDone)
	a.b.Runner.Close()
	st := a.b.Runner.Counts()
	res.Cost.Trials = a.earlier.Trials + st.Trials
	res.Cost.Builds = a.earlier.Builds + st.Builds
	res.Cost.TypeChecks = a.earlier.TypeChecks + st.TypeChecks
	res.Cost.TypeAccepted = a.earlier.TypeAccepted + st.TypeAccepted
	res.Cost.CacheHits = a.earlier.CacheHits + st.CacheHits
	if n := a.earlier.OverMemory + st.OverMemory; n > 0 {
		res.Notes.Add(result.Note{Code: note.OverMemory, N: n, Limit: mibLimit(a.b.Runner.MaxMemory())})
	}
	res.Cost.Rounds = a.ledger.Rounds()
	res.Cost.Wall = time.Since(start)
}

// verdict is the first phase: head and base run several times, and the
// runs decide whether the failure is a regression to search. It reports
// whether the analysis goes on to the search; a flaky regression is
// searched and explained here, by FLAKY.md's method.
func (a *analysis) verdict(ctx context.Context, res *Result) (next bool, err error) {
	cls, err := classify(ctx, a.b, ids(res.Hunks), a.req.Reruns, a.req.Workers)
	switch {
	case spent(ctx, err):
		res.Status = result.Unexplained
		res.Notes.Add(result.Note{Code: note.BudgetClassify, Limit: limit(a.req)})
		return false, nil
	case errors.Is(err, ErrNoSuchTest):
		return false, missingSubtest(ctx, a.req, a.headSHA, a.set, a.mod, err)
	case err != nil:
		return false, err
	}
	a.cls = cls
	res.Evidence = cls.runs
	res.Flakiness = cls.rates
	addAll(&res.Notes, cls.notes)
	switch cls.status {
	case "":
		return true, nil
	case result.FlakyRegression:
		res.Status = result.FlakyRegression
		return false, a.flaky(ctx, res)
	}
	res.Status = cls.status
	return false, nil
}

// flaky searches a flaky regression's root by repeated trials and
// explains it by interventions (FLAKY.md).
func (a *analysis) flaky(ctx context.Context, res *Result) error {
	if err := searchFlaky(ctx, a.req, a.b, res); err != nil {
		return err
	}
	if a.req.Mode == trial.ModeGo && a.b.check(ctx) == nil {
		raceEvidence(ctx, a.b, median(headRuns(res.Evidence)), a.req.Workers, res)
	}
	if a.req.Mode == trial.ModeGo && res.Proof != nil && res.Proof.Passed() && len(res.Root) > 0 {
		explainFlaky(ctx, a.req, a.b, a.mod, res)
	}
	return nil
}

// leaf chooses the subtest to explain: when the named test fails through
// one leaf subtest, that leaf gets a runner of its own, so that every
// variant runs it alone. A failure only in subtests that base lacks is no
// regression.
func (a *analysis) leaf(ctx context.Context, res *Result) (next bool, err error) {
	if a.req.Mode != trial.ModeGo {
		return true, nil
	}
	var head, base []trial.Result
	for _, r := range a.cls.runs {
		if len(r.Reverted) == 0 {
			head = append(head, r)
		} else {
			base = append(base, r)
		}
	}
	choice := chooseSubtest(head, base)
	res.Subtests = choice
	switch {
	case choice.Leaf == "" && len(choice.New) > 0:
		res.Status = result.NotRegression
		return false, nil
	case choice.Leaf == "" || choice.Leaf == gotest.TestName(a.req.Test.Name):
		return true, nil
	}
	a.earlier = a.b.Runner.Counts()
	a.b.Runner.Close()
	a.req.Test.Name = choice.Leaf
	res.Test.Name = choice.Leaf
	r, err := newRunner(ctx, a.req, a.headSHA, a.set, a.mod)
	if err != nil {
		return false, err
	}
	a.b.Runner = r
	return true, nil
}

// searched is the search phase's answer: the hunks found, the candidates
// they were found among, and the failing run's semantic analysis when the
// strategy made one, or its trace when traceBaseline did (the caller
// closes it).
type searched struct {
	found      *search.Found
	candidates []diffhunks.ID
	opt        search.Plan
	failing    *afterLoop
}

// search finds a set of hunks whose revert passes, by the request's
// strategy. The failure's stack, when it shows changed code, guides a
// large search; AFTER adds what the traced run executed. A fifth of the
// budget is kept for the proof and the comparison: a large change's
// minimisation stops short of it.
func (a *analysis) search(ctx context.Context, res *Result) (*searched, error) {
	candidates, testHunks := revertible(res.Hunks, a.req.Test)
	res.TestHunks = testHunks
	if len(testHunks) > 0 {
		res.Notes.Add(result.Note{Code: note.TestHunks, N: len(testHunks)})
	}
	s := &searched{candidates: candidates}
	s.opt = search.Plan{Revertible: ids(res.Hunks), TestHunks: testHunks, Parallel: cmp.Or(a.req.Parallel, a.req.Workers), Split: a.req.Parallel, Hint: failureOrder(res, nil), Reserve: a.req.Budget / 5}
	a.b.enter(PhaseSearch)
	var err error
	switch a.req.Strategy {
	case StrategyAfter:
		if a.req.Mode != trial.ModeGo {
			res.Notes.Add(result.Note{Code: note.CommandModeDynamic})
			s.found, err = search.Asymmetric(ctx, a.b, res.Hunks, candidates, s.opt)
			break
		}
		s.found, s.failing, err = explainAfter(ctx, a.req, a.mod, a.b, res, candidates, s.opt)
	case StrategyDynamic:
		s.found, err = search.Asymmetric(ctx, a.b, res.Hunks, candidates, s.opt)
	case StrategyDDMin:
		s.found, err = search.DDMin(ctx, a.b, res.Hunks, candidates, s.opt)
	case StrategyOneByOne:
		s.found, err = search.OneByOne(ctx, a.b, res.Hunks, candidates, s.opt)
	}
	return s, err
}

// traceBaseline gives the set a baseline search (ddmin, one-by-one)
// proved the trace of the failing run that AFTER's search makes for
// itself (traceFailing), for the roles and the comparison that follow.
func (a *analysis) traceBaseline(ctx context.Context, res *Result, s *searched) {
	baseline := a.req.Strategy == StrategyDDMin || a.req.Strategy == StrategyOneByOne
	if baseline && a.req.Mode == trial.ModeGo && s.failing == nil && s.found != nil && len(s.found.Root) > 0 {
		s.failing = traceFailing(ctx, a.req, a.mod, a.b, res)
	}
}

// settle turns a search that could not finish into the answer: a spent
// budget keeps the smallest passing variant seen, unminimised; a variant
// that passed once and then failed is a suspicion, never a culprit. It
// reports whether the found hunks go on to the roles and the proof.
func (a *analysis) settle(ctx context.Context, res *Result, s *searched, err error) (next bool, _ error) {
	switch {
	case err == nil:
		return true, nil
	case spent(ctx, err):
		concludeSpent(res, a.b, a.req)
		return false, nil
	case errors.Is(err, search.ErrProofFailed):
		res.Status = result.Flaky
		res.Tree = nil
		res.Notes.Add(result.Note{Code: note.FlakyProof, Hunks: s.found.Suspect})
		return false, a.remeasure(ctx, res, s.found.Suspect)
	}
	return false, fmt.Errorf("searching for the culprit hunks: %w", err)
}

// remeasure runs head again when a variant passed once and failed its
// proof: when head passes some runs, the failure is a flaky one, measured
// and, as a flaky regression, searched and explained as such (FLAKY.md);
// when head fails every run, the flaky proof's note stands.
func (a *analysis) remeasure(ctx context.Context, res *Result, suspect []diffhunks.ID) error {
	if a.cls == nil || a.b.check(ctx) != nil {
		return nil
	}
	a.b.enter(PhaseClassify)
	flaky, err := a.cls.recheck(ctx, a.b, ids(res.Hunks), suspect, a.req.Workers)
	res.Evidence = a.cls.runs
	switch {
	case spent(ctx, err):
		return nil
	case err != nil:
		return err
	case !flaky:
		return nil
	}
	res.Notes = slices.DeleteFunc(res.Notes, func(n result.Note) bool { return n.Code == note.FlakyProof })
	addAll(&res.Notes, a.cls.notes)
	res.Flakiness = a.cls.rates
	res.Status = a.cls.status
	if res.Status == result.FlakyRegression {
		return a.flaky(ctx, res)
	}
	return nil
}

// roles decides, once, which found hunks are root and which auxiliary:
// a hunk that only declares what the root uses is auxiliary, among
// equally small roots the one nearest the failure is kept, and each
// auxiliary hunk left must be needed to compile (auxNeeds).
func (a *analysis) roles(ctx context.Context, res *Result, s *searched) error {
	if err := preferUses(ctx, a.b, s.found, res.Hunks, s.candidates); err != nil && !spent(ctx, err) {
		return fmt.Errorf("telling root from auxiliary hunks: %w", err)
	}
	found, err := nearest(ctx, a.b, res, s.found, s.candidates, s.failing, s.opt)
	if err != nil && !spent(ctx, err) {
		return fmt.Errorf("choosing the root nearest the failure: %w", err)
	}
	s.found = found
	needs, notes, err := auxNeeds(ctx, a.b, s.found, res.TestHunks)
	if err != nil && !spent(ctx, err) {
		return fmt.Errorf("checking that each auxiliary hunk is needed: %w", err)
	}
	res.AuxNeeds = needs
	if s.found != nil {
		addAll(&s.found.Notes, notes)
	}
	return nil
}

// explain compares the failing run with the passing run of the proven
// revert (COMPARATIVE.md) and settles the roles by the causal tree.
func (a *analysis) explain(ctx context.Context, res *Result, s *searched) error {
	a.b.enter(PhaseContrast)
	compare(ctx, a.req, a.b, s.failing, res)
	if err := wholeRoles(ctx, a.b, res, s.candidates); err != nil && !spent(ctx, err) {
		return fmt.Errorf("settling the roles of a set that compiles only whole: %w", err)
	}
	treeRoots(res, s.candidates)
	if err := offTreeRoots(ctx, a.b, res); err != nil && !spent(ctx, err) {
		return fmt.Errorf("checking the root hunks the causal tree does not reach: %w", err)
	}
	return nil
}
