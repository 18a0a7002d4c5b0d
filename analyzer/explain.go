package analyzer

import (
	"context"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/culprit-dev/culprit/analyzer/note"
	"github.com/culprit-dev/culprit/analyzer/result"
	"github.com/culprit-dev/culprit/analyzer/search"
	"github.com/culprit-dev/culprit/analyzer/trace/instrument"
	"github.com/culprit-dev/culprit/analyzer/trial"
	"github.com/culprit-dev/culprit/diffhunks"
	"github.com/culprit-dev/culprit/internal/proc"
)

// ErrNoSuchTest means the named test does not exist (or did not run).
var ErrNoSuchTest = errors.New("the named test does not exist")

func (req *Request) setDefaults() {
	if req.Mode == "" {
		req.Mode = trial.ModeGo
	}
	if req.Strategy == "" {
		req.Strategy = StrategyAfter
	}
	if req.Timeout <= 0 {
		req.Timeout = 2 * time.Minute
	}
	if req.Reruns <= 0 {
		req.Reruns = 3
	}
	if req.Workers <= 0 {
		req.Workers = 2
	}
	if req.Budget <= 0 {
		req.Budget = DefaultBudget
	}
	if req.SemanticBudget <= 0 {
		req.SemanticBudget = min(req.Budget/4, DefaultSemanticBudget)
	}
}

func (req *Request) validate() error {
	switch req.Strategy {
	case StrategyAfter, StrategyDynamic, StrategyDDMin, StrategyOneByOne:
	default:
		return fmt.Errorf("unknown strategy %q (want after, dynamic, ddmin or one-by-one)", req.Strategy)
	}
	switch req.Mode {
	case trial.ModeGo:
		if req.Test.Name == "" {
			return errors.New("no test name given")
		}
	case trial.ModeCommand:
		if req.Test.Command == "" {
			return errors.New("command mode needs a test command")
		}
	default:
		return fmt.Errorf("unknown mode %q (want go or command)", req.Mode)
	}
	if req.Base == "" || req.Head == "" {
		return errors.New("both a base and a head revision are needed")
	}
	return nil
}

// Explain finds the minimal set of hunks between req.Base and req.Head whose
// revert makes the failing test pass, proves it, and explains it. It runs
// the phases of doc.go in order; a phase that settles the answer (an
// identical change, a test that is no regression, a spent budget) ends it.
func Explain(ctx context.Context, req Request) (*Result, error) {
	start := time.Now()
	req.setDefaults()
	if err := req.validate(); err != nil {
		return nil, err
	}
	// The ledger counts the rounds of every trial; a caller that brings
	// its own (culprit bench) reads each trial's round and duration.
	if trial.LedgerOf(ctx) == nil {
		ctx, _ = trial.WithLedger(ctx)
	}
	ctx, cancel := context.WithDeadlineCause(ctx, start.Add(req.Budget), errBudget)
	defer cancel()
	if req.Progress != nil {
		req.Progress(Progress{Phase: PhaseHunks})
	}
	ch, err := prepare(ctx, req)
	if err != nil {
		return nil, err
	}
	res := ch.result()
	if len(res.Hunks) == 0 {
		res.Status = result.NotRegression
		res.Notes.Add(result.Note{Code: note.Identical})
		res.Cost.Wall = time.Since(start)
		return res, nil
	}
	a, err := ch.begin(ctx, start)
	if err != nil {
		return nil, err
	}
	defer a.finish(res, start)

	if next, err := a.verdict(ctx, res); !next || err != nil {
		return answer(res, err)
	}
	if next, err := a.leaf(ctx, res); !next || err != nil {
		return answer(res, err)
	}
	s, err := a.search(ctx, res)
	defer func() { s.failing.close() }() // traceBaseline may set it
	if next, err := a.settle(ctx, res, s, err); !next || err != nil {
		return answer(res, err)
	}
	a.traceBaseline(ctx, res, s)
	if err := a.roles(ctx, res, s); err != nil {
		return nil, err
	}
	prove(res, s.found)
	if res.Status == result.Explained && s.failing != nil {
		if err := a.explain(ctx, res, s); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// answer is what Explain returns after a phase ended the analysis: the
// result so far, or the phase's error.
func answer(res *Result, err error) (*Result, error) {
	if err != nil {
		return nil, err
	}
	return res, nil
}

// module is where a Go test's module lies in the repository.
type module struct {
	dir string // the directory of go.mod, slash-separated, relative to the repository ("." at the top)
	pkg string // the test's package relative to dir ("./calc")
}

// repoPath maps a path relative to the module root (as traces name
// files) to one relative to the repository (as hunks and reports do).
func (m module) repoPath(file string) string {
	if m.dir == "." || m.dir == "" {
		return file
	}
	return m.dir + "/" + file
}

// toRepoPaths rewrites a tree's file names, which the trace gives
// relative to the traced module, to be relative to the repository.
func (m module) toRepoPaths(tree *result.Node) {
	fix := func(s *result.Statement) {
		if s != nil && s.File != "" {
			s.File = m.repoPath(s.File)
		}
	}
	tree.Walk(func(n *result.Node) {
		fix(&n.Target)
		fix(n.Via)
		for i := range n.Statements {
			fix(&n.Statements[i])
		}
	})
}

// moduleOf finds the module of pkg (relative to the repository) at rev,
// and checks that the package is there.
func moduleOf(ctx context.Context, dir, rev, pkg string) (module, error) {
	pkgDir := path.Clean(strings.TrimPrefix(pkg, "./"))
	tree, err := gitLines(ctx, dir, "ls-tree", "-r", "--name-only", rev)
	if err != nil {
		return module{}, fmt.Errorf("listing the files of %s: %w", rev, err)
	}
	mods := map[string]bool{}
	hasGo := false
	for _, f := range tree {
		if path.Base(f) == "go.mod" {
			mods[path.Dir(f)] = true
		}
		hasGo = hasGo || path.Dir(f) == pkgDir && strings.HasSuffix(f, ".go")
	}
	if !hasGo {
		return module{}, fmt.Errorf("%s has no Go files at %s: name the test's package with --pkg (a path relative to the repository)", pkg, rev)
	}
	for d := pkgDir; ; d = path.Dir(d) {
		if mods[d] {
			rel := "."
			if d != pkgDir {
				rel = "./" + strings.TrimPrefix(pkgDir, d+"/")
				if d == "." {
					rel = "./" + pkgDir
				}
			}
			return module{dir: d, pkg: rel}, nil
		}
		if d == "." {
			return module{}, fmt.Errorf("no go.mod at %s in %s or above it: culprit runs Go tests of a module (for other builds use --mode command)", rev, pkg)
		}
	}
}

// newRunner prepares the trials of req's test on the variants of set,
// checked out from the commit head.
func newRunner(ctx context.Context, req Request, head string, set *diffhunks.Set, mod module) (*trial.Runner, error) {
	dir, pkg := req.Dir, req.Test.Package
	if req.Mode == trial.ModeGo {
		dir, pkg = filepath.Join(req.Dir, filepath.FromSlash(mod.dir)), mod.pkg
	}
	var exec trial.Executor
	if req.Mode == trial.ModeGo {
		exec = req.Executor
	}
	r, err := trial.New(ctx, trial.Config{
		Executor:     exec,
		Dir:          dir,
		Head:         head,
		Variants:     set,
		Mode:         req.Mode,
		Pkg:          pkg,
		Test:         req.Test.Name,
		BuildCommand: req.BuildCommand,
		TestCommand:  req.Test.Command,
		Timeout:      req.Timeout,
		Workers:      req.Workers,
		Passthrough:  req.EnvPassthrough,
	})
	if err != nil {
		return nil, fmt.Errorf("preparing trials: %w", err)
	}
	if req.Mode == trial.ModeGo && exec == nil {
		r.SetInstrumenter(perturbable(pkg, req.Test.Name, req.EnvPassthrough))
	}
	return r, nil
}

// perturbable builds a variant's test binary with the tracing runtime, so
// that a flaky failure's runs can be perturbed (trial.Amplification.
// Perturb).
func perturbable(pkg, test string, passthrough []string) trial.Instrumenter {
	return func(ctx context.Context, dir, out string) (string, error) {
		b, err := instrument.Build(ctx, instrument.Config{Dir: dir, Pkg: pkg, Test: test, Passthrough: passthrough})
		if err != nil {
			return "", err
		}
		defer b.Close()
		return b.Keep(out)
	}
}

// largeAux is how many auxiliary hunks make the report say why they remain.
const largeAux = 5

// prove records the search's answer and its proof: only a passing proof
// run makes the result Explained.
func prove(res *Result, found *search.Found) {
	if found == nil || len(found.Root) == 0 {
		res.Status = result.Unexplained
		res.Tree = nil
		res.Notes.Add(result.Note{Code: note.NothingPasses})
		if found != nil {
			addAll(&res.Notes, found.Notes)
		}
		return
	}
	proof := found.Proof
	res.Proof = &proof
	res.Root, res.Aux = found.Root, found.Aux
	if len(found.Aux) > largeAux && !found.Notes.Has(note.MinimiseCut) {
		res.Notes.Add(result.Note{Code: note.LargeAux, N: len(found.Aux)})
	}
	addAll(&res.Notes, found.Notes)
	if !proof.Passed() {
		res.Status = result.Unexplained
		res.Tree = nil
		res.Notes.Add(result.Note{Code: note.ProofFailed, Hunks: proof.Reverted, Outcome: string(proof.Outcome)})
		return
	}
	res.Status = result.Explained
}

func ids(hunks []diffhunks.Hunk) []diffhunks.ID {
	out := make([]diffhunks.ID, len(hunks))
	for i, h := range hunks {
		out[i] = h.ID
	}
	return out
}

// revertible splits the hunks into the candidates for root and the test
// hunks: those of the _test.go files of the failing test's own package, which
// state the expected behaviour. A test hunk is never root, but a root may
// need some of them reverted (to compile, or because the change rewrote the test
// to expect its new behaviour).
func revertible(hunks []diffhunks.Hunk, test TestRef) (candidates, testHunks []diffhunks.ID) {
	dir := path.Clean(strings.TrimPrefix(test.Package, "./"))
	for _, h := range hunks {
		if test.Package != "" && strings.HasSuffix(h.File, "_test.go") && path.Dir(h.File) == dir {
			testHunks = append(testHunks, h.ID)
			continue
		}
		candidates = append(candidates, h.ID)
	}
	return candidates, testHunks
}

// concludeSpent ends an analysis whose budget ran out during the search:
// the smallest passing variant seen so far stands, not minimised, or
// nothing when none passed.
func concludeSpent(res *Result, b *budget, req Request) {
	res.Tree = nil
	best, ok := b.smallestPassing()
	if !ok {
		res.Status = result.Unexplained
		res.Notes.Add(result.Note{Code: note.BudgetNothing, Limit: limit(req)})
		return
	}
	res.Status = result.Explained
	res.Proof = &best
	res.Root = best.Reverted
	res.Aux = nil
	res.Notes.Add(result.Note{Code: note.BudgetUnminimised, Limit: limit(req), N: len(best.Reverted)})
}

// limit states the budget as set, for notes: "20m0s" or "20m0s, 8 trials".
func limit(req Request) string {
	if req.MaxTrials > 0 {
		return fmt.Sprintf("%v, %d trials", req.Budget, req.MaxTrials)
	}
	return req.Budget.String()
}

// mibLimit states a size bound in bytes, for notes: "64 MiB".
func mibLimit(n int64) string { return fmt.Sprintf("%d MiB", n>>20) }

func addAll(l *result.Findings, ns result.Findings) {
	for _, n := range ns {
		l.Add(n)
	}
}

// findTestPackage finds the package whose _test.go files declare the
// top-level test at rev, reading the revision with git so that no checkout
// is needed. Like the go command's ./... it skips vendor, testdata, hidden
// and underscore directories and nested modules.
func findTestPackage(ctx context.Context, dir, rev, test string) (string, error) {
	top, _, _ := strings.Cut(test, "/")
	// A top-level declaration starts its line; a method has a receiver
	// between func and its name, so it does not match.
	grep, err := gitLines(ctx, dir, "grep", "-l", "-E", `^func `+regexp.QuoteMeta(top)+`\(`, rev, "--", "*_test.go")
	if err != nil {
		return "", fmt.Errorf("looking for the package of %s: %w", test, err)
	}
	tree, err := gitLines(ctx, dir, "ls-tree", "-r", "--name-only", rev)
	if err != nil {
		return "", fmt.Errorf("looking for the package of %s: %w", test, err)
	}
	nested := map[string]bool{}
	for _, f := range tree {
		if d := path.Dir(f); path.Base(f) == "go.mod" && d != "." {
			nested[d] = true
		}
	}
	dirs := map[string]bool{}
	for _, line := range grep {
		_, file, _ := strings.Cut(line, ":") // "rev:path"
		if d := path.Dir(file); inPackageTree(d, nested) {
			dirs[d] = true
		}
	}
	var pkgs []string
	for d := range dirs {
		if d == "." {
			pkgs = append(pkgs, ".")
		} else {
			pkgs = append(pkgs, "./"+d)
		}
	}
	sort.Strings(pkgs)
	switch len(pkgs) {
	case 0:
		return "", fmt.Errorf("%w: no _test.go file at %s declares func %s", ErrNoSuchTest, rev, top)
	case 1:
		return pkgs[0], nil
	}
	return "", fmt.Errorf("%s is declared in several packages (%s): name one with --pkg", top, strings.Join(pkgs, ", "))
}

// inPackageTree reports whether dir (slash-separated, relative to the
// repository) holds a package of the root module.
func inPackageTree(dir string, nested map[string]bool) bool {
	if dir == "." {
		return true
	}
	for d := dir; d != "."; d = path.Dir(d) {
		name := path.Base(d)
		if name == "vendor" || name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
			return false
		}
	}
	return true
}

// gitLines runs git in dir and returns its output lines. Exit status 1 with
// no output (git grep finding nothing) is an empty answer, not an error.
func gitLines(ctx context.Context, dir string, args ...string) ([]string, error) {
	out, err := proc.Git(ctx, dir, args...)
	if err != nil {
		var ge *proc.GitError
		if errors.As(err, &ge) && ge.ExitCode == 1 && len(out) == 0 && ge.Stderr == "" {
			return nil, nil
		}
		return nil, err
	}
	if len(out) == 0 {
		return nil, nil
	}
	return strings.Split(strings.TrimRight(string(out), "\n"), "\n"), nil
}
