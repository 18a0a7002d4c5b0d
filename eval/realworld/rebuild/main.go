// Command rebuild turns the real-world regression cases in
// eval/realworld/cases into two-commit git repositories (branches base and
// head) and, with -check, verifies that the case's test passes on base and
// fails on head.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"text/tabwriter"
	"time"
)

// Case is one entry of the corpus (eval/realworld/cases/<name>.json).
type Case struct {
	Name    string              `json:"name"`
	Repo    string              `json:"repo"`
	Base    string              `json:"base"`
	Head    string              `json:"head"`
	Fix     string              `json:"fix"`
	Tests   map[string][]string `json:"tests"`
	Test    string              `json:"test"`
	Package string              `json:"package"`
	Module  string              `json:"module"`
	Truth   []struct {
		File  string `json:"file"`
		Lines []int  `json:"lines"`
	} `json:"truth"`
	Traits []string `json:"traits"`
	Why    string   `json:"why"`
	// GoMod is the module path for a repository whose commits predate
	// go.mod: both trees get the same go.mod and go.sum, made by go mod
	// tidy on head's tree.
	GoMod string `json:"gomod,omitempty"`
}

var hexSHA = regexp.MustCompile(`^[0-9a-f]{40}$`)

func (c *Case) validate() error {
	if c.Name == "" || strings.ContainsAny(c.Name, "/\\ .") {
		return fmt.Errorf("bad name %q", c.Name)
	}
	for _, s := range []string{c.Base, c.Head, c.Fix} {
		if !hexSHA.MatchString(s) {
			return fmt.Errorf("%s: bad commit %q", c.Name, s)
		}
	}
	if c.Test == "" || c.Package == "" || c.Module == "" || len(c.Tests) == 0 {
		return fmt.Errorf("%s: test, tests, package and module are required", c.Name)
	}
	if _, err := modulePackage(c.Module, c.Package); err != nil {
		return fmt.Errorf("%s: %w", c.Name, err)
	}
	return nil
}

func main() {
	mirrors := flag.String("mirrors", "/work/.mirror", "directory holding the repository mirrors (owner+name/...)")
	cases := flag.String("cases", "eval/realworld/cases", "directory of case files")
	out := flag.String("out", "", "output directory (required)")
	check := flag.Bool("check", false, "run the case's test on base and head")
	timeout := flag.Duration("timeout", 10*time.Minute, "time limit of one go test run")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "rebuild: -out is required")
		os.Exit(2)
	}
	if err := run(*mirrors, *cases, *out, *check, *timeout, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "rebuild:", err)
		os.Exit(1)
	}
}

type result struct {
	name, base, head string
	hunks            int
	err              error
}

func run(mirrors, casesDir, out string, check bool, timeout time.Duration, names []string) error {
	if len(names) == 0 {
		files, err := filepath.Glob(filepath.Join(casesDir, "*.json"))
		if err != nil {
			return fmt.Errorf("list cases: %w", err)
		}
		for _, f := range files {
			names = append(names, strings.TrimSuffix(filepath.Base(f), ".json"))
		}
		sort.Strings(names)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("create output directory: %w", err)
	}
	var results []result
	for _, name := range names {
		r := result{name: name, base: "-", head: "-"}
		r.hunks, r.base, r.head, r.err = rebuild(mirrors, casesDir, out, name, check, timeout)
		if r.err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", name, r.err)
		}
		results = append(results, r)
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "name\thunks\tbase\thead\tok")
	bad := 0
	for _, r := range results {
		ok := r.err == nil && (!check || (r.base == "pass" && r.head == "fail"))
		if !ok {
			bad++
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%v\n", r.name, r.hunks, r.base, r.head, ok)
	}
	tw.Flush()
	if bad > 0 {
		return fmt.Errorf("%d of %d cases not ok", bad, len(results))
	}
	return nil
}

func loadCase(casesDir, name string) (*Case, []byte, error) {
	raw, err := os.ReadFile(filepath.Join(casesDir, name+".json"))
	if err != nil {
		return nil, nil, fmt.Errorf("read case: %w", err)
	}
	var c Case
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, nil, fmt.Errorf("parse case %s: %w", name, err)
	}
	if c.Name != name {
		return nil, nil, fmt.Errorf("case file %s names %q", name, c.Name)
	}
	return &c, raw, c.validate()
}

// findMirror locates the git directory of owner/name under mirrors.
func findMirror(mirrors, repo string) (string, error) {
	root := filepath.Join(mirrors, strings.ReplaceAll(repo, "/", "+"))
	var found string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if found != "" {
			return filepath.SkipAll
		}
		if !d.IsDir() && d.Name() == "HEAD" {
			if _, err := os.Stat(filepath.Join(filepath.Dir(p), "objects")); err == nil {
				found = filepath.Dir(p)
				return filepath.SkipAll
			}
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("find mirror of %s: %w", repo, err)
	}
	if found == "" {
		return "", fmt.Errorf("no mirror of %s under %s", repo, mirrors)
	}
	return found, nil
}

func git(dir string, env []string, args ...string) ([]byte, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return b, nil
}

var fixedIdentity = []string{
	"GIT_AUTHOR_NAME=culprit corpus", "GIT_AUTHOR_EMAIL=corpus@culprit.invalid",
	"GIT_COMMITTER_NAME=culprit corpus", "GIT_COMMITTER_EMAIL=corpus@culprit.invalid",
	"GIT_AUTHOR_DATE=2000-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2000-01-01T00:00:00Z",
	"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
}

// exportTree replaces the work tree of repo with the tree of commit in gitDir
// and splices the fix's test declarations into it.
func exportTree(gitDir, repo string, c *Case, commit string) error {
	entries, err := os.ReadDir(repo)
	if err != nil {
		return fmt.Errorf("read %s: %w", repo, err)
	}
	for _, e := range entries {
		if e.Name() != ".git" {
			if err := os.RemoveAll(filepath.Join(repo, e.Name())); err != nil {
				return fmt.Errorf("clear tree: %w", err)
			}
		}
	}
	if err := extract(gitDir, commit, repo); err != nil {
		return err
	}
	for path, names := range c.Tests {
		fix, err := git(gitDir, nil, "show", c.Fix+":"+path)
		if err != nil {
			return fmt.Errorf("read fix test file: %w", err)
		}
		target := filepath.Join(repo, filepath.FromSlash(path))
		cur, err := os.ReadFile(target)
		if errors.Is(err, os.ErrNotExist) {
			cur = nil
		} else if err != nil {
			return fmt.Errorf("read test file: %w", err)
		}
		spliced, err := splice(cur, fix, names)
		if err != nil {
			return fmt.Errorf("splice %s at %s: %w", path, commit[:12], err)
		}
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return fmt.Errorf("create test dir: %w", err)
		}
		if err := os.WriteFile(target, spliced, 0o644); err != nil {
			return fmt.Errorf("write test file: %w", err)
		}
	}
	return nil
}

func commitTree(repo, msg string) error {
	if _, err := git(repo, fixedIdentity, "add", "-A", "-f", "."); err != nil {
		return err
	}
	_, err := git(repo, fixedIdentity, "commit", "-q", "--allow-empty", "-m", msg)
	return err
}

func rebuild(mirrors, casesDir, out, name string, check bool, timeout time.Duration) (hunks int, base, head string, err error) {
	base, head = "-", "-"
	c, raw, err := loadCase(casesDir, name)
	if err != nil {
		return 0, base, head, err
	}
	gitDir, err := findMirror(mirrors, c.Repo)
	if err != nil {
		return 0, base, head, err
	}
	repo := filepath.Join(out, c.Name)
	if err := os.RemoveAll(repo); err != nil {
		return 0, base, head, fmt.Errorf("remove old rebuild: %w", err)
	}
	if err := os.MkdirAll(repo, 0o755); err != nil {
		return 0, base, head, fmt.Errorf("create repo dir: %w", err)
	}
	if _, err := git(repo, fixedIdentity, "init", "-q", "-b", "base"); err != nil {
		return 0, base, head, err
	}
	var modFiles map[string][]byte
	if c.GoMod != "" {
		if modFiles, err = synthModule(gitDir, c); err != nil {
			return 0, base, head, err
		}
	}
	steps := []struct {
		branch, commit string
		status         *string
	}{{"base", c.Base, &base}, {"head", c.Head, &head}}
	for i, s := range steps {
		if i > 0 {
			if _, err := git(repo, nil, "checkout", "-q", "-b", s.branch); err != nil {
				return 0, base, head, err
			}
		}
		if err := exportTree(gitDir, repo, c, s.commit); err != nil {
			return 0, base, head, err
		}
		if c.GoMod != "" {
			// A vendor directory from before modules (dep, glide) does not
			// match the go.mod made here, and go 1.14 and later would build
			// from it: the requirements come from the proxy instead.
			if err := os.RemoveAll(filepath.Join(repo, filepath.FromSlash(c.Module), "vendor")); err != nil {
				return 0, base, head, fmt.Errorf("remove vendor: %w", err)
			}
		}
		for name, data := range modFiles {
			if err := os.WriteFile(filepath.Join(repo, filepath.FromSlash(c.Module), name), data, 0o644); err != nil {
				return 0, base, head, fmt.Errorf("write %s: %w", name, err)
			}
		}
		msg := fmt.Sprintf("%s: %s of %s at %s with the test of %s", c.Name, s.branch, c.Repo, s.commit, c.Fix)
		if err := commitTree(repo, msg); err != nil {
			return 0, base, head, err
		}
		if check {
			*s.status = runTest(repo, c, timeout)
			if _, err := git(repo, nil, "reset", "-q", "--hard"); err != nil {
				return 0, base, head, err
			}
			if _, err := git(repo, nil, "clean", "-q", "-fdx"); err != nil {
				return 0, base, head, err
			}
		}
	}
	diff, err := git(repo, nil, "diff", "-U0", "base", "head")
	if err != nil {
		return 0, base, head, err
	}
	for _, l := range strings.Split(string(diff), "\n") {
		if strings.HasPrefix(l, "@@ ") {
			hunks++
		}
	}
	if err := os.WriteFile(filepath.Join(out, c.Name+".json"), raw, 0o644); err != nil {
		return hunks, base, head, fmt.Errorf("copy case: %w", err)
	}
	return hunks, base, head, nil
}

// extract writes commit's tree into dir: git archive piped into tar. Both
// commands must succeed; a shell pipeline would report only tar's status,
// and a failed archive would leave a partial tree that looks whole.
func extract(gitDir, commit, dir string) error {
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	archive := exec.Command("git", "--git-dir="+gitDir, "archive", commit)
	untar := exec.Command("tar", "-x", "-C", dir)
	var archiveErr, untarErr bytes.Buffer
	archive.Stdout, archive.Stderr = w, &archiveErr
	untar.Stdin, untar.Stderr = r, &untarErr
	errA := archive.Start()
	errT := untar.Start()
	// The children hold the pipe now: closing the parent's ends lets tar
	// see the end of the archive, and git a broken pipe if tar dies.
	r.Close()
	w.Close()
	if errA == nil {
		errA = archive.Wait()
	}
	if errT == nil {
		errT = untar.Wait()
	}
	if errA != nil {
		return fmt.Errorf("export %s: git archive: %w: %s", commit, errA, strings.TrimSpace(archiveErr.String()))
	}
	if errT != nil {
		return fmt.Errorf("export %s: tar: %w: %s", commit, errT, strings.TrimSpace(untarErr.String()))
	}
	return nil
}

// synthModule makes go.mod and go.sum for a case whose commits have no
// go.mod: module c.GoMod at the go version of the oldest language rules
// that modules know (1.16), requirements from go mod tidy on head's tree
// with the fix's test spliced in.
func synthModule(gitDir string, c *Case) (map[string][]byte, error) {
	tmp, err := os.MkdirTemp("", "rebuild-mod-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	if err := exportTree(gitDir, tmp, c, c.Head); err != nil {
		return nil, err
	}
	dir := filepath.Join(tmp, filepath.FromSlash(c.Module))
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
		return nil, fmt.Errorf("%s: gomod is set but head has a go.mod", c.Name)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module "+c.GoMod+"\n\ngo 1.16\n"), 0o644); err != nil {
		return nil, err
	}
	cmd := exec.Command("go", "mod", "tidy")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local", "GOFLAGS=-mod=mod", "GOWORK=off")
	if b, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go mod tidy for %s: %w: %s", c.GoMod, err, b)
	}
	files := map[string][]byte{}
	for _, name := range []string{"go.mod", "go.sum"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if errors.Is(err, os.ErrNotExist) {
			continue // no requirements, no go.sum
		} else if err != nil {
			return nil, err
		}
		files[name] = b
	}
	return files, nil
}

// runPattern anchors each level of a test name for go test -run.
func runPattern(test string) string {
	parts := strings.Split(test, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

// modulePackage turns pkg, relative to the repository root, into a package
// pattern relative to the module directory mod.
func modulePackage(mod, pkg string) (string, error) {
	m := path.Clean(strings.TrimPrefix(mod, "./"))
	p := path.Clean(strings.TrimPrefix(pkg, "./"))
	if p == m {
		return ".", nil
	}
	if m == "." {
		return "./" + p, nil
	}
	if rel, ok := strings.CutPrefix(p, m+"/"); ok {
		return "./" + rel, nil
	}
	return "", fmt.Errorf("package %s is not in module %s", pkg, mod)
}

// runTest runs the case's test in repo and reports pass, fail, broken (build
// or setup failure, or no test ran) or timeout.
func runTest(repo string, c *Case, timeout time.Duration) string {
	ctx, cancel := context.WithTimeout(context.Background(), timeout+time.Minute)
	defer cancel()
	pkg, _ := modulePackage(c.Module, c.Package) // checked by validate
	cmd := exec.CommandContext(ctx, "go", "test", "-count=1", "-v", "-timeout", timeout.String(), "-run", runPattern(c.Test), pkg)
	cmd.Dir = filepath.Join(repo, filepath.FromSlash(c.Module))
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local", "GOFLAGS=-mod=mod", "GOWORK=off")
	b, err := cmd.CombinedOutput()
	outText := string(b)
	switch {
	case ctx.Err() != nil:
		return "timeout"
	case strings.Contains(outText, "[build failed]") || strings.Contains(outText, "[setup failed]"):
		return "broken"
	case err == nil && strings.Contains(outText, "--- PASS: "+c.Test):
		return "pass"
	case err == nil:
		return "broken"
	case strings.Contains(outText, "--- FAIL: ") || strings.Contains(outText, "panic: "):
		return "fail"
	}
	return "broken"
}
