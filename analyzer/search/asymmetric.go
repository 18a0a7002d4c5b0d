package search

import (
	"context"
	"fmt"

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
		return s.nothing(variant{}, "no candidate hunks"), nil
	}
	if !opt.Exhaustive {
		v, err := s.try(ctx, all)
		if err != nil {
			return nil, err
		}
		if !v.passed() {
			return s.nothing(v, fmt.Sprintf("reverting all %d candidates gives %s", len(all), v.res.Outcome)), nil
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
		return s.nothing(v, fmt.Sprintf("no subset of the %d candidates passes", len(all))), nil
	}
	return s.prove(ctx, root, "")
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
		parts := partition(d, n)
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
