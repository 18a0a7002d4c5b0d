package search

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/culprit-dev/culprit/analyzer/note"
	"github.com/culprit-dev/culprit/analyzer/result"
	"github.com/culprit-dev/culprit/analyzer/trial"
	"github.com/culprit-dev/culprit/diffhunks"
)

// Builder compiles head with a set of hunks reverted, without running tests.
type Builder interface {
	Build(ctx context.Context, revert []diffhunks.ID) (trial.Result, error)
}

// Tester builds and tests variants of head. Implementations cache by the set
// of reverted hunks; the strategies also avoid asking for a set twice, except
// for the final proof, which is asked again on purpose.
type Tester interface {
	// Run builds head with the hunks in revert reverted and runs the
	// failing test on it.
	Run(ctx context.Context, revert []diffhunks.ID) (trial.Result, error)
	Builder
}

// Plan is how a strategy searches: the hunks it may revert as auxiliary
// changes and those it reverts with every variant, the hunks it tries first,
// how many variants at once, which steps it takes or skips, and the time it
// leaves for what follows. The zero value is a sequential search with
// auxiliary changes drawn from all hunks.
type Plan struct {
	// Revertible is the pool the auxiliary-change search draws from. Callers
	// leave out hunks that must not be reverted, such as those in the
	// failing test's own _test.go files. Nil means every hunk.
	Revertible []diffhunks.ID
	// Parallel is how many variants of one partition step may be tried at
	// once; 0 and 1 mean one at a time. Variants are tried in windows of
	// Parallel in partition order and the first passing one in that order
	// wins, so the answer does not depend on timing. Trial counts do depend
	// on Parallel: a window runs whole even when its first variant passes.
	Parallel int
	// Split is how many parts DDMin cuts a set into when it starts over
	// (at first, and after a part passed); 0 and 2 mean halves, as in
	// Zeller's ddmin. An executor with many runners sets it to Parallel:
	// halves give a round only two variants, however many runners wait.
	Split int
	// NoAux turns off the auxiliary-change search: a variant that does not
	// compile counts as not passing (ddmin's "unresolved").
	NoAux bool
	// Exhaustive makes Asymmetric follow AFTER's Algorithm 2 to the letter
	// even when reverting all candidates passes. By default Asymmetric first
	// reverts all candidates: when that passes the test is taken to be
	// monotone; when it fails, the search goes on exhaustively (single hunks
	// and complements), which costs about 4n trials.
	Exhaustive bool
	// Monotone makes Asymmetric stop when reverting all candidates fails
	// (even with TestHunks reverted too) instead of trying single hunks and
	// complements: right for a subset of the hunks that is only a guess,
	// as in the AFTER loop, which widens the subset itself.
	Monotone bool
	// TestHunks lists the hunks of the test's own files. They are never
	// root. When reverting all candidates fails but reverting them together
	// with TestHunks passes (the change also rewrote the test to expect its
	// new behaviour), every variant is tried with TestHunks reverted, and
	// the proof keeps as auxiliary only the test hunks it needs.
	TestHunks []diffhunks.ID
	// Hint lists hunks the failing run gives evidence for, nearest the
	// failure first (its stack, the changed code it executed last). On a
	// large change Asymmetric first tries reverting the functions these
	// hunks lie in, one at a time; the first that passes is searched
	// instead of all candidates. Nil means no evidence. A Monotone search
	// ignores it.
	Hint []diffhunks.ID
	// Ran lists the hunks whose code the failing run executed. A root
	// hunk among them stays root although the rest of the root needs it
	// to compile: code that ran in the failure is not there only so that
	// the rest compiles (refine).
	Ran []diffhunks.ID
	// Reserve is the time to leave before ctx's deadline for the proof and
	// what follows it: with less left, minimising auxiliary hunks and
	// checking 1-minimality stop, the set found so far (which compiles
	// and passes) stands, and a note says so. Zero never stops early.
	Reserve time.Duration
}

// Found is what a strategy settled on.
type Found struct {
	// Root is the set of hunks whose revert (with Aux) makes the test pass,
	// confirmed by Proof. Empty when no variant passed or the proof failed.
	Root []diffhunks.ID
	// Aux are the hunks reverted with Root only so that the variant compiles.
	Aux []diffhunks.ID
	// Proof is the final run of Root ∪ Aux. When Root is empty because
	// nothing passed, it is the run of all candidates (if one was made).
	Proof trial.Result
	// Suspect is the root the search settled on when its proof did not pass.
	Suspect []diffhunks.ID
	// Alternatives are other proven roots, disjoint from Root, that the
	// failing run puts farther from the failure (see Nearest); nearest
	// first.
	Alternatives [][]diffhunks.ID
	// Trials counts calls to Tester.Run, the proof included; Builds counts
	// calls to Tester.Build made by the auxiliary-change search.
	Trials int
	Builds int
	// Notes say how the answer was reached when it is not the plain
	// outcome of the strategy (fallbacks, unresolved variants).
	Notes result.Findings
	// failed are the sets the search ran that compiled and failed
	// (searcher.failsWithMore).
	failed [][]diffhunks.ID
}

// ErrProofFailed is returned, with a Found whose Root is empty and whose
// Suspect is set, when the variant the search settled on passed during the
// search but not when run again: the test is likely flaky.
var ErrProofFailed = errors.New("proof run did not pass")

// ErrNoAux is returned by AuxFor when no subset of the pool, not even all of
// it, makes the variant compile.
var ErrNoAux = errors.New("no auxiliary hunks make the variant compile")

// searcher holds what the strategies share: the tester, the memo tables and
// the counters. Its methods are safe for concurrent use.
type searcher struct {
	t    Tester
	aux  *auxSearch
	pool []diffhunks.ID
	opt  Plan
	// extra is reverted with every variant tried (Plan.TestHunks, once
	// Asymmetric found that the test needs it).
	extra []diffhunks.ID

	runs     memo[trial.Result]
	variants memo[variant]
	trials   atomic.Int64

	mu         sync.Mutex
	unresolved int              // variants that did not compile even with aux
	failed     [][]diffhunks.ID // the sets run that compiled and failed
}

// variant is the outcome of trying one set of hunks: the run of the set
// itself, or of the set with its auxiliary hunks when it did not compile.
type variant struct {
	aux []diffhunks.ID
	res trial.Result
}

func (v variant) passed() bool { return v.res.Passed() }

func newSearcher(t Tester, hunks []diffhunks.Hunk, opt Plan) *searcher {
	s := &searcher{t: t, opt: opt, aux: newAuxSearch(t, hunks)}
	s.aux.reserve = opt.Reserve
	if opt.Revertible != nil {
		s.pool = norm(opt.Revertible)
	} else {
		ids := make([]diffhunks.ID, len(hunks))
		for i, h := range hunks {
			ids[i] = h.ID
		}
		s.pool = norm(ids)
	}
	return s
}

// run runs the sorted set once and remembers the answer; a run also tells
// whether the set compiles, which spares the auxiliary search a build.
func (s *searcher) run(ctx context.Context, set []diffhunks.ID) (trial.Result, error) {
	k := key(set)
	r, _, err := s.runs.get(k, func() (trial.Result, error) {
		s.trials.Add(1)
		r, err := s.t.Run(ctx, set)
		if err != nil {
			return r, fmt.Errorf("running variant with %v reverted: %w", set, err)
		}
		if r.Outcome != trial.Timeout {
			s.aux.builds.put(k, built{ok: r.Compiled(), msg: r.Message})
		}
		if r.Outcome == trial.Fail {
			s.mu.Lock()
			s.failed = append(s.failed, set)
			s.mu.Unlock()
		}
		return r, nil
	})
	return r, err
}

// failsWithMore reports whether a run that reverted every hunk of the
// sorted set, and more, compiled and failed. Taking the test as monotone,
// the set fails too. Only the steps after a search ask (the roles, the
// check of 1-minimality, a nearer root): there a wrong guess costs an
// improvement, never the proven root. The search itself does not, as a
// change can hold hunks whose revert helps only without another's.
func (s *searcher) failsWithMore(set []diffhunks.ID) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, f := range s.failed {
		if len(f) >= len(set) && len(intersect(set, f)) == len(set) {
			return true
		}
	}
	return false
}

// guessFails reports whether the sorted set compiles and failsWithMore:
// a run of it can be spared.
func (s *searcher) guessFails(ctx context.Context, set []diffhunks.ID) (bool, error) {
	if !s.failsWithMore(set) {
		return false, nil
	}
	return s.aux.compiles(ctx, set)
}

// try runs the sorted set with s.extra, adding auxiliary hunks when it does
// not compile. The variant's aux holds neither the set nor s.extra.
//
// Auxiliary hunks are minimised only for a variant that passes: a variant
// that fails with more hunks reverted than it needs fails with fewer too
// (the test being taken as monotone), and on a large refactor minimising
// costs a build per auxiliary hunk. A passing variant is run again with
// its minimised auxiliary hunks, and that run is its outcome.
func (s *searcher) try(ctx context.Context, set []diffhunks.ID) (variant, error) {
	return s.tryAux(ctx, set, true)
}

// tryAux is try; wholePool says whether the auxiliary hunks may come from
// reverting the whole pool when following the compiler and the guesses
// fail. Without it such a variant counts as not passing, unresolved: the
// whole pool reverted passes whenever all candidates do, so that variant
// tells little and minimising its auxiliary hunks costs a build per hunk.
func (s *searcher) tryAux(ctx context.Context, set []diffhunks.ID, wholePool bool) (variant, error) {
	set = union(set, s.extra)
	k := key(set)
	if !wholePool {
		k = "follow:" + k
	}
	v, _, err := s.variants.get(k, func() (variant, error) {
		r, err := s.run(ctx, set)
		if err != nil || r.Compiled() || s.opt.NoAux {
			return variant{res: r}, err
		}
		c, err := s.aux.compiling(ctx, set, minus(s.pool, set), r.Message, wholePool)
		if errors.Is(err, ErrNoAux) {
			if wholePool {
				s.mu.Lock()
				s.unresolved++
				s.mu.Unlock()
			}
			return variant{res: r}, nil
		}
		if err != nil {
			return variant{}, err
		}
		r, err = s.run(ctx, union(set, c.ids))
		if err != nil || !r.Passed() {
			return variant{aux: c.ids, res: r}, err
		}
		aux, err := s.aux.minimise(ctx, set, c)
		if err != nil || len(aux) == len(c.ids) {
			return variant{aux: aux, res: r}, err
		}
		r, err = s.run(ctx, union(set, aux))
		return variant{aux: aux, res: r}, err
	})
	return v, err
}

// firstPassing tries the sets in windows of opt.Parallel and returns the
// index of the first one, in the given order, that passes, or -1.
func (s *searcher) firstPassing(ctx context.Context, sets [][]diffhunks.ID) (int, error) {
	p := max(s.opt.Parallel, 1)
	for lo := 0; lo < len(sets); lo += p {
		hi := min(lo+p, len(sets))
		vs := make([]variant, hi-lo)
		errs := make([]error, hi-lo)
		if hi-lo == 1 {
			vs[0], errs[0] = s.try(ctx, sets[lo])
		} else {
			// The window is the semaphore: at most p goroutines, all
			// waited for before the next window starts. Its variants
			// are one round: each runs in a lane of its own.
			ctxs, join := trial.Fork(ctx, hi-lo)
			var wg sync.WaitGroup
			for i := lo; i < hi; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					vs[i-lo], errs[i-lo] = s.try(ctxs[i-lo], sets[i])
				}()
			}
			wg.Wait()
			join()
		}
		for i := range vs {
			if errs[i] != nil {
				return -1, errs[i]
			}
			if vs[i].passed() {
				return lo + i, nil
			}
		}
		if err := ctx.Err(); err != nil {
			return -1, err
		}
	}
	return -1, nil
}

// nothing reports that no variant passed; v is the run of all candidates.
func (s *searcher) nothing(v variant, notes ...result.Note) *Found {
	f := &Found{Proof: v.res, Notes: notes}
	s.stats(f)
	return f
}

// prove runs root with its auxiliary hunks once more, through the tester so
// that a caching tester may answer from its cache, and reports the root only
// if that run passes.
func (s *searcher) prove(ctx context.Context, root []diffhunks.ID, notes ...result.Note) (*Found, error) {
	v, err := s.try(ctx, root)
	if err != nil {
		return nil, err
	}
	return s.proveSet(ctx, root, union(v.aux, s.extra), notes...)
}

// proveSet is prove for a root whose auxiliary hunks are known.
func (s *searcher) proveSet(ctx context.Context, root, aux []diffhunks.ID, notes ...result.Note) (*Found, error) {
	revert := union(root, aux)
	s.trials.Add(1)
	r, err := s.t.Run(ctx, revert)
	if err != nil {
		return nil, fmt.Errorf("running proof with %v reverted: %w", revert, err)
	}
	f := &Found{Proof: r, Notes: notes}
	s.stats(f)
	if !r.Passed() {
		f.Suspect = root
		f.Notes.Add(result.Note{Code: note.ProofRepeat, Hunks: revert, Outcome: string(r.Outcome)})
		return f, fmt.Errorf("%w: reverting %v gave %s", ErrProofFailed, revert, r.Outcome)
	}
	f.Root, f.Aux = root, aux
	return f, nil
}

func (s *searcher) stats(f *Found) {
	f.Trials = int(s.trials.Load())
	f.Builds = int(s.aux.nbuilds.Load())
	s.mu.Lock()
	n := s.unresolved
	f.failed = slices.Clone(s.failed)
	s.mu.Unlock()
	if n > 0 {
		f.Notes.Add(result.Note{Code: note.Unresolved, N: n})
	}
	if s.aux.cut.Load() {
		f.Notes.Add(result.Note{Code: note.MinimiseCut, Limit: s.opt.Reserve.String()})
	}
}
