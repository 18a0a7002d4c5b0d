package trial

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/culprit-dev/culprit/diffhunks"
	"github.com/culprit-dev/culprit/internal/testfiles"
)

// fileVariants is test input: each variant spelled out as the files it
// changes and deletes, keyed by its reverted ids.
type fileVariants map[string]struct {
	files   map[string]string
	deleted []string
}

func (v fileVariants) Variant(revert []diffhunks.ID) (map[string][]byte, []string, error) {
	k := key(normalize(revert))
	e, ok := v[k]
	if !ok && k != "" {
		return nil, nil, fmt.Errorf("no variant %q", k)
	}
	files := map[string][]byte{}
	for p, d := range e.files {
		files[p] = []byte(d)
	}
	return files, e.deleted, nil
}

// gitRepo commits files in a new repository and returns its directory and
// the commit id.
func gitRepo(t *testing.T, files map[string]string) (string, string) {
	t.Helper()
	dir := t.TempDir()
	testfiles.Write(t, dir, files)
	git(t, dir, "init", "-q", "-b", "main")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "head")
	return dir, strings.TrimSpace(git(t, dir, "rev-parse", "HEAD"))
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// newRunner starts a Runner and closes it when the test ends, checking
// that the user's working tree was left alone and no worktree is left.
func newRunner(t *testing.T, cfg Config) *Runner {
	t.Helper()
	r, err := New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := r.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		if st := git(t, cfg.Dir, "status", "--porcelain"); st != "" {
			t.Errorf("working tree changed:\n%s", st)
		}
		if wl := git(t, cfg.Dir, "worktree", "list"); strings.Contains(wl, r.tmp) {
			t.Errorf("worktrees left after Close:\n%s", wl)
		}
		if _, err := os.Stat(r.tmp); !os.IsNotExist(err) {
			t.Errorf("temporary directory %s left after Close", r.tmp)
		}
	})
	return r
}

// calcRepo is a module whose TestF fails in head (F adds one too many) and
// compares against a number kept in testdata.
var calcRepo = map[string]string{
	"go.mod": "module example.com/m\n\ngo 1.22\n",
	"calc/calc.go": `package calc

func F(x, y int) int {
	return x + y + 1
}
`,
	"calc/calc_test.go": `package calc

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

func TestF(t *testing.T) {
	b, err := os.ReadFile("testdata/want.txt")
	if err != nil {
		t.Fatal(err)
	}
	want, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if got := F(2, 3); got != want {
		t.Errorf("F(2, 3) = %d, want %d", got, want)
	}
}

func TestSub(t *testing.T) {
	t.Run("two words", func(t *testing.T) {
		if F(0, 0) != 0 {
			t.Error("F(0, 0) != 0")
		}
	})
}
`,
	"calc/testdata/want.txt": "5\n",
}
