package search

import (
	"context"
	"fmt"
	"slices"

	"github.com/culprit-dev/culprit/analyzer/note"
	"github.com/culprit-dev/culprit/analyzer/result"
	"github.com/culprit-dev/culprit/diffhunks"
)

// Asymmetric searches candidates for a small set of hunks whose revert makes
// the test pass: AFTER's dynamic analysis (Algorithm 2). Like ddmin it
// partitions the set into n parts and, for each part in turn, tries
// reverting the part and then its complement; the first that passes becomes
// the new set (with n reset to 2 for a part, n-1 for a complement). Unlike
// symmetric delta debugging a failing run never rules hunks out, so hunks
// that only matter together are kept. When no part or complement passes, n
// doubles, up to single hunks; after that the set itself is the answer.
//
// The result is 1-minimal for a monotone test: reverting any one hunk fewer
// fails. Variants that do not compile are retried with auxiliary hunks from
// opt.Revertible (see AuxFor). A Found with an empty Root and a nil error
// means no variant passed.
func Asymmetric(ctx context.Context, t Tester, hunks []diffhunks.Hunk, candidates []diffhunks.ID, opt Plan) (*Found, error) {
	s := newSearcher(t, hunks, opt)
	all := norm(candidates)
	if len(all) == 0 {
		return s.nothing(variant{}, result.Note{Code: note.NoCandidates}), nil
	}
	var notes []result.Note
	monotone := false         // reverting all candidates passes
	var allAux []diffhunks.ID // what reverting all candidates needs to compile
	if !opt.Exhaustive {
		v, err := s.try(ctx, all)
		if err != nil {
			return nil, err
		}
		monotone = v.passed()
		allAux = v.aux
		if !v.passed() {
			notes, err = s.widen(ctx, all, v)
			if err != nil {
				return nil, err
			}
			monotone = s.extra != nil
			if s.extra == nil && opt.Monotone {
				return s.nothing(v, notes[:1]...), nil
			}
		}
	}
	start := all
	if monotone {
		// Reverting all candidates passes (with the test's own hunks
		// when the search needs them): the test is taken as monotone,
		// and any passing subset may stand for all of them.
		var err error
		if start, err = s.hinted(ctx, all); err != nil {
			return nil, err
		}
		if len(start) == len(all) && len(all) >= largeChange && !opt.Monotone {
			// The reduction builds its sets without searching for
			// auxiliary hunks, so the hunks outside the candidates that
			// all of them needed (the test's own, usually, when the
			// tests call what the change added) go with every set.
			s.extra = union(s.extra, allAux)
			root, aux, separable, err := s.reduce(ctx, all)
			if err != nil {
				return nil, err
			}
			m := len(root)
			if !separable {
				m = 0
			}
			notes = append(notes, result.Note{Code: note.Reduced, N: len(all), M: m})
			return s.proveSet(ctx, root, union(aux, s.extra), notes...)
		}
	}
	root, err := s.asymmetric(ctx, start)
	if err != nil {
		return nil, err
	}
	if len(root) == 0 {
		v, err := s.try(ctx, all)
		if err != nil {
			return nil, err
		}
		return s.nothing(v, append(notes, result.Note{Code: note.NoSubset, N: len(all)})...), nil
	}
	v, err := s.try(ctx, root)
	if err != nil {
		return nil, err
	}
	root, aux, why, err := s.refine(ctx, root, union(v.aux, s.extra), all)
	if err != nil {
		return nil, err
	}
	return s.proveSet(ctx, root, aux, append(notes, why...)...)
}

// widen decides how the search goes on when reverting all candidates (v)
// does not pass: with the test's own hunks reverted too, when that passes;
// otherwise over every part and complement down to single hunks, since the
// test is then not monotone in the candidates.
func (s *searcher) widen(ctx context.Context, all []diffhunks.ID, v variant) ([]result.Note, error) {
	failed := result.Note{Code: note.AllFail, N: len(all), Outcome: string(v.res.Outcome)}
	if testHunks := norm(s.opt.TestHunks); len(testHunks) > 0 {
		s.extra = testHunks
		w, err := s.try(ctx, all)
		if err != nil {
			return nil, err
		}
		if w.passed() {
			return []result.Note{failed, {Code: note.TestHunksReverted, N: len(testHunks)}}, nil
		}
		s.extra = nil
	}
	return []result.Note{failed, {Code: note.NotMonotone}}, nil
}

// asymmetric is Algorithm 2's recursion, written as a loop: every recursive
// call in it is a tail call.
func (s *searcher) asymmetric(ctx context.Context, d []diffhunks.ID) ([]diffhunks.ID, error) {
	n := 2
	for {
		if n > len(d) {
			v, err := s.try(ctx, d)
			if err != nil || !v.passed() {
				return nil, err
			}
			return d, nil
		}
		// Parts follow the program's structure (whole files, then whole
		// functions, then single hunks), as hierarchical delta debugging
		// does: a part cut inside a function rarely compiles alone.
		parts := s.aux.partition(d, n)
		// Part i is followed by its complement, as in the paper; with
		// two parts each complement is the other part.
		var sets [][]diffhunks.ID
		var isPart []bool
		for _, p := range parts {
			sets, isPart = append(sets, p), append(isPart, true)
			if n > 2 {
				sets, isPart = append(sets, minus(d, p)), append(isPart, false)
			}
		}
		i, err := s.firstPassing(ctx, sets)
		if err != nil {
			return nil, err
		}
		switch {
		case i >= 0 && isPart[i]:
			d, n = sets[i], 2
		case i >= 0:
			d, n = sets[i], max(n-1, 2)
		case n == len(d):
			n++ // every single hunk and every complement failed: base case
		default:
			n = min(2*n, len(d))
		}
	}
}

// Hinted searches start from a function the failing run points at only when
// there are at least minHinted candidates (below, the plain search is cheap)
// and try at most maxHinted functions.
const (
	minHinted = 12
	maxHinted = 4
)

// hinted returns the candidates of the first function, in the order of
// opt.Hint, whose revert passes, or all when none does. A function's
// variant that does not compile gets only the auxiliary hunks that
// following the compiler or a guess finds: reverting the whole pool with it
// would pass like reverting everything and prove nothing about it.
func (s *searcher) hinted(ctx context.Context, all []diffhunks.ID) ([]diffhunks.ID, error) {
	// A Monotone search is over a guess already (the hunks the causes
	// touch), which the hint would only second-guess.
	if len(all) < minHinted || len(s.opt.Hint) == 0 || s.opt.Monotone {
		return all, nil
	}
	for _, g := range s.hintUnits(all) {
		v, err := s.tryAux(ctx, g, false)
		if err != nil {
			return nil, err
		}
		if v.passed() {
			return g, nil
		}
	}
	return all, nil
}

// hintUnits groups the candidates that opt.Hint names by function (a hunk
// outside functions, or a whole file, stands alone), in the hint's order,
// at most maxHinted of them.
func (s *searcher) hintUnits(all []diffhunks.ID) [][]diffhunks.ID {
	unitOf := func(h diffhunks.Hunk) string {
		if h.Func == "" || h.Kind != diffhunks.Modify {
			return fmt.Sprintf("#%d", h.ID)
		}
		return h.File + "\x00" + h.Func
	}
	seen := map[string]bool{}
	var out [][]diffhunks.ID
	for _, id := range s.opt.Hint {
		h, ok := s.aux.byID[id]
		if !ok || !slices.Contains(all, id) {
			continue
		}
		u := unitOf(h)
		if seen[u] {
			continue
		}
		seen[u] = true
		var g []diffhunks.ID
		for _, c := range all {
			if unitOf(s.aux.byID[c]) == u {
				g = append(g, c)
			}
		}
		if len(g) == len(all) {
			continue
		}
		out = append(out, g)
		if len(out) == maxHinted {
			break
		}
	}
	return out
}
