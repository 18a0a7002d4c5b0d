package trial

import (
	"context"
	"os"
	"strings"
	"testing"
)

// TestDeadRunnerCleanedUp: a runner whose process died without Close (its
// owner lock released, as the kernel does on SIGKILL) leaves its worktree
// registered; the next runner on the repository removes it and its
// directory, and leaves a live runner's alone.
func TestDeadRunnerCleanedUp(t *testing.T) {
	dir, head := gitRepo(t, calcRepo)
	cfg := Config{Dir: dir, Head: head, Variants: calcVariants, Pkg: "./calc", Test: "TestF"}
	live := newRunner(t, cfg)
	dead, err := New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	dead.owner.Close() // the process died: the kernel dropped its lock
	if wl := git(t, dir, "worktree", "list"); !strings.Contains(wl, dead.tmp) {
		t.Fatalf("the dead runner's worktree is not registered: nothing to test\n%s", wl)
	}

	newRunner(t, cfg)
	wl := git(t, dir, "worktree", "list")
	if strings.Contains(wl, dead.tmp) {
		t.Errorf("the dead runner's worktree is still registered:\n%s", wl)
	}
	if _, err := os.Stat(dead.tmp); !os.IsNotExist(err) {
		t.Errorf("the dead runner's directory %s is still there (%v)", dead.tmp, err)
	}
	if !strings.Contains(wl, live.tmp) {
		t.Errorf("the live runner's worktree was removed:\n%s", wl)
	}
}
