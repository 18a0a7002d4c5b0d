package search

import (
	"context"
	"slices"

	"github.com/culprit-dev/culprit/diffhunks"
)

// Bounds of closures: the sets it looks at, the builds it follows the
// compiler through for one hunk, and the runs it spends in all.
const (
	maxClosureSet    = 16
	maxClosureRounds = 3
	maxClosureRuns   = 4
)

// closures tests each hunk of a 1-minimal set for necessity together with
// the hunks it compiles only with. The check of 1-minimality leaves out
// one hunk at a time, so it keeps two hunks that are unneeded but need
// each other (a declaration and its only use, a lock and its unlock):
// without either alone the rest does not compile. Here, for a hunk h
// whose rest does not compile, the hunks the compiler's errors point at
// (blamed) leave with it, round by round, until the rest compiles; a rest
// that then passes is the new set. A closure of more than half the set,
// or a rest that still does not compile after maxClosureRounds builds, is
// not tried.
func (s *searcher) closures(ctx context.Context, set, root, aux []diffhunks.ID) (newSet, newRoot, newAux []diffhunks.ID, err error) {
	if len(set) > maxClosureSet {
		return set, root, aux, nil
	}
	runs := 0
	for _, h := range minus(set, s.extra) {
		if runs == maxClosureRuns || s.aux.late(ctx) {
			break
		}
		if !slices.Contains(set, h) {
			continue // left with an earlier closure
		}
		// Only where the check of 1-minimality found that the rest
		// does not compile without h.
		if b, known := s.aux.builds.known(key(minus(set, []diffhunks.ID{h}))); !known || b.ok {
			continue
		}
		k, ok, err := s.closure(ctx, set, h)
		if err != nil {
			return nil, nil, nil, err
		}
		rest := minus(set, k)
		if !ok || len(k) < 2 || len(intersect(rest, root)) == 0 && len(intersect(rest, s.opt.Ran)) == 0 {
			continue
		}
		runs++
		r, err := s.run(ctx, rest)
		if err != nil {
			return nil, nil, nil, err
		}
		if r.Passed() {
			set = rest
			root, aux = intersect(root, set), intersect(aux, set)
			if len(root) == 0 {
				// The root left with the closure: what remains holds
				// the failure's cause, in the hunks the failing run
				// executed when it executed any.
				root = minus(intersect(aux, s.opt.Ran), s.extra)
				if len(root) == 0 {
					root = minus(aux, s.extra)
				}
				aux = minus(aux, root)
			}
		}
	}
	return set, root, aux, nil
}

// closure returns the hunks of set that must leave it with h for the rest
// to compile, h among them, and whether it found such a closure.
func (s *searcher) closure(ctx context.Context, set []diffhunks.ID, h diffhunks.ID) ([]diffhunks.ID, bool, error) {
	k := []diffhunks.ID{h}
	for range maxClosureRounds {
		rest := minus(set, k)
		b, err := s.aux.build(ctx, rest)
		if err != nil || b.ok {
			return k, b.ok, err
		}
		more := minus(s.aux.blamed(rest, rest, b.msg), k)
		if len(more) == 0 {
			return k, false, nil
		}
		k = union(k, more)
		if 2*len(k) > len(set) {
			return k, false, nil
		}
	}
	return k, false, nil
}
