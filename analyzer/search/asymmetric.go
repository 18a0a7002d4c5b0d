package search

import (
	"context"

	"github.com/culprit-dev/culprit/analyzer/note"
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
func Asymmetric(ctx context.Context, t Tester, hunks []diffhunks.Hunk, candidates []diffhunks.ID, opt Options) (*Found, error) {
	s := newSearcher(t, hunks, opt)
	all := norm(candidates)
	if len(all) == 0 {
		return s.nothing(variant{}, note.Note{Code: note.NoCandidates}), nil
	}
	var notes []note.Note
	if !opt.Exhaustive {
		v, err := s.try(ctx, all)
		if err != nil {
			return nil, err
		}
		if !v.passed() {
			notes, err = s.widen(ctx, all, v)
			if err != nil {
				return nil, err
			}
			if s.extra == nil && opt.Monotone {
				return s.nothing(v, notes[:1]...), nil
			}
		}
	}
	root, err := s.asymmetric(ctx, all)
	if err != nil {
		return nil, err
	}
	if len(root) == 0 {
		v, err := s.try(ctx, all)
		if err != nil {
			return nil, err
		}
		return s.nothing(v, append(notes, note.Note{Code: note.NoSubset, N: len(all)})...), nil
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
func (s *searcher) widen(ctx context.Context, all []diffhunks.ID, v variant) ([]note.Note, error) {
	failed := note.Note{Code: note.AllFail, N: len(all), Outcome: string(v.res.Outcome)}
	if spec := norm(s.opt.Spec); len(spec) > 0 {
		s.extra = spec
		w, err := s.try(ctx, all)
		if err != nil {
			return nil, err
		}
		if w.passed() {
			return []note.Note{failed, {Code: note.SpecReverted, N: len(spec)}}, nil
		}
		s.extra = nil
	}
	return []note.Note{failed, {Code: note.NotMonotone}}, nil
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
