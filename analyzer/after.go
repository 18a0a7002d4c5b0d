package analyzer

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/culprit-dev/culprit/analyzer/note"
	"github.com/culprit-dev/culprit/analyzer/result"
	"github.com/culprit-dev/culprit/analyzer/search"
	"github.com/culprit-dev/culprit/analyzer/semantic"
	"github.com/culprit-dev/culprit/analyzer/trace"
	"github.com/culprit-dev/culprit/analyzer/trace/instrument"
	"github.com/culprit-dev/culprit/analyzer/trial"
	"github.com/culprit-dev/culprit/diffhunks"
)

// explainAfter runs AFTER's loop (SEMANTIC.md §5): causes derived from the
// failing run select the candidate hunks for the revert search, and
// critical predicates extend the causes until the search finds a root.
// Whatever the semantic side cannot do, it says so in res.Notes and falls
// back to the revert search over all candidates; the tree is only set when
// a root was found from derived causes.
//
// Tracing and deriving causes share req.SemanticBudget; the revert
// searches the loop starts run under the analysis's own ctx, and their
// time does not count against that share.
//
// The failing run's analysis is returned, when there is one, for the
// comparison with the passing run; the caller closes it.
func explainAfter(ctx context.Context, req Request, mod module, b *budget, res *Result, candidates []diffhunks.ID, opt search.Plan) (*search.Found, *afterLoop, error) {
	start := time.Now()
	b.enter(PhaseSemantic)
	semCtx, cancel := context.WithTimeoutCause(ctx, req.SemanticBudget, errSemanticBudget)
	defer cancel()
	loop, err := startLoop(semCtx, req, mod, b.Runner, res)
	if loop != nil {
		opt.Ran = loop.executed(res.Hunks)
	}
	switch {
	case err == nil:
		var found *search.Found
		var why *result.Note
		found, why, err = loop.run(ctx, req.SemanticBudget, start, b, res, candidates, opt)
		if why != nil {
			res.Notes.Add(*why)
		}
		loop.record(res, start)
		// The causes are derived: the solver's memory is not needed
		// by the searches, the comparison or the tree.
		loop.an.Release()
		if found != nil || err != nil {
			return found, loop, err
		}
	default:
		res.Cost.Semantic = time.Since(start)
		untraced(semCtx, req, res, err)
	}
	b.enter(PhaseSearch)
	opt.Hint = failureOrder(res, loop)
	if loop != nil {
		// Tracing the passing run takes about as long as the failing
		// one did: keep room for it, and for the proof.
		opt.Reserve = max(opt.Reserve, loop.took*2)
	}
	found, err := search.Asymmetric(ctx, b, res.Hunks, candidates, opt)
	return found, loop, err
}

// untraced says in res why the failing run has no trace to analyse: the
// semantic share ran out while tracing, or tracing failed (err).
func untraced(semCtx context.Context, req Request, res *Result, err error) {
	if semanticSpent(semCtx) {
		res.Notes.Add(result.Note{Code: note.SemanticBudget, Limit: req.SemanticBudget.String()})
		return
	}
	res.Notes.Add(result.Note{Code: note.SemanticFailed, Detail: err.Error()})
}

// errSemanticBudget ends the semantic part of an analysis (its context's
// cause); the revert search goes on without it.
var errSemanticBudget = errors.New("the semantic analysis used its budget")

// semanticSpent reports whether semCtx ended because its budget ran out
// (and not the whole analysis's).
func semanticSpent(semCtx context.Context) bool {
	return semCtx.Err() != nil && errors.Is(context.Cause(semCtx), errSemanticBudget)
}

// afterLoop holds one semantic analysis of the failing run on head.
type afterLoop struct {
	an   *semantic.Analysis
	tr   *trace.Trace
	cfg  instrument.Config // how the failing run was traced
	took time.Duration
	// searching is the time the loop spent in revert searches of the
	// hunks its causes touch: search time, not semantic analysis.
	searching time.Duration
	traceDir  string
	prefix    string // the traced module root, relative to the repository
	// causes are those the tree was built from, when the loop found a root.
	causes []*semantic.Cause
	// failure is the failure event the analysis explains (set by run), 0
	// when it found none.
	failure  int
	lineHunk func(file string, line int) diffhunks.ID
	// ran holds the sites the failing run executed up to its last
	// failure, built on first use (mayMatter).
	ran map[trace.SiteID]bool
	// exec holds the hunks the failing run executed, built on first use
	// (executed).
	exec *[]diffhunks.ID
}

func startLoop(ctx context.Context, req Request, mod module, runner *trial.Runner, res *Result) (*afterLoop, error) {
	modRoot := runner.HeadDir() // the module's directory in the head worktree
	prefix, pkg := mod.dir, mod.pkg
	dir, err := os.MkdirTemp("", "culprit-trace-")
	if err != nil {
		return nil, err
	}
	cfg := instrument.Config{
		Dir:      modRoot,
		Pkg:      pkg,
		Test:     req.Test.Name,
		Timeout:  req.Timeout,
		MaxBytes: req.TraceBytes,
		TraceDir: dir,
		Probe:    true,
		KeepTail: true,

		Passthrough: req.EnvPassthrough,
	}
	began := time.Now()
	tr, err := instrument.Run(ctx, cfg)
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("tracing %s: %w", req.Test.Name, err)
	}
	if !tr.Result.Failed {
		os.RemoveAll(dir)
		return nil, errors.New("the test did not fail when traced")
	}
	if tr.Truncated || tr.Wrapped {
		tr, cfg, dir = narrowTrace(ctx, tr, cfg, mod, res)
	}
	if tr.Truncated || tr.Wrapped {
		tr, cfg, dir = windowTrace(ctx, tr, cfg, res)
	}
	if tr.Truncated {
		res.Notes.Add(result.Note{Code: note.TraceTruncated})
	}
	if tr.Wrapped {
		res.Notes.Add(result.Note{Code: note.TraceWrapped, N: len(tr.Events)})
	}
	if n := len(tr.Skipped); n > 0 {
		res.Notes.Add(result.Note{Code: note.Untraced, N: n})
	}
	if tr.Unentered > 0 {
		res.Notes.Add(result.Note{Code: note.TraceProbed, N: tr.Unentered})
	}
	l := &afterLoop{tr: tr, cfg: cfg, took: time.Since(began), traceDir: dir, prefix: prefix}
	l.an = semantic.New(tr, modRoot, semantic.Setup{Deleted: l.deletions(res.Hunks)})
	return l, nil
}

// narrowTrace traces the failing run again when its trace filled the
// buffer before the failure: with only the test's package and the
// packages the change touches instrumented, calls into the module's other
// packages are observed, not traced, and the events nearest the failure
// are more likely to fit. The narrower trace replaces the first when it
// holds the whole failing run; otherwise the first stands. Either way the
// trace kept, its config and its directory are returned.
func narrowTrace(ctx context.Context, tr *trace.Trace, cfg instrument.Config, mod module, res *Result) (*trace.Trace, instrument.Config, string) {
	pkgs := changedPackages(res.Hunks, mod)
	// Only worth it when the first trace instrumented another package.
	wider := slices.ContainsFunc(tr.Sites[1:], func(s trace.Site) bool {
		return !slices.Contains(pkgs, path.Dir(filepath.ToSlash(s.Pos.File)))
	})
	if !wider {
		return tr, cfg, cfg.TraceDir
	}
	dir, err := os.MkdirTemp("", "culprit-trace-")
	if err != nil {
		return tr, cfg, cfg.TraceDir
	}
	narrow := cfg
	narrow.Packages, narrow.TraceDir = pkgs, dir
	again, err := instrument.Run(ctx, narrow)
	if err != nil || !again.Result.Failed || again.Truncated || again.Wrapped {
		os.RemoveAll(dir)
		return tr, cfg, cfg.TraceDir
	}
	os.RemoveAll(cfg.TraceDir)
	res.Notes.Add(result.Note{Code: note.TraceNarrowed, Detail: strings.Join(pkgs, ", ")})
	return again, narrow, dir
}

// windowBacks are how many events of the test function's frame before
// its first failure a window starts, tried in turn: the few statements
// that set up what the failing one checks, else the failing statement
// alone.
var windowBacks = []uint64{16, 2}

// windowTrace traces the failing run again when its trace filled the
// buffer before the failure, recording from a little before the point of
// the test function where the first failure happened (trace.Trace.Marks):
// the statement that failed is then recorded whole, and a passing run
// started at the same point can be compared with it. The window replaces
// the first trace when it holds the whole rest of the run and a failure;
// otherwise the first stands.
func windowTrace(ctx context.Context, tr *trace.Trace, cfg instrument.Config, res *Result) (*trace.Trace, instrument.Config, string) {
	k := firstFailure(tr)
	for _, back := range windowBacks {
		if k <= 1 || back >= k {
			continue
		}
		dir, err := os.MkdirTemp("", "culprit-trace-")
		if err != nil {
			break
		}
		win := cfg
		win.From, win.TraceDir = k-back, dir
		if tr.Unentered > 0 {
			// The functions the probe found stand: no second probe.
			win.Probe, win.Functions = false, tr.Functions()
		}
		again, err := instrument.Run(ctx, win)
		if err != nil || !again.Result.Failed || again.Truncated || again.Wrapped || len(again.Failures()) == 0 {
			os.RemoveAll(dir)
			continue
		}
		os.RemoveAll(cfg.TraceDir)
		at := ""
		if p, ok := windowStart(again); ok {
			at = fmt.Sprintf("%s:%d", p.File, p.Line)
		}
		res.Notes.Add(result.Note{Code: note.TraceWindow, N: int(back), Detail: at})
		return again, win, dir
	}
	return tr, cfg, cfg.TraceDir
}

// firstFailure is the test function frame's event count at the run's
// first failure: a failure the test reports, or the frame's panic, before
// an explicit panic in the code under test, which may be recovered. 0
// when the run marked none.
func firstFailure(tr *trace.Trace) uint64 {
	for _, m := range tr.Marks {
		if m.Site == 0 || int(m.Site) < len(tr.Sites) && tr.Site(m.Site).Callee != "panic" {
			return m.Events
		}
	}
	if len(tr.Marks) > 0 {
		return tr.Marks[0].Events
	}
	return 0
}

// windowStart is where a trace recorded from a point of the test
// function (trace.Trace.From) begins: the statement of that frame's first
// recorded event.
func windowStart(tr *trace.Trace) (trace.Pos, bool) {
	for i := range tr.Events {
		e := &tr.Events[i]
		if fr := tr.Frames[e.Frame]; fr.Cut && e.Kind != trace.EvEntry && strings.HasSuffix(tr.SiteOf(i).Pos.File, "_test.go") {
			return tr.SiteOf(i).Pos, true
		}
	}
	return trace.Pos{}, false
}

// changedPackages lists the directories, relative to the module root, of
// the test's package and of the module's files the change touches: the
// packages whose code can hold the failure's causes.
func changedPackages(hunks []diffhunks.Hunk, mod module) []string {
	set := map[string]bool{path.Clean(strings.TrimPrefix(mod.pkg, "./")): true}
	for _, h := range hunks {
		if h.Kind == diffhunks.Delete || !strings.HasSuffix(h.File, ".go") {
			continue
		}
		rel := h.File
		if mod.dir != "." {
			var ok bool
			if rel, ok = strings.CutPrefix(h.File, mod.dir+"/"); !ok {
				continue
			}
		}
		set[path.Dir(rel)] = true
	}
	return slices.Sorted(maps.Keys(set))
}

// close removes the trace; a nil loop has nothing to close.
func (l *afterLoop) close() {
	if l != nil {
		os.RemoveAll(l.traceDir)
	}
}

// repoPath maps a path relative to the traced module root to one relative
// to the repository.
func (l *afterLoop) repoPath(file string) string { return module{dir: l.prefix}.repoPath(file) }

// maxIdleCauses is how many causes in a row may touch no hunk the earlier
// causes had not before the loop stops deriving causes and falls back,
// once the analysis has made idleSolverCalls solver calls: cheap causes (a
// small program's) go on, as one of them may still reach the root. The
// rule counts solver calls, not seconds, so that the same trace stops at
// the same cause on a busy machine and an idle one.
const (
	maxIdleCauses   = 4
	idleSolverCalls = 256
)

// run is Algorithm 1. When the causes never led to a root it returns why,
// as the note the report gives, and the caller falls back to the search
// over all candidates.
//
// Each cause is derived under what is left of the semantic share: share
// less the time since start, not counting the loop's revert searches.
func (l *afterLoop) run(ctx context.Context, share time.Duration, start time.Time, b *budget, res *Result, candidates []diffhunks.ID, opt search.Plan) (*search.Found, *result.Note, error) {
	first, err := l.an.Failure()
	if err != nil {
		return nil, &result.Note{Code: note.NoFailureInTrace, Detail: err.Error()}, nil
	}
	l.failure = first.Failure
	pending := []semantic.Target{first}
	var causes []*semantic.Cause
	searched := map[string]bool{}
	allowed := map[diffhunks.ID]bool{}
	for _, id := range candidates {
		allowed[id] = true
	}
	idle := 0 // causes in a row that touched no hunk the earlier ones had not
	touchedN := 0
	for len(pending) > 0 {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		if idle >= maxIdleCauses && l.an.Effort().SolverCalls >= idleSolverCalls {
			// Critical predicates lie ever further from the failure;
			// those that add nothing to the search are not worth the
			// semantic share they use.
			return nil, &result.Note{Code: note.CausesIdle, N: len(causes), M: idle}, nil
		}
		t := pending[0]
		pending = pending[1:]
		semCtx, cancel := context.WithTimeoutCause(ctx, share-(time.Since(start)-l.searching), errSemanticBudget)
		c, err := l.an.Cause(semCtx, t)
		spent := semanticSpent(semCtx)
		cancel()
		if spent {
			return nil, &result.Note{Code: note.SemanticBudget, N: len(causes)}, nil
		}
		if err != nil {
			res.Notes.Add(result.Note{Code: note.CauseFailed, Detail: err.Error()})
			idle++
			continue
		}
		causes = append(causes, c)
		touched := l.touched(res.Hunks, causes, allowed)
		if len(touched) > touchedN {
			idle, touchedN = 0, len(touched)
		} else {
			idle++
		}
		if k := fmt.Sprint(touched); len(touched) > 0 && !searched[k] {
			searched[k] = true
			// The touched hunks are a guess: when reverting them all
			// fails, the loop widens them, not the search.
			guess := opt
			guess.Monotone = true
			guess.TestHunks = l.mayMatter(res.Hunks, opt.TestHunks)
			began := time.Now()
			b.enter(PhaseSearch)
			found, err := search.Asymmetric(ctx, b, res.Hunks, touched, guess)
			b.enter(PhaseSemantic)
			l.searching += time.Since(began)
			if err != nil {
				return found, nil, err
			}
			if len(found.Root) > 0 {
				l.causes, l.lineHunk = causes, l.hunkAt(res.Hunks)
				res.Tree = l.tree(nil)
				res.tracedOutput = l.tr.Result.Output
				return found, nil, nil
			}
		}
		pending = append(pending, l.an.CriticalPredicates(c)...)
		// Nearest to the failure first: the latest event.
		slices.SortStableFunc(pending, func(a, b semantic.Target) int { return b.Event - a.Event })
	}
	return nil, &result.Note{Code: note.CausesTouchNothing, N: len(causes)}, nil
}

// mayMatter returns the test hunks (of the test's own files) that can change
// what the failing run does: those holding a statement it executed up to
// its last failure (a statement spanning several lines, a table literal,
// counts for each of them), and deletions, which no run can execute. A
// test hunk the run never reached (a new test beside the failing one)
// changes its outcome only through the compiler, which the search's
// auxiliary hunks take care of, so a guess is not tried again with it
// reverted.
func (l *afterLoop) mayMatter(hunks []diffhunks.Hunk, testHunks []diffhunks.ID) []diffhunks.ID {
	if len(testHunks) == 0 {
		return nil
	}
	if l.ran == nil {
		// Once per trace, not once per guess: a long run has millions
		// of events.
		l.ran = map[trace.SiteID]bool{}
		for i := range l.runEnd() {
			l.ran[l.tr.Event(i).Site] = true
		}
	}
	byID := map[diffhunks.ID]diffhunks.Hunk{}
	for _, h := range hunks {
		byID[h.ID] = h
	}
	var out []diffhunks.ID
	for _, id := range testHunks {
		h, ok := byID[id]
		if !ok || h.DeletesOnly() {
			out = append(out, id)
			continue
		}
		for site := range l.ran {
			p := l.tr.Site(site).Pos
			if l.repoPath(p.File) == h.File && p.Line <= h.Head.End && max(p.EndLine, p.Line) >= h.Head.Start {
				out = append(out, id)
				break
			}
		}
	}
	return out
}

// runEnd is the end (exclusive) of the failing run's events up to its
// last failure: a test may report several, and the outcome is all of
// them.
func (l *afterLoop) runEnd() int {
	if fails := l.tr.Failures(); len(fails) > 0 {
		return fails[len(fails)-1] + 1
	}
	return len(l.tr.Events)
}

// tree builds the causal tree of the causes that found the root, with
// repository paths; cmp, when not nil, adds the passing run's instances.
func (l *afterLoop) tree(cmp semantic.Contrast) *result.Node {
	t := l.an.Tree(l.causes, l.lineHunk, cmp)
	if t != nil {
		module{dir: l.prefix}.toRepoPaths(t)
	}
	return t
}

// record copies the semantic analysis's figures into the result.
func (l *afterLoop) record(res *Result, start time.Time) {
	st := l.an.Effort()
	res.Cost.Semantic = time.Since(start) - l.searching
	res.Cost.SolverCalls = st.SolverCalls
	res.Cost.Clauses = st.Clauses
	res.Cost.SliceSize = st.Slice
	res.Cost.PointWise = st.PointWise
	res.Cost.Inputs = st.Inputs
	if st.NonMinimal > 0 {
		res.Notes.Add(result.Note{Code: note.SolverGaveUp, N: st.NonMinimal})
	}
	if st.Cut > 0 {
		res.Notes.Add(result.Note{Code: note.SliceCut, N: st.Cut, M: semantic.DefaultMaxSlice})
	}
}

// touched returns the allowed hunks that the causes' statements touch
// (SEMANTIC.md §5): a hunk whose head lines contain a statement, a
// whole-file hunk of a file with a statement, and the deletions the
// causes touch (omissions: semantic.Cause.Deletions).
func (l *afterLoop) touched(hunks []diffhunks.Hunk, causes []*semantic.Cause, allowed map[diffhunks.ID]bool) []diffhunks.ID {
	hunkAt := l.hunkAt(hunks)
	set := map[diffhunks.ID]bool{}
	// The failing statement stands in every cause: a failure in changed
	// code (a panic in a line the change added, whose predicate is the
	// branch that reached it) touches that code's hunk.
	if len(causes) > 0 {
		if p := l.tr.SiteOf(l.failure).Pos; p.File != "" {
			if id := hunkAt(p.File, p.Line); id != 0 {
				set[id] = true
			}
		}
	}
	for _, c := range causes {
		for _, loc := range c.Lines() {
			if id := hunkAt(loc.File, loc.Line); id != 0 {
				set[id] = true
			}
		}
		// A parameter binding joins the call's arguments with the callee's
		// parameter list: Lines names the call, and a changed signature
		// (reordered or retyped parameters) is touched too.
		for _, i := range c.Events {
			if l.tr.Event(i).Kind != trace.EvEntry {
				continue
			}
			if s := l.tr.SiteOf(i); s.Kind == trace.SiteFunc {
				if id := hunkAt(s.Pos.File, s.Pos.Line); id != 0 {
					set[id] = true
				}
			}
		}
		for _, id := range c.Deletions() {
			set[id] = true
		}
		for _, u := range c.Constants {
			if id := hunkAt(u.Loc.File, u.Loc.Line); id != 0 {
				set[id] = true
			}
		}
	}
	var out []diffhunks.ID
	for id := range set {
		if allowed[id] {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

// deletions lists the pure deletions of Go code in the traced module, for
// the omission analysis: where each stood in head and what it removed.
func (l *afterLoop) deletions(hunks []diffhunks.Hunk) []semantic.Deletion {
	var out []semantic.Deletion
	for _, h := range hunks {
		if h.Kind != diffhunks.Modify || h.Head.Len() != 0 || !strings.HasSuffix(h.File, ".go") {
			continue
		}
		file, ok := l.modPath(h.File)
		if !ok {
			continue
		}
		var text strings.Builder
		for _, line := range strings.SplitAfter(h.Diff, "\n") {
			if rest, ok := strings.CutPrefix(line, "-"); ok {
				text.WriteString(rest)
			}
		}
		out = append(out, semantic.Deletion{Hunk: h.ID, File: file, Line: h.Head.Start, Text: text.String()})
	}
	return out
}

// modPath maps a repository path to one relative to the traced module
// root; false if the file lies outside the module.
func (l *afterLoop) modPath(file string) (string, bool) {
	if l.prefix == "." || l.prefix == "" {
		return file, true
	}
	return strings.CutPrefix(file, l.prefix+"/")
}

// hunkAt maps a statement (file relative to the traced module) to the
// hunk whose head lines hold it, 0 if none.
func (l *afterLoop) hunkAt(hunks []diffhunks.Hunk) func(file string, line int) diffhunks.ID {
	return func(file string, line int) diffhunks.ID {
		return diffhunks.HeadAt(hunks, l.repoPath(file), line)
	}
}
