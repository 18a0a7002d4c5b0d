package culprit_test

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/culprit-dev/culprit"
	"github.com/culprit-dev/culprit/internal/scenario"
)

// TestScenariosAreWhatTheyClaim checks each bundled scenario with plain
// `go test` on its base and head trees, before any culprit code touches it:
// a regression passes on base and fails on head, a pre-existing failure
// fails on both, a head that does not build does not build.
func TestScenariosAreWhatTheyClaim(t *testing.T) {
	names, err := fs.Glob(culprit.Scenarios, "testdata/*.txtar")
	if err != nil || len(names) < 12 {
		t.Fatalf("want at least 12 bundled scenarios, got %d (%v)", len(names), err)
	}
	for _, n := range names {
		data, err := culprit.Scenarios.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimSuffix(filepath.Base(n), ".txtar")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			sc, err := scenario.Parse(name, data)
			if err != nil {
				t.Fatal(err)
			}
			// A flaky test has no one-run outcome to check.
			if sc.Mode == "command" || sc.Status == "flaky" || sc.Status == "flaky-regression" {
				t.Skipf("%s scenarios are checked by the analyzer's own tests", sc.Mode+sc.Status)
			}
			repo, err := sc.Materialize(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			base := goTest(t, repo.Dir, repo.Base, sc)
			head := goTest(t, repo.Dir, repo.Head, sc)
			want := map[string][2]string{
				"explained":        {"ok", "FAIL"},
				"not-regression":   {"FAIL", "FAIL"},
				"head-build-fails": {"ok", "build failed"},
			}[sc.Status]
			if sc.Keys["new-subtests"] != "" {
				// Only subtests the change added fail: base has none of them.
				want = [2]string{"ok", "FAIL"}
			}
			if want == [2]string{} {
				t.Fatalf("no check for status %q", sc.Status)
			}
			if !strings.Contains(base, want[0]) {
				t.Errorf("base: want %q in output:\n%s", want[0], base)
			}
			if !strings.Contains(head, want[1]) {
				t.Errorf("head: want %q in output:\n%s", want[1], head)
			}
		})
	}
}

func goTest(t *testing.T, repo, rev string, sc *scenario.Scenario) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "tree")
	if out, err := exec.Command("git", "-C", repo, "worktree", "add", "-q", "--detach", dir, rev).CombinedOutput(); err != nil {
		t.Fatalf("git worktree add: %v\n%s", err, out)
	}
	pkg := sc.Pkg
	if pkg == "" {
		pkg = "./..."
	}
	// go test runs in the package's module, which may lie in a
	// subdirectory of the repository.
	modDir := filepath.Join(dir, filepath.FromSlash(strings.TrimSuffix(pkg, "/...")))
	for modDir != dir {
		if _, err := os.Stat(filepath.Join(modDir, "go.mod")); err == nil {
			break
		}
		modDir = filepath.Dir(modDir)
	}
	if rel, err := filepath.Rel(modDir, filepath.Join(dir, filepath.FromSlash(pkg))); err == nil && modDir != dir {
		pkg = "./" + filepath.ToSlash(rel)
	}
	// Without vet, as culprit's own trials run: the outcome checked is the
	// test's, not vet's.
	args := []string{"test", "-count=1", "-vet=off", "-run", "^" + sc.Test + "$", pkg}
	if sc.Timeout > 0 {
		args = append(args, "-timeout", sc.Timeout.String())
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = modDir
	out, _ := cmd.CombinedOutput() // the verdict is in the output
	return string(out)
}
