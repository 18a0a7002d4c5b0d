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
// as complement-only delta debugging does. Each variant is built before it
// is run, and one that does not compile counts as failing: its auxiliary
// hunks are in the set already, so none are searched for.
//
// The last round, over single hunks, also gives the roles: a hunk without
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
	}
	for _, keyOf := range keys {
		for _, u := range s.aux.units(set, keyOf) {
			if len(u) == len(set) || s.aux.late(ctx) {
				continue
			}
			rest := minus(set, u)
			passed, _, err := s.passesWithout(ctx, rest)
			if err != nil {
				return nil, nil, false, err
			}
			if passed {
				set = rest
			}
		}
	}
	// Single hunks: the round that makes the set 1-minimal and names the
	// roles. A hunk judged before a later one was dropped is judged again
	// against the final set, so that every role holds for the set proven.
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
