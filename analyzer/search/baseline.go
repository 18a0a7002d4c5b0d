package search

import (
	"context"

	"github.com/culprit-dev/culprit/analyzer/note"
	"github.com/culprit-dev/culprit/analyzer/result"
	"github.com/culprit-dev/culprit/diffhunks"
)

// DDMin is Zeller's minimising delta debugging over the set of reverted
// hunks, with "passes" as the interesting outcome: it starts from all
// candidates reverted (which must pass) and shrinks the set, trying first
// every part of an n-way partition and only then every complement. Variants
// that do not compile get auxiliary hunks as in Asymmetric, so the two
// strategies differ only in their search; with opt.NoAux they count as
// unresolved, that is, not passing.
func DDMin(ctx context.Context, t Tester, hunks []diffhunks.Hunk, candidates []diffhunks.ID, opt Plan) (*Found, error) {
	s := newSearcher(t, hunks, opt)
	c := norm(candidates)
	if len(c) == 0 {
		return s.nothing(variant{}, result.Note{Code: note.NoCandidates}), nil
	}
	v, err := s.try(ctx, c)
	if err != nil {
		return nil, err
	}
	if !v.passed() {
		return s.nothing(v, result.Note{Code: note.AllFail, N: len(c), Outcome: string(v.res.Outcome)}), nil
	}
	// Zeller's ddmin starts over with halves; with Plan.Split runners to
	// fill it cuts into that many parts, which one round tries at once.
	split := func(c []diffhunks.ID) int { return min(max(opt.Split, 2), len(c)) }
	n := split(c)
	for len(c) >= 2 {
		parts := partition(c, n)
		i, err := s.firstPassing(ctx, parts)
		if err != nil {
			return nil, err
		}
		if i >= 0 {
			c = parts[i]
			n = split(c)
			continue
		}
		if n > 2 {
			comps := make([][]diffhunks.ID, len(parts))
			for j, p := range parts {
				comps[j] = minus(c, p)
			}
			i, err := s.firstPassing(ctx, comps)
			if err != nil {
				return nil, err
			}
			if i >= 0 {
				c, n = comps[i], max(n-1, 2)
				continue
			}
		}
		if n >= len(c) {
			break
		}
		n = min(2*n, len(c))
	}
	return s.prove(ctx, c)
}

// OneByOne reverts each candidate alone (with auxiliary hunks when needed)
// and reports the first whose revert passes. When none does, it falls back
// to reverting all candidates, and Found.Notes say so.
func OneByOne(ctx context.Context, t Tester, hunks []diffhunks.Hunk, candidates []diffhunks.ID, opt Plan) (*Found, error) {
	s := newSearcher(t, hunks, opt)
	c := norm(candidates)
	if len(c) == 0 {
		return s.nothing(variant{}, result.Note{Code: note.NoCandidates}), nil
	}
	singles := make([][]diffhunks.ID, len(c))
	for i, id := range c {
		singles[i] = []diffhunks.ID{id}
	}
	i, err := s.firstPassing(ctx, singles)
	if err != nil {
		return nil, err
	}
	if i >= 0 {
		return s.prove(ctx, singles[i])
	}
	if len(c) == 1 {
		v, err := s.try(ctx, c)
		if err != nil {
			return nil, err
		}
		return s.nothing(v, result.Note{Code: note.OnlyCandidate}), nil
	}
	v, err := s.try(ctx, c)
	if err != nil {
		return nil, err
	}
	if !v.passed() {
		return s.nothing(v, result.Note{Code: note.NoSingle, N: len(c), Outcome: string(v.res.Outcome)}), nil
	}
	return s.prove(ctx, c, result.Note{Code: note.FellBackToAll, N: len(c)})
}
