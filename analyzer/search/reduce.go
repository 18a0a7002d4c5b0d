package search

import (
	"context"
	"slices"

	"github.com/culprit-dev/culprit/diffhunks"
)

// largeChange is the number of candidates from which a monotone search
// whose hints found nothing reduces the whole set instead of partitioning
// it. On a refactor that large nearly every part needs most of the rest to
// compile, and the auxiliary-change search of each part costs about a build
// per hunk, at every level of the partition.
const largeChange = 100

// reduce returns a 1-minimal subset of all whose revert compiles and
// passes (for a monotone test), found by leaving units out of it while
// the rest still passes: whole files, then functions, then single hunks,
// each first all those the compiler lets go at once (gather), then by
// halves (drop), as complement-only delta debugging does. Each
// variant is built before it is run, and one that does not compile counts
// as failing: its auxiliary hunks are in the set already, so none are
// searched for.
//
// A last round over each hunk left also gives the roles: a hunk without
// which the rest compiles but fails is root, and one without which the rest
// does not compile is auxiliary. When every hunk is needed to compile, the
// whole set is root, and separable is false: the runs cannot tell its
// parts apart.
//
// Units the hint points at are left out last, as they are the likeliest to
// be needed. With less than Plan.Reserve left, the set found so far
// stands, and the hunks not judged against it count as auxiliary.
func (s *searcher) reduce(ctx context.Context, all []diffhunks.ID) (root, aux []diffhunks.ID, separable bool, err error) {
	set := s.byHint(all)
	keys := []func(diffhunks.Hunk) string{
		func(h diffhunks.Hunk) string { return h.File },
		func(h diffhunks.Hunk) string { return h.File + "\x00" + h.Func },
		nil, // single hunks
	}
	for _, keyOf := range keys {
		if set, err = s.gather(ctx, set, s.aux.units(set, keyOf)); err != nil {
			return nil, nil, false, err
		}
		if set, err = s.drop(ctx, set, s.aux.units(set, keyOf)); err != nil {
			return nil, nil, false, err
		}
	}
	// Each hunk left, one at a time: the round that makes the set
	// 1-minimal and names the roles. A hunk judged before a later one was
	// dropped is judged again against the final set, so that every role
	// holds for the set proven.
	type verdict struct {
		root    bool
		against string // the set judged against
	}
	judged := map[diffhunks.ID]verdict{}
	for stale := true; stale; {
		stale = false
		against := key(norm(set))
		for _, h := range slices.Clone(set) {
			if len(set) == 1 {
				judged[h] = verdict{root: true, against: against}
				break
			}
			if v, ok := judged[h]; ok && v.against == against || s.aux.late(ctx) {
				continue
			}
			rest := minus(set, []diffhunks.ID{h})
			passed, compiled, err := s.passesWithout(ctx, rest)
			if err != nil {
				return nil, nil, false, err
			}
			if passed {
				set, against = rest, key(norm(rest))
				stale = true
				continue
			}
			judged[h] = verdict{root: compiled, against: against}
		}
	}
	for _, h := range set {
		if judged[h].root {
			root = append(root, h)
		} else {
			aux = append(aux, h)
		}
	}
	if len(root) == 0 {
		return norm(set), nil, false, nil
	}
	return norm(root), norm(aux), true, nil
}

// gather leaves out of set, at one run, every unit whose absence the
// compiler accepts: it takes the units in turn, each left out when the
// rest still compiles without it and the ones taken before (type checks,
// not runs), and goes round again while one was. When the rest fails, a
// binary search over the prefixes of that list finds the unit whose
// absence makes it fail (each prefix compiles, as it was checked so); the
// units before it are left out, it is kept, and the gathering starts
// again. In a refactor most units can go but only with others (halving
// then builds halves that do not compile and ends up running one unit at
// a time); this costs one run per needed unit the compiler lets go, times
// the search's log, plus one. Units the compiler needs stay for drop,
// which can leave out those needed only by each other.
func (s *searcher) gather(ctx context.Context, set []diffhunks.ID, units [][]diffhunks.ID) ([]diffhunks.ID, error) {
	kept := map[int]bool{}
	for !s.aux.late(ctx) {
		var order []int // the units left out, in turn
		rest := set
		for more := true; more; { // again while one goes: it may free others
			more = false
			for i, u := range units {
				without := minus(rest, u)
				if kept[i] || len(without) == len(rest) || len(without) == 0 {
					continue
				}
				ok, err := s.aux.compiles(ctx, union(without, s.extra))
				if err != nil {
					return nil, err
				}
				if ok {
					order, rest, more = append(order, i), without, true
				}
			}
		}
		if len(order) < 2 {
			return set, nil // drop tries a single unit as cheaply
		}
		prefix := func(n int) []diffhunks.ID {
			out := set
			for _, i := range order[:n] {
				out = minus(out, units[i])
			}
			return out
		}
		passed, _, err := s.passesWithout(ctx, rest)
		if err != nil {
			return nil, err
		}
		if passed {
			return rest, nil
		}
		lo, hi := 0, len(order) // set without prefix(lo) passes, without prefix(hi) fails
		for hi-lo > 1 {
			mid := (lo + hi) / 2
			passed, _, err := s.passesWithout(ctx, prefix(mid))
			if err != nil {
				return nil, err
			}
			if passed {
				lo = mid
			} else {
				hi = mid
			}
		}
		set = prefix(lo)
		kept[order[hi-1]] = true
	}
	return set, nil
}

// drop leaves out of set the units it passes without, halving: all of
// them at once, else each half in turn, down to single units. Where few
// units are needed that costs about two variants per needed unit and
// halving level, not one per unit; a variant that does not compile costs
// a type check, not a run. The whole set is never left out.
func (s *searcher) drop(ctx context.Context, set []diffhunks.ID, units [][]diffhunks.ID) ([]diffhunks.ID, error) {
	if len(units) == 0 || s.aux.late(ctx) {
		return set, nil
	}
	var all []diffhunks.ID
	for _, u := range units {
		all = append(all, u...)
	}
	if rest := minus(set, all); len(rest) > 0 {
		passed, _, err := s.passesWithout(ctx, rest)
		if err != nil {
			return nil, err
		}
		if passed {
			return rest, nil
		}
	}
	if len(units) == 1 {
		return set, nil
	}
	mid := len(units) / 2
	set, err := s.drop(ctx, set, units[:mid])
	if err != nil {
		return nil, err
	}
	return s.drop(ctx, set, units[mid:])
}

// passesWithout builds the set (with s.extra) and, when it compiles, runs
// it.
func (s *searcher) passesWithout(ctx context.Context, set []diffhunks.ID) (passed, compiled bool, err error) {
	set = union(set, s.extra)
	ok, err := s.aux.compiles(ctx, set)
	if err != nil || !ok {
		return false, false, err
	}
	r, err := s.run(ctx, set)
	if err != nil {
		return false, false, err
	}
	return r.Passed(), r.Compiled(), nil
}

// byHint orders ids for reduce: the hunks the hint does not name in file
// order, then those it names, farthest from the failure first.
func (s *searcher) byHint(ids []diffhunks.ID) []diffhunks.ID {
	rank := map[diffhunks.ID]int{}
	for i, id := range s.opt.Hint {
		if _, ok := rank[id]; !ok {
			rank[id] = len(s.opt.Hint) - i
		}
	}
	out := slices.Clone(norm(ids))
	slices.SortStableFunc(out, func(x, y diffhunks.ID) int { return rank[x] - rank[y] })
	return out
}
