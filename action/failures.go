package action

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/culprit-dev/culprit/analyzer/gotest"
	"github.com/culprit-dev/culprit/internal/proc"
)

// Failure is one failing test on head, with the other tests that fail the
// same way (same signature): explaining one explains them all.
type Failure struct {
	Package   string // "./calc", relative to the repository
	Name      string
	Signature string // first failing assertion or panic site, "file:line"
	Message   string
	Same      []string // other failing tests with this signature
}

// Failures is what the failing-test search found on head.
type Failures struct {
	Groups      []Failure
	BuildFailed bool
	BuildOutput string
}

// errBadInput marks errors in what the user gave (inputs, files), as
// opposed to failures of the run.
var errBadInput = errors.New("bad input")

// readTestResults parses a `go test -json` file written by an earlier step.
func readTestResults(path string) (*gotest.Run, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: test-results: %v", errBadInput, err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fmt.Errorf("%w: test-results %s is empty; write it with `go test -json ./... > %s`", errBadInput, path, path)
	}
	run, err := gotest.Parse(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%w: test-results %s is not `go test -json` output: %v", errBadInput, path, err)
	}
	// Text around the events is tolerated (stderr merged in); a broken
	// event is not: the file was cut short or is not test2json output.
	for _, l := range run.Malformed {
		if strings.HasPrefix(strings.TrimSpace(l), "{") {
			return nil, fmt.Errorf("%w: test-results %s has a malformed event: %.80q", errBadInput, path, l)
		}
	}
	return run, nil
}

// runTests runs `go test -json` on head in dir (a checkout of head) and
// parses what it printed. A non-zero exit is expected: tests fail.
func runTests(ctx context.Context, dir string, pkgs []string, pattern string) (*gotest.Run, error) {
	inv := proc.GoInvocation{Verb: "test", BuildFlags: []string{"-json", "-count=1"}, Args: pkgs, Dir: dir}
	if pattern != "" {
		inv.BuildFlags = append(inv.BuildFlags, "-run", pattern)
	}
	var out, stderr bytes.Buffer
	inv.Stdout, inv.Stderr = &out, &stderr
	res, err := inv.Run(ctx)
	if err != nil {
		return nil, fmt.Errorf("running %s: %w", inv, err)
	}
	runFailed := res.ExitCode != 0
	run, err := gotest.Parse(&out)
	if err != nil {
		return nil, fmt.Errorf("reading the output of %s: %w", inv, err)
	}
	if len(run.Tests) == 0 && len(run.Packages) == 0 && runFailed {
		// go test failed before any package ran: a setup or module error.
		run.BuildFailed = true
		run.BuildOutput += stderr.String()
	} else if run.BuildFailed && run.BuildOutput == "" {
		run.BuildOutput = stderr.String()
	}
	return run, nil
}

// headCheckout returns a directory holding head: dir itself when its
// working tree is head and clean, else a temporary worktree, removed by the
// returned function.
func headCheckout(ctx context.Context, dir, head string) (string, func(), error) {
	if cur, err := git(ctx, dir, "rev-parse", "HEAD"); err == nil && strings.TrimSpace(cur) == head {
		if st, err := git(ctx, dir, "status", "--porcelain", "--untracked-files=no"); err == nil && strings.TrimSpace(st) == "" {
			return dir, func() {}, nil
		}
	}
	tmp, err := os.MkdirTemp("", "culprit-head-")
	if err != nil {
		return "", nil, err
	}
	wt := filepath.Join(tmp, "head")
	if _, err := git(ctx, dir, "worktree", "add", "--detach", "--quiet", wt, head); err != nil {
		os.RemoveAll(tmp)
		return "", nil, fmt.Errorf("checking out head %s: %w", short(head), err)
	}
	return wt, func() {
		git(context.WithoutCancel(ctx), dir, "worktree", "remove", "--force", wt)
		os.RemoveAll(tmp)
	}, nil
}

// runPattern is the -run pattern for the tests input: anchored top-level
// names for a list, the expression itself otherwise.
func runPattern(tests string) string {
	if tests == "" {
		return ""
	}
	if !isNameList(tests) {
		return tests
	}
	var tops []string
	seen := map[string]bool{}
	for _, n := range testNames(tests) {
		top, _, _ := strings.Cut(n, "/")
		if !seen[top] {
			seen[top] = true
			tops = append(tops, regexp.QuoteMeta(top))
		}
	}
	return "^(" + strings.Join(tops, "|") + ")$"
}

// collectFailures picks the failing tests of run that the tests input
// selects, drops parents whose subtests failed, and groups them by failure
// signature. root is where the tests ran, for paths in stack traces.
func collectFailures(run *gotest.Run, tests, root string) (*Failures, error) {
	fs := &Failures{BuildFailed: run.BuildFailed, BuildOutput: run.BuildOutput}
	var names []string
	var re *regexp.Regexp
	if tests != "" {
		if isNameList(tests) {
			names = testNames(tests)
			var missing []string
			for _, n := range names {
				if !run.Ran(n) {
					missing = append(missing, n)
				}
			}
			if len(missing) > 0 && !run.BuildFailed {
				return nil, fmt.Errorf("%w: no test named %s ran; check the tests and packages inputs", errBadInput, strings.Join(missing, ", "))
			}
		} else {
			re = regexp.MustCompile(tests) // checked by readConfig
		}
	}
	selected := func(name string) bool {
		switch {
		case re != nil:
			top, _, _ := strings.Cut(name, "/")
			return re.MatchString(top) || re.MatchString(name)
		case names != nil:
			for _, n := range names {
				n = gotest.TestName(n)
				if name == n || strings.HasPrefix(name, n+"/") {
					return true
				}
			}
			return false
		}
		return true
	}
	modPath, err := modulePath(root)
	if err != nil {
		return nil, err
	}
	failed := map[string]bool{}
	for _, t := range run.Tests {
		if t.Status == gotest.Failed || t.Status == gotest.Running {
			failed[t.Package+"\x00"+t.Name] = true
		}
	}
	bySig := map[string]int{}
	for _, t := range run.Tests {
		if !failed[t.Package+"\x00"+t.Name] || !selected(t.Name) || hasFailedChild(failed, t.Package, t.Name) {
			continue
		}
		rel := relPackage(modPath, t.Package)
		sig, msg := run.Failure(t.Name, gotest.Locator{Root: root, PkgDir: strings.TrimPrefix(rel, "./")})
		key := sig
		if key == "" {
			key = t.Package + "\x00" + t.Name
		}
		if i, ok := bySig[key]; ok {
			fs.Groups[i].Same = append(fs.Groups[i].Same, t.Name)
			continue
		}
		bySig[key] = len(fs.Groups)
		fs.Groups = append(fs.Groups, Failure{Package: rel, Name: t.Name, Signature: sig, Message: msg})
	}
	return fs, nil
}

func hasFailedChild(failed map[string]bool, pkg, name string) bool {
	prefix := pkg + "\x00" + name + "/"
	for k := range failed {
		if strings.HasPrefix(k, prefix) {
			return true
		}
	}
	return false
}

// modulePath reads the module path from dir/go.mod.
func modulePath(dir string) (string, error) {
	f, err := os.Open(filepath.Join(dir, "go.mod"))
	if err != nil {
		return "", fmt.Errorf("%w: reading the module path: %v (set working-directory to the module, or use test-command for non-Go repositories)", errBadInput, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module"); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`), nil
		}
	}
	return "", fmt.Errorf("%w: %s/go.mod has no module line", errBadInput, dir)
}

// relPackage turns an import path of the module into "./dir".
func relPackage(modPath, importPath string) string {
	if importPath == modPath {
		return "."
	}
	if rest, ok := strings.CutPrefix(importPath, modPath+"/"); ok {
		return "./" + rest
	}
	return importPath
}
