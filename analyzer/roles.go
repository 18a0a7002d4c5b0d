package analyzer

import (
	"context"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/culprit-dev/culprit/analyzer/note"
	"github.com/culprit-dev/culprit/analyzer/result"
	"github.com/culprit-dev/culprit/analyzer/search"
	"github.com/culprit-dev/culprit/analyzer/trace"
	"github.com/culprit-dev/culprit/analyzer/trial"
	"github.com/culprit-dev/culprit/diffhunks"
)

// preferUses decides which side of a compile dependency is the root. When
// reverting the root alone leaves identifiers undefined (it removed a
// declaration that the auxiliary hunks use), and reverting the auxiliary
// hunks alone only leaves declarations unused (they removed the uses), the
// auxiliary hunks are where behaviour changes and the root hunks are only
// the declarations they need: the two swap. Not when the undefined names
// are used in the root's own restored lines: the root brings back uses,
// the auxiliary hunks the declarations they need. The reverted set, and so the
// proof, is the same either way. Both builds are usually cached already.
//
// The two also swap when reverting the root alone only brings back
// declarations that nothing uses (every error an unused variable or import,
// in the root's own restored lines): such a root changes no behaviour by
// itself, the auxiliary hunks that used what it declared do.
//
// Only candidates (hunks outside the test's own files) become root in a
// swap; the others stay auxiliary, and with none among the auxiliary
// hunks nothing swaps.
func preferUses(ctx context.Context, b search.Builder, f *search.Found, hunks []diffhunks.Hunk, candidates []diffhunks.ID) error {
	if f == nil || len(f.Root) == 0 || !slices.ContainsFunc(f.Aux, func(id diffhunks.ID) bool { return slices.Contains(candidates, id) }) {
		return nil
	}
	root, err := b.Build(ctx, f.Root)
	if err != nil || root.Compiled() {
		return err
	}
	if onlyUnused(root.Message) && search.ErrorsInReverted(hunks, f.Root, root.Message) {
		swapRoles(f, candidates)
		return nil
	}
	// Undefined names in the root's own restored lines mean the root
	// brought back uses of what the auxiliary hunks declare: the roles
	// stand.
	if !strings.Contains(root.Message, "undefined:") || search.ErrorsInReverted(hunks, f.Root, root.Message) {
		return nil
	}
	aux, err := b.Build(ctx, f.Aux)
	if err != nil || aux.Compiled() || !onlyUnused(aux.Message) {
		return err
	}
	swapRoles(f, candidates)
	return nil
}

// swapRoles makes the auxiliary candidates root and the root auxiliary,
// with the auxiliary hunks that are no candidates.
func swapRoles(f *search.Found, candidates []diffhunks.ID) {
	var root, aux []diffhunks.ID
	for _, id := range f.Aux {
		if slices.Contains(candidates, id) {
			root = append(root, id)
		} else {
			aux = append(aux, id)
		}
	}
	f.Root, f.Aux = root, slices.Sorted(slices.Values(append(aux, f.Root...)))
}

// onlyUnused reports whether every compiler error in msg is an unused
// variable or import.
func onlyUnused(msg string) bool {
	errs := search.CompileErrors(msg)
	for _, e := range errs {
		if !search.Unused(e.Text) {
			return false
		}
	}
	return len(errs) > 0
}

// maxStackScan bounds how much of a failing run's output is read for the
// failure's stack.
const maxStackScan = 64 << 10

// goLoc matches a Go source position as test output prints it: a stack
// frame ("\t/abs/dir/uuid.go:218 +0x1d"), a panic or assertion site
// ("uuid_test.go:405:").
var goLoc = regexp.MustCompile(`([^\s:()"'` + "`" + `]+\.go):(\d+)`)

// failureOrder ranks the hunks by what the failing run shows, nearest the
// failure first: the hunks holding the failure's site and its stack in
// head's failing runs (innermost frame first; for a hung run, the frames
// where its goroutines wait), then the hunks the traced
// failing run executed, the latest executed first. Hunks the run shows no
// evidence for are left out.
func failureOrder(res *Result, failing *afterLoop) []diffhunks.ID {
	var out []diffhunks.ID
	seen := map[diffhunks.ID]bool{}
	add := func(id diffhunks.ID) {
		if id != 0 && !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	for _, r := range res.Evidence {
		if len(r.Reverted) != 0 || (r.Outcome != trial.Fail && r.Outcome != trial.Crash && r.Outcome != trial.Timeout) {
			continue
		}
		text := r.Signature + "\n" + r.Output
		if len(text) > maxStackScan {
			text = text[:maxStackScan]
		}
		for _, m := range goLoc.FindAllStringSubmatch(text, -1) {
			line, err := strconv.Atoi(m[2])
			if err != nil {
				continue
			}
			add(hunkAtPath(res.Hunks, m[1], line))
		}
		break // the runs of head fail alike; the first one speaks for them
	}
	if failing != nil {
		for _, id := range failing.executed(res.Hunks) {
			add(id)
		}
	}
	return out
}

// hunkAtPath finds the hunk whose head lines hold line of file, where file
// is a path as a run printed it: absolute in the run's checkout, relative
// to the repository, or a bare file name (a test's own report). A bare
// name must name one changed file only. 0 when no hunk holds it.
func hunkAtPath(hunks []diffhunks.Hunk, file string, line int) diffhunks.ID {
	file = filepath.ToSlash(file)
	bare := !strings.Contains(file, "/")
	if bare {
		files := map[string]bool{}
		for _, h := range hunks {
			if path.Base(h.File) == file {
				files[h.File] = true
			}
		}
		if len(files) != 1 {
			return 0
		}
	}
	// The longest repository path the printed one names decides.
	best, bestLen := diffhunks.ID(0), -1
	for _, h := range hunks {
		match := h.File == file || strings.HasSuffix(file, "/"+h.File) || bare && path.Base(h.File) == file
		if !match || len(h.File) <= bestLen {
			continue
		}
		if id := diffhunks.HeadAt(hunks, h.File, line); id != 0 {
			best, bestLen = id, len(h.File)
		}
	}
	return best
}

// executed lists the hunks whose code the traced failing run executed up
// to its last failure, the latest executed first. It is worked out once
// per trace (the search's plan, the hint and the roles all ask, always of
// the analysis's hunks): a long run has millions of events.
func (l *afterLoop) executed(hunks []diffhunks.Hunk) []diffhunks.ID {
	if l == nil || l.tr == nil {
		return nil
	}
	if l.exec == nil {
		l.exec = l.scanExecuted(hunks)
	}
	return *l.exec
}

func (l *afterLoop) scanExecuted(hunks []diffhunks.Hunk) *[]diffhunks.ID {
	end := l.runEnd()
	atSite := map[trace.SiteID]diffhunks.ID{}
	seen := map[diffhunks.ID]bool{}
	var out []diffhunks.ID
	for i := end - 1; i >= 0; i-- {
		site := l.tr.SiteOf(i)
		id, ok := atSite[site.ID]
		if !ok {
			id = diffhunks.HeadAt(hunks, l.repoPath(site.Pos.File), site.Pos.Line)
			atSite[site.ID] = id
		}
		if id != 0 && !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return &out
}

// nearest settles which proven root the report names when the change holds
// several (search.Nearest): the one the failing run shows nearest its
// failure, the search's own answer kept as an alternative. Then, when the
// failing run executed none of the root's hunks (the root brings back
// deleted code) but executed some of the hunks its revert needed to
// compile (the code that replaced it), those are root too, but for hunks
// that only thread a parameter or rename (as in treeRoots): the proven set
// is the same, only the roles change.
func nearest(ctx context.Context, t search.Tester, res *Result, f *search.Found, candidates []diffhunks.ID, failing *afterLoop, opt search.Plan) (*search.Found, error) {
	if f == nil || len(f.Root) == 0 {
		return f, nil
	}
	ranked := failureOrder(res, failing)
	g, err := search.Nearest(ctx, t, res.Hunks, f, candidates, ranked, opt)
	if err != nil {
		return f, err
	}
	for _, alt := range g.Alternatives {
		g.Notes.Add(result.Note{Code: note.AlternativeRoot, Hunks: alt})
	}
	var moved []diffhunks.ID
	for _, id := range ranked {
		if slices.Contains(g.Root, id) {
			return g, nil // the run executed the root: the roles stand
		}
		if slices.Contains(g.Aux, id) && slices.Contains(candidates, id) && !threadsOrRenames(res.Hunks, id) {
			moved = append(moved, id)
		}
	}
	if len(moved) == 0 {
		return g, nil
	}
	slices.Sort(moved)
	g.Root, g.Aux = promote(g.Root, g.Aux, moved)
	g.Notes.Add(result.Note{Code: note.ExecutedRoot, Hunks: moved})
	return g, nil
}

// promote moves the auxiliary hunks in moved to the root: the reverted
// set stays the same, only the roles change.
func promote(root, aux, moved []diffhunks.ID) (newRoot, newAux []diffhunks.ID) {
	newRoot = slices.Sorted(slices.Values(append(slices.Clone(root), moved...)))
	newAux = slices.DeleteFunc(slices.Clone(aux), func(id diffhunks.ID) bool { return slices.Contains(moved, id) })
	return newRoot, newAux
}

// treeRoots makes root the auxiliary hunks where the causal tree shows
// an effect of the change. A proven revert set holds hunks the failure
// depends on and hunks only the compiler needs; in a change whose hunks
// compile only together (a rewrite), reverting cannot tell them apart,
// but the tree compared with the passing run can: a hunk holding a step
// that ran otherwise without the change (other values, other source, not
// at all, or deleted code) changes behaviour. A step that ran alike in
// both runs (the body of a renamed function) proves nothing, and without
// the passing run nothing is moved. The tree decides only where the
// search could not try each auxiliary hunk as a root (RolesUnchecked), or
// where the root it settled on only renames identifiers: a rename changes
// no behaviour, so it is auxiliary by construction and goes to the
// auxiliary hunks once the tree has named others (RenameRoot). A hunk that
// only threads a parameter or renames stays auxiliary, on the tree or not,
// as in wholeRoles. Elsewhere the roles the runs settled stand. The proven
// set is the same, only the roles change; the test's own hunks are never
// root.
func treeRoots(res *Result, candidates []diffhunks.ID) {
	renames := search.RenamesOnly(res.Hunks, res.Root)
	if !res.Notes.Has(note.RolesUnchecked) && !renames {
		return
	}
	on := res.Tree.Hunks(result.Statement.Changed)
	var moved []diffhunks.ID
	for _, id := range res.Aux {
		if on[id] && slices.Contains(candidates, id) && !threadsOrRenames(res.Hunks, id) {
			moved = append(moved, id)
		}
	}
	if len(moved) == 0 {
		return
	}
	renamed := slices.Clone(res.Root)
	res.Root, res.Aux = promote(res.Root, res.Aux, moved)
	res.Notes.Add(result.Note{Code: note.TreeRoot, Hunks: moved})
	if renames {
		res.Aux, res.Root = promote(res.Aux, res.Root, renamed)
		res.Notes.Add(result.Note{Code: note.RenameRoot, Hunks: renamed})
	}
	recountAux(res)
}

// recountAux makes the note on how many auxiliary hunks remain count them
// after a move between the roles.
func recountAux(res *Result) {
	res.Notes = slices.DeleteFunc(res.Notes, func(n result.Note) bool { return n.Code == note.LargeAux && len(res.Aux) <= largeAux })
	for i := range res.Notes {
		if res.Notes[i].Code == note.LargeAux {
			res.Notes[i].N = len(res.Aux)
		}
	}
}

// maxOffTree bounds the root hunks offTreeRoots checks, a build each.
const maxOffTree = 8

// offTreeRoots makes auxiliary the root hunks where the causal tree shows
// no effect of the change (it does not reach them, or its steps there ran
// alike in both runs), when it shows one in other root hunks and the
// proven revert does not compile without them. Such a hunk is the other
// side of a compile coupling (the old implementation a rewrite deleted,
// restored so that removing its replacement compiles): what changed
// behaviour on the failure's path is the hunk the tree passes through,
// and the untouched one is reverted because the compiler needs it, which
// is what an auxiliary hunk is. A hunk the revert compiles without stays root: the
// search proved the failure depends on it. The proven set is the same,
// only the roles change; each moved hunk's reason is the compiler's first
// error without it.
func offTreeRoots(ctx context.Context, b search.Builder, res *Result) error {
	on := res.Tree.Hunks(result.Statement.Changed)
	if len(res.Root) < 2 || !slices.ContainsFunc(res.Root, func(id diffhunks.ID) bool { return on[id] }) {
		return nil
	}
	var moved []diffhunks.ID
	var needs []result.AuxNeed
	builds := 0
	for _, id := range res.Root {
		if on[id] || len(moved) >= len(res.Root)-1 {
			continue
		}
		if builds >= maxOffTree {
			break
		}
		builds++
		without := slices.DeleteFunc(slices.Clone(res.Proof.Reverted), func(h diffhunks.ID) bool { return h == id })
		v, err := b.Build(ctx, without)
		if err != nil {
			return err
		}
		if v.Compiled() {
			continue
		}
		if errs := search.CompileErrors(v.Message); len(errs) > 0 {
			moved = append(moved, id)
			needs = append(needs, result.AuxNeed{Hunk: result.HunkID(id), File: errs[0].Path, Line: errs[0].Line, Error: errs[0].Text})
		}
	}
	if len(moved) == 0 {
		return nil
	}
	res.Aux, res.Root = promote(res.Aux, res.Root, moved)
	if res.AuxNeeds != nil {
		res.AuxNeeds = append(res.AuxNeeds, needs...)
		slices.SortFunc(res.AuxNeeds, func(x, y result.AuxNeed) int { return int(x.Hunk) - int(y.Hunk) })
	}
	res.Notes.Add(result.Note{Code: note.OffTreeAux, Hunks: moved})
	recountAux(res)
	return nil
}

// threadsOrRenames reports whether hunk id only threads a parameter
// (search.Plumbing) or only renames identifiers (search.RenamesOnly): it
// changes no value by itself, so it is auxiliary by construction wherever
// the tree passes through it.
func threadsOrRenames(hunks []diffhunks.Hunk, id diffhunks.ID) bool {
	i := slices.IndexFunc(hunks, func(h diffhunks.Hunk) bool { return h.ID == id })
	return i >= 0 && search.ThreadsOrRenames(hunks[i])
}

// maxWhole bounds the hunks of a proven set wholeRoles looks at: the
// revert without each is built (an auxiliary hunk's build is auxNeeds',
// from the runner's cache), and auxNeeds checks at most maxAuxChecked
// auxiliary hunks.
const maxWhole = 16

// wholeRoles gives the causal tree the roles of a proven set that
// compiles only whole. When the revert without any one of the set's hunks
// (the test's own apart) does not compile, no run can tell which of them
// the failure depends on: the roles the search named come from the order
// in which it met the hunks, and another search names the same set's
// roles otherwise. The tree compared with the passing run is then the one
// evidence there is: the hunks holding a step that ran otherwise without
// the change are root, the rest auxiliary, each with the compiler's first
// error without it as its reason. A hunk that only threads a parameter
// (search.Plumbing), only renames identifiers (search.RenamesOnly) or
// only declares what the others use (search.DeclaresOnly) is auxiliary by
// construction, on the tree or not: it changes no value by itself, or
// only through the hunks that use it. Nothing moves when the tree shows no
// effect of the change in the set. The proven set is the same, only the
// roles change.
func wholeRoles(ctx context.Context, b search.Builder, res *Result, candidates []diffhunks.ID) error {
	if res.Proof == nil || !res.Proof.Passed() {
		return nil
	}
	inSet := func(id diffhunks.ID) bool { return slices.Contains(candidates, id) }
	set := slices.Sorted(slices.Values(slices.DeleteFunc(slices.Concat(res.Root, res.Aux), func(id diffhunks.ID) bool { return !inSet(id) })))
	if len(set) < 2 || len(set) > maxWhole {
		return nil
	}
	on := res.Tree.Hunks(result.Statement.Changed)
	byConstruction := 0
	root := slices.DeleteFunc(slices.Clone(set), func(id diffhunks.ID) bool {
		if !on[id] {
			return true
		}
		if threadsOrRenames(res.Hunks, id) {
			byConstruction++
			return true
		}
		return false
	})
	if len(root) == 0 || slices.Equal(root, slices.Sorted(slices.Values(res.Root))) {
		return nil
	}
	// auxNeeds built the revert without each auxiliary hunk: every one of
	// the set's must have failed to compile.
	for _, id := range res.Aux {
		if inSet(id) && !slices.ContainsFunc(res.AuxNeeds, func(n result.AuxNeed) bool { return n.Hunk == id }) {
			return nil
		}
	}
	var needs []result.AuxNeed
	for _, id := range set {
		without := slices.DeleteFunc(slices.Clone(res.Proof.Reverted), func(h diffhunks.ID) bool { return h == id })
		v, err := b.Build(ctx, without) // the auxiliary hunks' are auxNeeds' builds again
		if err != nil {
			return err
		}
		errs := search.CompileErrors(v.Message)
		if v.Compiled() || len(errs) == 0 {
			return nil
		}
		// A declaration whose uses the others removed (reverting them
		// leaves it unused) is auxiliary by construction, as preferUses
		// holds.
		if slices.Contains(root, id) && search.DeclaresOnly(res.Hunks, without, id, v.Message) {
			root = slices.DeleteFunc(root, func(h diffhunks.ID) bool { return h == id })
			byConstruction++
		}
		if slices.Contains(res.Root, id) && !slices.Contains(root, id) {
			needs = append(needs, result.AuxNeed{Hunk: id, File: errs[0].Path, Line: errs[0].Line, Error: errs[0].Text})
		}
	}
	if len(root) == 0 || slices.Equal(root, slices.Sorted(slices.Values(res.Root))) {
		return nil
	}
	all := slices.Concat(res.Root, res.Aux)
	res.Root = root
	res.Aux = slices.Sorted(slices.Values(slices.DeleteFunc(all, func(id diffhunks.ID) bool { return slices.Contains(root, id) })))
	res.AuxNeeds = append(res.AuxNeeds, needs...)
	slices.SortFunc(res.AuxNeeds, func(x, y result.AuxNeed) int { return int(x.Hunk) - int(y.Hunk) })
	// The notes on how the search and the failing run labelled the set
	// are replaced by the one that says how the tree did.
	res.Notes = slices.DeleteFunc(res.Notes, func(n result.Note) bool {
		return n.Code == note.RootByRole || n.Code == note.CompileOnly || n.Code == note.ExecutedRoot
	})
	res.Notes.Add(result.Note{Code: note.WholeRoles, Hunks: root, N: byConstruction})
	recountAux(res)
	return nil
}
