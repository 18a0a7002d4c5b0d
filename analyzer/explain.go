package analyzer

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/culprit-dev/culprit/analyzer/search"
	"github.com/culprit-dev/culprit/analyzer/trial"
	"github.com/culprit-dev/culprit/diffhunks"
)

// ErrNoSuchTest means the named test does not exist (or did not run).
var ErrNoSuchTest = errors.New("the named test does not exist")

func (req *Request) setDefaults() {
	if req.Mode == "" {
		req.Mode = ModeGo
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
}

func (req *Request) validate() error {
	switch req.Strategy {
	case StrategyAfter, StrategyDynamic, StrategyDDMin, StrategyOneByOne:
	default:
		return fmt.Errorf("unknown strategy %q (want after, dynamic, ddmin or one-by-one)", req.Strategy)
	}
	switch req.Mode {
	case ModeGo:
		if req.Test.Name == "" {
			return errors.New("no test name given")
		}
	case ModeCommand:
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
// revert makes the failing test pass, proves it, and explains it.
func Explain(ctx context.Context, req Request) (*Result, error) {
	start := time.Now()
	req.setDefaults()
	if err := req.validate(); err != nil {
		return nil, err
	}
	set, err := diffhunks.FromGit(ctx, req.Dir, req.Base, req.Head)
	if err != nil {
		return nil, fmt.Errorf("splitting %s..%s into hunks: %w", req.Base, req.Head, err)
	}
	if req.Mode == ModeGo && req.Test.Package == "" {
		pkg, err := findTestPackage(ctx, req.Dir, req.Head, req.Test.Name)
		if err != nil {
			return nil, err
		}
		req.Test.Package = pkg
	}
	res := &Result{
		Test:  req.Test,
		Base:  req.Base,
		Head:  req.Head,
		Hunks: set.Hunks(),
		Stats: Stats{Strategy: req.Strategy},
	}
	if len(res.Hunks) == 0 {
		res.Status = NotRegression
		res.Notes = append(res.Notes, "base and head are identical: there is no change to blame")
		res.Stats.Wall = time.Since(start)
		return res, nil
	}

	runner, err := trial.New(ctx, trial.Config{
		Dir:          req.Dir,
		Head:         req.Head,
		Variants:     set,
		Mode:         string(req.Mode),
		Pkg:          req.Test.Package,
		Test:         req.Test.Name,
		BuildCommand: req.BuildCommand,
		TestCommand:  req.Test.Command,
		Timeout:      req.Timeout,
		Workers:      req.Workers,
	})
	if err != nil {
		return nil, fmt.Errorf("preparing trials: %w", err)
	}
	defer runner.Close()
	defer func() {
		st := runner.Stats()
		res.Stats.Trials, res.Stats.Builds, res.Stats.CacheHits = st.Trials, st.Builds, st.CacheHits
		res.Stats.Wall = time.Since(start)
	}()

	all := ids(res.Hunks)
	cls, err := classify(ctx, runner, all, req.Reruns)
	if err != nil {
		return nil, err
	}
	res.Evidence = cls.runs
	res.Notes = append(res.Notes, cls.notes...)
	if cls.status != "" {
		res.Status = cls.status
		return res, nil
	}

	candidates, kept := revertible(res.Hunks, req.Test)
	if kept > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("%d hunk(s) in the test's own _test.go files are part of the specification and were never reverted", kept))
	}
	opt := search.Options{Revertible: candidates, Parallel: req.Workers}
	var found *search.Found
	switch req.Strategy {
	case StrategyAfter:
		if req.Mode != ModeGo {
			res.Notes = append(res.Notes, "the semantic analysis traces Go tests only: in command mode the root was found by the revert search alone, and the explanation is dynamic only")
			found, err = search.Asymmetric(ctx, runner, res.Hunks, candidates, opt)
			break
		}
		found, err = explainAfter(ctx, req, runner, res, candidates, opt)
	case StrategyDynamic:
		found, err = search.Asymmetric(ctx, runner, res.Hunks, candidates, opt)
	case StrategyDDMin:
		found, err = search.DDMin(ctx, runner, res.Hunks, candidates, opt)
	case StrategyOneByOne:
		found, err = search.OneByOne(ctx, runner, res.Hunks, candidates, opt)
	}
	if errors.Is(err, search.ErrProofFailed) {
		// The variant passed during the search but not when run again:
		// report it as a suspicion, never as a proven culprit.
		res.Status = Flaky
		res.Tree = nil
		res.Notes = append(res.Notes, fmt.Sprintf("reverting hunks %v made the test pass once but not in the proof run: the test looks flaky, so no culprit is claimed", found.Suspect))
		return res, nil
	}
	if err != nil {
		return nil, fmt.Errorf("searching for the culprit hunks: %w", err)
	}
	if err := preferUses(ctx, runner, found); err != nil {
		return nil, fmt.Errorf("telling root from auxiliary hunks: %w", err)
	}
	conclude(res, found)
	return res, nil
}

// conclude records a search's answer; only a passing proof run makes the
// result Explained.
func conclude(res *Result, found *search.Found) {
	if found == nil || len(found.Root) == 0 {
		res.Status = Unexplained
		res.Tree = nil
		res.Notes = append(res.Notes, "no subset of the change's hunks could be reverted to make the test pass")
		if found != nil && found.Note != "" {
			res.Notes = append(res.Notes, found.Note)
		}
		return
	}
	proof := found.Proof
	res.Proof = &proof
	res.Root, res.Aux = found.Root, found.Aux
	if found.Note != "" {
		res.Notes = append(res.Notes, found.Note)
	}
	if !proof.Passed() {
		res.Status = Unexplained
		res.Tree = nil
		res.Notes = append(res.Notes, fmt.Sprintf("the proof run with hunks %v reverted did not pass (%s)", append(append([]diffhunks.ID{}, found.Root...), found.Aux...), proof.Outcome))
		return
	}
	res.Status = Explained
}

func ids(hunks []diffhunks.Hunk) []diffhunks.ID {
	out := make([]diffhunks.ID, len(hunks))
	for i, h := range hunks {
		out[i] = h.ID
	}
	return out
}

// revertible returns the hunks the search may revert: all but those in the
// _test.go files of the failing test's own package, which specify the
// expected behaviour. It also returns how many hunks it kept back.
func revertible(hunks []diffhunks.Hunk, test TestRef) (ids []diffhunks.ID, kept int) {
	dir := path.Clean(strings.TrimPrefix(test.Package, "./"))
	for _, h := range hunks {
		if test.Package != "" && strings.HasSuffix(h.File, "_test.go") && path.Dir(h.File) == dir {
			kept++
			continue
		}
		ids = append(ids, h.ID)
	}
	return ids, kept
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
		if name == "vendor" || name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || nested[d] {
			return false
		}
	}
	return true
}

// gitLines runs git in dir and returns its output lines. Exit status 1 with
// no output (git grep finding nothing) is an empty answer, not an error.
func gitLines(ctx context.Context, dir string, args ...string) ([]string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) && exit.ExitCode() == 1 && len(out) == 0 && stderr.Len() == 0 {
			return nil, nil
		}
		return nil, fmt.Errorf("git %s: %w: %s", args[0], err, strings.TrimSpace(stderr.String()))
	}
	if len(out) == 0 {
		return nil, nil
	}
	return strings.Split(strings.TrimRight(string(out), "\n"), "\n"), nil
}
