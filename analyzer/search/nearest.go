package search

import (
	"context"
	"errors"
	"slices"

	"github.com/culprit-dev/culprit/diffhunks"
)

// maxNearer bounds how many hunks Nearest tries as a root of their own:
// each try can cost a trial and an auxiliary-change search.
const maxNearer = 3

// Nearest picks, among the roots the runs prove, the one nearest the
// failure. A change often holds several disjoint roots: reverting the
// faulty code passes, and so does reverting the call that reaches it. The
// search keeps whichever it meets first; a reviewer wants the code the
// failing run executed last before it failed (the hunk on a panic's stack,
// the changed statement whose effect reaches the assertion).
//
// ranked lists the hunks the failing run gives evidence for, nearest the
// failure first. Each ranked hunk before the first hunk of f.Root (at most
// maxNearer of them, candidates only) is tried alone, with the hunks it
// needs to compile and the test's own hunks f.Aux holds (Plan.TestHunks); the
// first whose revert passes without reverting any of f.Root, and passes
// again as proof, becomes the root, and f's root is kept in Alternatives.
// Otherwise f is returned as it is.
// The returned Found counts f's trials and builds and those made here.
func Nearest(ctx context.Context, t Tester, hunks []diffhunks.Hunk, f *Found, candidates, ranked []diffhunks.ID, opt Plan) (*Found, error) {
	if f == nil || len(f.Root) == 0 {
		return f, nil
	}
	var tries []diffhunks.ID
	for _, h := range ranked {
		if slices.Contains(f.Root, h) {
			break
		}
		if slices.Contains(candidates, h) && !slices.Contains(tries, h) {
			tries = append(tries, h)
		}
	}
	if len(tries) > maxNearer {
		tries = tries[:maxNearer]
	}
	if len(tries) == 0 {
		return f, nil
	}
	s := newSearcher(t, hunks, opt)
	// Another root must pass without f's: its tries never draw f's root
	// as auxiliary hunks (a guess holding it would pass, and cost a
	// build per hunk to minimise, only to be passed over).
	s.pool = minus(s.pool, norm(f.Root))
	// The test's own hunks the proven answer needed are reverted with
	// every try: the change may have rewritten the test to expect its new
	// behaviour.
	s.extra = intersect(norm(f.Aux), norm(opt.TestHunks))
	s.failed = f.failed
	for _, h := range tries {
		root := []diffhunks.ID{h}
		// A try the search ran with more reverted, and failed, is not
		// run again alone (failsWithMore).
		guess, err := s.guessFails(ctx, union(root, s.extra))
		if err != nil {
			return nil, err
		}
		if guess {
			continue
		}
		// Only the auxiliary hunks the compiler or a guess points at:
		// with the whole pool the try would revert f's root too.
		v, err := s.tryAux(ctx, root, false)
		if err != nil {
			return nil, err
		}
		// A try whose revert takes f's root along proves no other root.
		if !v.passed() || len(intersect(f.Root, v.aux)) > 0 {
			continue
		}
		g, err := s.proveSet(ctx, root, union(v.aux, s.extra), f.Notes...)
		if errors.Is(err, ErrProofFailed) {
			// The search's own answer stands: a try that does not pass
			// again proves nothing, and the proven root is still proven.
			return f.plus(s), nil
		}
		if err != nil {
			return nil, err
		}
		g.Alternatives = append([][]diffhunks.ID{f.Root}, f.Alternatives...)
		g.Trials += f.Trials
		g.Builds += f.Builds
		return g, nil
	}
	return f.plus(s), nil
}

// plus returns a copy of f that also counts s's trials and builds.
func (f *Found) plus(s *searcher) *Found {
	g := *f
	g.Trials += int(s.trials.Load())
	g.Builds += int(s.aux.nbuilds.Load())
	return &g
}
