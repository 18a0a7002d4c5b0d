package search

import (
	"context"
	"go/scanner"
	"go/token"
	"slices"
	"strings"

	"github.com/culprit-dev/culprit/analyzer/note"
	"github.com/culprit-dev/culprit/analyzer/result"
	"github.com/culprit-dev/culprit/analyzer/trial"
	"github.com/culprit-dev/culprit/diffhunks"
)

// maxRoleChecks bounds how many auxiliary hunks refine tries as a root of
// their own: each check can cost an auxiliary-change search. Past
// maxRoleAux auxiliary hunks (a refactor the root needs to compile) no
// hunk is tried: each check would follow the same cascade of compiler
// errors through most of the change.
const (
	maxRoleChecks = 8
	maxRoleAux    = 24
)

// refine makes a passing answer smaller where it can, and names its roles
// by what the runs show, before the proof:
//
//  1. Roles: an auxiliary candidate hunk whose revert passes with only the
//     hunks it needs to compile is a root. When that answer is smaller than
//     the search's, or as small while the search's root only renames
//     identifiers (a refactor the real culprit needed to compile) and the
//     hunk does more than that, it replaces it.
//  2. 1-minimality: every hunk of root ∪ aux is left out in turn; if the
//     rest still compiles and passes, the hunk is dropped for good. A root
//     is only dropped while another root remains. A rest is not run when
//     a build of it is known to have failed: minimising the auxiliary
//     hunks built most of these sets. A rest without an auxiliary hunk
//     (or any rest, past maxRoleAux auxiliary hunks) is built before it
//     is run. A rest (or, in step 1, a hunk) that a failed run reverted
//     with more is only built, not run (failsWithMore).
//  3. Closures: a hunk the rest does not compile without leaves together
//     with the hunks it compiles only with, when that rest passes
//     (closures).
//  4. Roles again: a root hunk without which the rest does not compile is
//     needed with the others only so that they compile, and is auxiliary,
//     as in reduce; unless every root hunk is, which the runs cannot tell
//     apart, or the failing run executed it (Plan.Ran). Only verdicts
//     against the final set count.
//
// why says what changed, for Found.Notes.
func (s *searcher) refine(ctx context.Context, root, aux, candidates []diffhunks.ID) (newRoot, newAux []diffhunks.ID, why []result.Note, err error) {
	if len(aux) > maxRoleAux {
		why = append(why, result.Note{Code: note.RolesUnchecked, N: len(aux)})
	} else if root, aux, why, err = s.rootByRole(ctx, root, aux, candidates, why); err != nil {
		return nil, nil, nil, err
	}

	set := union(root, aux)
	// compileOnly maps a root hunk without which the rest did not compile
	// to the set that was judged.
	compileOnly := map[diffhunks.ID]string{}
	// Auxiliary hunks first: they are the likelier to be unneeded.
	for _, h := range append(slices.Clone(aux), root...) {
		if s.aux.late(ctx) {
			break
		}
		rest := minus(set, []diffhunks.ID{h})
		if len(intersect(rest, root)) == 0 {
			continue
		}
		// rootNoCompile notes that the rest did not compile without h,
		// when h is a root hunk the failing run did not execute.
		rootNoCompile := func() {
			if slices.Contains(root, h) && !slices.Contains(s.opt.Ran, h) {
				compileOnly[h] = key(set)
			}
		}
		// Most of these sets were built in minimising the auxiliary
		// hunks: one known not to compile needs no run.
		if b, ok := s.aux.builds.known(key(rest)); ok && !b.ok {
			rootNoCompile()
			continue
		}
		// An auxiliary hunk (other than the test's own, reverted when
		// the test was widened) was reverted because the variant did
		// not compile without it, and past maxRoleAux the set is a
		// refactor the root needs to compile: most such rests do not.
		// A build shows it before a test run is spent; for a rest that
		// compiles, the run then finds the packages built.
		// A rest a failed run reverted with more fails too if it
		// compiles (failsWithMore): it is only built, for the role.
		guess := s.failsWithMore(rest)
		if guess || len(aux) > maxRoleAux || slices.Contains(aux, h) && !slices.Contains(s.extra, h) {
			ok, err := s.aux.compiles(ctx, rest)
			if err != nil {
				return nil, nil, nil, err
			}
			if !ok {
				rootNoCompile()
				continue
			}
		}
		if guess {
			continue
		}
		r, err := s.run(ctx, rest)
		if err != nil {
			return nil, nil, nil, err
		}
		switch {
		case r.Passed():
			set = rest
			root, aux = intersect(root, set), intersect(aux, set)
		case !r.Compiled() && r.Outcome != trial.Timeout:
			rootNoCompile()
		}
	}
	if set, root, aux, err = s.closures(ctx, set, root, aux); err != nil {
		return nil, nil, nil, err
	}
	var moved []diffhunks.ID
	for _, h := range root {
		if compileOnly[h] == key(set) {
			moved = append(moved, h)
		}
	}
	if len(moved) > 0 && len(moved) < len(root) {
		root, aux = minus(root, moved), union(aux, moved)
		why = append(why, result.Note{Code: note.CompileOnly, Hunks: moved})
	}
	return root, aux, why, nil
}

// rootByRole is refine's first step: the first auxiliary candidate hunk
// (of at most maxRoleChecks) whose revert passes with only the hunks it
// needs to compile replaces the root, when that answer is smaller, or as
// small while the root only renames identifiers and the hunk does more
// than that (changesNoValue).
func (s *searcher) rootByRole(ctx context.Context, root, aux, candidates []diffhunks.ID, why []result.Note) ([]diffhunks.ID, []diffhunks.ID, []result.Note, error) {
	checks := 0
	for _, h := range aux {
		if checks == maxRoleChecks || !slices.Contains(candidates, h) {
			continue
		}
		checks++
		guess, err := s.guessFails(ctx, union([]diffhunks.ID{h}, s.extra))
		if err != nil {
			return nil, nil, nil, err
		}
		if guess {
			continue
		}
		v, err := s.try(ctx, []diffhunks.ID{h})
		if err != nil {
			return nil, nil, nil, err
		}
		if !v.passed() {
			continue
		}
		set := union(union([]diffhunks.ID{h}, v.aux), s.extra)
		if n := len(union(root, aux)); len(set) < n || len(set) == n && s.renamesOnly(root) && !s.changesNoValue(h) {
			root, aux = []diffhunks.ID{h}, minus(set, []diffhunks.ID{h})
			why = append(why, result.Note{Code: note.RootByRole, Hunks: []diffhunks.ID{h}})
			break
		}
	}
	return root, aux, why, nil
}

// changesNoValue reports whether hunk h changes no value by itself, as
// the hunk's own text shows: it only threads a parameter, renames, or
// imports what the others use. Such a hunk does not replace a root that
// only renames. (DeclaresOnly, in contrast, reads the compiler's errors.)
func (s *searcher) changesNoValue(h diffhunks.ID) bool {
	i := slices.IndexFunc(s.aux.hunks, func(x diffhunks.Hunk) bool { return x.ID == h })
	return i >= 0 && (ThreadsOrRenames(s.aux.hunks[i]) || importsOnly(s.aux.hunks[i]))
}

// renamesOnly reports whether every hunk in ids changes nothing but the
// names of identifiers (RenamesOnly).
func (s *searcher) renamesOnly(ids []diffhunks.ID) bool {
	return RenamesOnly(s.aux.hunks, ids)
}

// RenamesOnly reports whether every hunk of hunks named in ids changes
// nothing but the names of identifiers (renameOnly).
func RenamesOnly(hunks []diffhunks.Hunk, ids []diffhunks.ID) bool {
	for _, id := range ids {
		i := slices.IndexFunc(hunks, func(h diffhunks.Hunk) bool { return h.ID == id })
		if i < 0 || !renameOnly(hunks[i].Diff) {
			return false
		}
	}
	return len(ids) > 0
}

// renameOnly reports whether a hunk's two sides differ only in identifiers,
// each old name replaced at every one of its occurrences by its own new
// name, one the old text does not use. Names after a dot (fields and methods)
// are apart from the others, so a receiver w renamed to cw and a field
// ResponseWriter renamed to w is a rename; arguments swapped or shifted,
// or parameters reordered, are not.
func renameOnly(diff string) bool {
	a, b := sideTokens(diff)
	if len(a) == 0 || len(a) != len(b) {
		return false
	}
	type name struct {
		selector bool // after a dot
		lit      string
	}
	nameAt := func(ts []goToken, i int) name {
		return name{i > 0 && ts[i-1].tok == token.PERIOD, ts[i].lit}
	}
	oldNames := map[name]bool{}
	for i, t := range a {
		if t.tok == token.IDENT {
			oldNames[nameAt(a, i)] = true
		}
	}
	renamed := map[name]string{}
	kept := map[name]bool{}
	for i := range a {
		if a[i] == b[i] {
			if a[i].tok == token.IDENT {
				kept[nameAt(a, i)] = true
			}
			continue
		}
		if a[i].tok != token.IDENT || b[i].tok != token.IDENT {
			return false
		}
		from, to := nameAt(a, i), nameAt(b, i)
		if to.selector != from.selector || oldNames[to] {
			return false
		}
		if prev, ok := renamed[from]; ok && prev != to.lit {
			return false
		}
		renamed[from] = to.lit
	}
	targets := map[name]bool{}
	for from, to := range renamed {
		t := name{from.selector, to}
		if kept[from] || targets[t] {
			return false
		}
		targets[t] = true
	}
	return len(renamed) > 0
}

type goToken struct {
	tok token.Token
	lit string
}

// sideTokens scans a hunk's removed lines and its added lines.
func sideTokens(diff string) (removed, added []goToken) {
	var old, new strings.Builder
	for _, line := range strings.SplitAfter(diff, "\n") {
		if rest, ok := strings.CutPrefix(line, "-"); ok {
			old.WriteString(rest)
		} else if rest, ok := strings.CutPrefix(line, "+"); ok {
			new.WriteString(rest)
		}
	}
	return goTokens(old.String()), goTokens(new.String())
}

// goTokens scans Go source text, comments left out.
func goTokens(src string) []goToken {
	var sc scanner.Scanner
	fset := token.NewFileSet()
	file := fset.AddFile("", fset.Base(), len(src))
	sc.Init(file, []byte(src), nil, 0)
	var out []goToken
	for {
		_, tok, lit := sc.Scan()
		if tok == token.EOF {
			return out
		}
		if tok == token.SEMICOLON && lit == "\n" {
			continue // an inserted semicolon: line structure is not a change
		}
		out = append(out, goToken{tok, lit})
	}
}

// intersect returns the elements of a that are in b.
func intersect(a, b []diffhunks.ID) []diffhunks.ID {
	out := make([]diffhunks.ID, 0, len(a))
	for _, id := range a {
		if slices.Contains(b, id) {
			out = append(out, id)
		}
	}
	return out
}
