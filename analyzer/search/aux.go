package search

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/culprit-dev/culprit/analyzer/trial"
	"github.com/culprit-dev/culprit/diffhunks"
)

// AuxFor finds hunks from pool to revert together with revert so that the
// variant compiles (AFTER Algorithm 4). The answer is 1-minimal when
// compiling is monotone in the reverted set: dropping any one of its hunks
// breaks the build again. It is empty when revert compiles alone, and the
// error wraps ErrNoAux when not even reverting all of pool helps.
//
// The search first tries cheap guesses (the pool's hunks in the reverted
// hunks' functions, then in their files, then in the files the compiler
// complains about), then shrinks the first guess that compiles, or the whole
// pool, by partitioning along files, then functions, then single hunks.
// No set is built twice.
func AuxFor(ctx context.Context, b Builder, hunks []diffhunks.Hunk, revert, pool []diffhunks.ID) ([]diffhunks.ID, error) {
	revert = norm(revert)
	return newAuxSearch(b, hunks).find(ctx, revert, minus(norm(pool), revert), "")
}

// auxSearch is the state of Algorithm 4 shared by all its calls within one
// strategy run: compile results are memoised by the whole reverted set.
type auxSearch struct {
	b       Builder
	hunks   []diffhunks.Hunk
	byID    map[diffhunks.ID]diffhunks.Hunk
	builds  memo[built]
	nbuilds atomic.Int64
	// reserve is Plan.Reserve; cut records that minimising stopped
	// for it.
	reserve time.Duration
	cut     atomic.Bool
}

// late reports whether less than a.reserve is left before ctx's deadline:
// minimising then stops, keeping a set that compiles, so that the proof
// and the explanation still have time. It records the cut.
func (a *auxSearch) late(ctx context.Context) bool {
	dl, ok := ctx.Deadline()
	if !ok || a.reserve <= 0 || time.Until(dl) >= a.reserve {
		return false
	}
	a.cut.Store(true)
	return true
}

// built is what one build of a reverted set said: whether it compiled and,
// when it did not, the compiler's message (empty when unknown).
type built struct {
	ok  bool
	msg string
}

func newAuxSearch(b Builder, hunks []diffhunks.Hunk) *auxSearch {
	a := &auxSearch{b: b, hunks: hunks, byID: make(map[diffhunks.ID]diffhunks.Hunk, len(hunks))}
	for _, h := range hunks {
		a.byID[h.ID] = h
	}
	return a
}

// compiles reports whether head builds with the sorted set reverted.
func (a *auxSearch) compiles(ctx context.Context, set []diffhunks.ID) (bool, error) {
	b, err := a.build(ctx, set)
	return b.ok, err
}

// build builds head with the sorted set reverted, once per set.
func (a *auxSearch) build(ctx context.Context, set []diffhunks.ID) (built, error) {
	b, _, err := a.builds.get(key(set), func() (built, error) {
		a.nbuilds.Add(1)
		r, err := a.b.Build(ctx, set)
		if err != nil {
			return built{}, fmt.Errorf("building variant with %v reverted: %w", set, err)
		}
		// A build that timed out is taken as broken: the search then
		// looks for a set that demonstrably compiles.
		return built{ok: r.Compiled() && r.Outcome != trial.Timeout, msg: r.Message}, nil
	})
	return b, err
}

// find returns a 1-minimal subset of pool that makes revert compile. msg is
// the compiler output for revert alone, if known, for the guesses.
func (a *auxSearch) find(ctx context.Context, revert, pool []diffhunks.ID, msg string) ([]diffhunks.ID, error) {
	c, err := a.compiling(ctx, revert, pool, msg, true)
	if err != nil {
		return nil, err
	}
	return a.minimise(ctx, revert, c)
}

// candidate is a set of auxiliary hunks that makes a revert compile, not
// yet minimised, and how to minimise it.
type candidate struct {
	ids []diffhunks.ID
	// followed: the set came from following the compiler, small and mostly
	// needed, so it is trimmed hunk by hunk rather than partitioned.
	followed bool
}

// compiling returns a subset of pool that makes revert compile (empty when
// revert compiles alone), without minimising it.
//
// Without wholePool, a revert that neither following the compiler nor a
// guess makes compile gets ErrNoAux without building the whole pool.
func (a *auxSearch) compiling(ctx context.Context, revert, pool []diffhunks.ID, msg string, wholePool bool) (candidate, error) {
	b, err := a.build(ctx, revert)
	if err != nil || b.ok {
		return candidate{}, err
	}
	if msg == "" {
		msg = b.msg
	}
	// Following the compiler's complaints usually reaches a set that
	// compiles in a few builds, whatever the size of the pool.
	if g, err := a.follow(ctx, revert, pool, msg); err != nil {
		return candidate{}, err
	} else if g != nil {
		return candidate{ids: g, followed: true}, nil
	}
	// A guess that compiles also proves the invariant of shrink, so the
	// whole pool is built only when every guess fails.
	for _, g := range a.guesses(revert, pool, msg) {
		ok, err := a.compiles(ctx, union(revert, g))
		if err != nil {
			return candidate{}, err
		}
		if ok {
			return candidate{ids: g}, nil
		}
	}
	if !wholePool {
		return candidate{}, fmt.Errorf("%w: following the compiler and guessing did not make %v compile", ErrNoAux, revert)
	}
	if ok, err := a.compiles(ctx, union(revert, pool)); err != nil {
		return candidate{}, err
	} else if !ok {
		return candidate{}, fmt.Errorf("%w: %v does not compile even with all %d revertible hunks reverted too", ErrNoAux, revert, len(pool))
	}
	return candidate{ids: pool}, nil
}

// minimise makes c 1-minimal for revert (when compiling is monotone).
func (a *auxSearch) minimise(ctx context.Context, revert []diffhunks.ID, c candidate) ([]diffhunks.ID, error) {
	if len(c.ids) == 0 {
		return nil, nil
	}
	if c.followed {
		return a.trim(ctx, revert, c.ids)
	}
	return a.shrink(ctx, revert, c.ids)
}

// guesses returns growing subsets of pool, smaller than pool, where the
// missing reverts usually are.
func (a *auxSearch) guesses(revert, pool []diffhunks.ID, msg string) [][]diffhunks.ID {
	funcs := map[[2]string]bool{}
	files := map[string]bool{}
	for _, id := range revert {
		h := a.byID[id]
		if h.Func != "" {
			funcs[[2]string{h.File, h.Func}] = true
		}
		if h.File != "" {
			files[h.File] = true
		}
	}
	sameFunc := a.filter(pool, func(h diffhunks.Hunk) bool { return funcs[[2]string{h.File, h.Func}] })
	sameFile := a.filter(pool, func(h diffhunks.Hunk) bool { return files[h.File] })
	named := a.filter(pool, func(h diffhunks.Hunk) bool { return files[h.File] || mentions(msg, h.File) })

	var out [][]diffhunks.ID
	for _, g := range [][]diffhunks.ID{sameFunc, sameFile, named} {
		if len(g) == 0 || len(g) == len(pool) {
			continue
		}
		if len(out) > 0 && slices.Equal(out[len(out)-1], g) {
			continue
		}
		out = append(out, g)
	}
	return out
}

func (a *auxSearch) filter(ids []diffhunks.ID, keep func(diffhunks.Hunk) bool) []diffhunks.ID {
	var out []diffhunks.ID
	for _, id := range ids {
		if h, ok := a.byID[id]; ok && keep(h) {
			out = append(out, id)
		}
	}
	return out
}

// mentions reports whether compiler output names file as "file:line",
// possibly under a directory prefix such as "./".
func mentions(msg, file string) bool {
	if file == "" {
		return false
	}
	for i := 0; ; {
		j := strings.Index(msg[i:], file+":")
		if j < 0 {
			return false
		}
		j += i
		if j == 0 || strings.ContainsRune(" \t\n/\"'(", rune(msg[j-1])) {
			return true
		}
		i = j + 1
	}
}

// shrink is the partitioning of Algorithm 4. Invariant: revert ∪ omega
// compiles. Each round tries every part and every complement of an n-way
// partition of omega; the first that still compiles replaces omega. When
// none does, the partition is refined, until single hunks were tried.
func (a *auxSearch) shrink(ctx context.Context, revert, omega []diffhunks.ID) ([]diffhunks.ID, error) {
	n := 2
	for n <= len(omega) {
		if a.late(ctx) {
			return omega, nil
		}
		parts := a.partition(omega, n)
		next := []diffhunks.ID(nil)
		nextN := 0
		for _, p := range parts {
			ok, err := a.compiles(ctx, union(revert, p))
			if err != nil {
				return nil, err
			}
			if ok {
				next, nextN = p, 2
				break
			}
			c := minus(omega, p)
			ok, err = a.compiles(ctx, union(revert, c))
			if err != nil {
				return nil, err
			}
			if ok {
				next, nextN = c, max(n-1, 2)
				break
			}
		}
		switch {
		case next != nil:
			omega, n = next, nextN
		case n == len(omega):
			return omega, nil
		default:
			n = min(2*n, len(omega))
		}
	}
	return omega, nil
}

// trim makes omega 1-minimal by leaving out one hunk at a time, keeping
// each left out when revert ∪ omega still compiles without it: len(omega)
// builds. Invariant: revert ∪ omega compiles. The sets follow returns are
// small and mostly needed, where this beats shrink's partitions.
func (a *auxSearch) trim(ctx context.Context, revert, omega []diffhunks.ID) ([]diffhunks.ID, error) {
	for i := len(omega) - 1; i >= 0; i-- {
		if a.late(ctx) {
			return omega, nil
		}
		without := slices.Delete(slices.Clone(omega), i, i+1)
		ok, err := a.compiles(ctx, union(revert, without))
		if err != nil {
			return nil, err
		}
		if ok {
			omega = without
		}
	}
	return omega, nil
}

// partition cuts the sorted set omega into n parts along the program's
// structure: whole files if omega spans at least n files, else whole
// functions, else single hunks. Parts come out sorted.
func (a *auxSearch) partition(omega []diffhunks.ID, n int) [][]diffhunks.ID {
	ids := slices.Clone(omega)
	slices.SortStableFunc(ids, func(x, y diffhunks.ID) int {
		hx, hy := a.byID[x], a.byID[y]
		return cmp.Or(strings.Compare(hx.File, hy.File), strings.Compare(hx.Func, hy.Func), cmp.Compare(x, y))
	})
	byFile := a.units(ids, func(h diffhunks.Hunk) string { return h.File })
	byFunc := a.units(ids, func(h diffhunks.Hunk) string { return h.File + "\x00" + h.Func })
	units := byFile
	if len(units) < n {
		units = byFunc
	}
	if len(units) < n {
		units = a.units(ids, nil)
	}
	var out [][]diffhunks.ID
	for _, chunk := range split(units, n) {
		out = append(out, norm(slices.Concat(chunk...)))
	}
	return out
}

// units groups ids by keyOf, each group in the order of its first member
// in ids and holding its members in that order; a nil keyOf makes every id
// its own unit.
func (a *auxSearch) units(ids []diffhunks.ID, keyOf func(diffhunks.Hunk) string) [][]diffhunks.ID {
	index := map[string]int{}
	var out [][]diffhunks.ID
	for _, id := range ids {
		if keyOf == nil {
			out = append(out, []diffhunks.ID{id})
			continue
		}
		k := keyOf(a.byID[id])
		i, ok := index[k]
		if !ok {
			i = len(out)
			index[k] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], id)
	}
	return out
}
