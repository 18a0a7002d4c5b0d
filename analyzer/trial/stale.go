package trial

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/culprit-dev/culprit/internal/proc"
)

// A runner's worktrees live in a directory of its own (tmpPattern) and
// are registered in the user's repository. Close removes them, but a
// process killed with SIGKILL (or by the OOM killer) runs no cleanup: its
// worktrees stay registered, and git worktree prune keeps them as long as
// their directory exists. So each runner holds an exclusive flock on
// ownerLock in its directory for as long as it lives; the kernel drops
// the lock when the process dies, however it dies. A new runner removes
// the worktrees of every such directory whose lock it can take.
const (
	tmpPrefix  = "culprit-trial-"
	tmpPattern = tmpPrefix + "*"
	ownerLock  = "owner.lock"
)

// lockOwner creates and locks the owner file of a runner's directory. The
// file is opened close-on-exec, so no trial's process inherits the lock
// and keeps it past the runner's death.
func lockOwner(dir string) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(dir, ownerLock), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("trial: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, fmt.Errorf("trial: locking %s: %w", f.Name(), err)
	}
	return f, nil
}

// removeStale removes the worktrees of repo whose runner died without
// cleaning up, with their directories. A worktree whose directory has no
// owner file (made by an older culprit, or not by culprit) is left alone;
// so is one whose runner is alive, in this process or another. The caller
// holds worktreeMu.
func (r *Runner) removeStale(ctx context.Context) error {
	out, err := proc.Git(ctx, r.repo, "worktree", "list", "--porcelain")
	if err != nil {
		return err
	}
	byDir := map[string][]string{}
	var dirs []string
	for _, line := range strings.Split(string(out), "\n") {
		wt, ok := strings.CutPrefix(line, "worktree ")
		if !ok {
			continue
		}
		dir := filepath.Dir(wt)
		if !strings.HasPrefix(filepath.Base(dir), tmpPrefix) || dir == r.tmp {
			continue
		}
		if byDir[dir] == nil {
			dirs = append(dirs, dir)
		}
		byDir[dir] = append(byDir[dir], wt)
	}
	var errs []error
	for _, dir := range dirs {
		if err := r.removeIfDead(ctx, dir, byDir[dir]); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// removeIfDead removes the worktrees wts and their directory dir when the
// runner that owned dir is gone.
func (r *Runner) removeIfDead(ctx context.Context, dir string, wts []string) error {
	f, err := os.OpenFile(filepath.Join(dir, ownerLock), os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("trial: %w", err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil // its runner is alive
		}
		return fmt.Errorf("trial: locking %s: %w", f.Name(), err)
	}
	var errs []error
	for _, wt := range wts {
		if _, err := proc.Git(ctx, r.repo, "worktree", "remove", "--force", wt); err != nil {
			errs = append(errs, err)
		}
	}
	if err := os.RemoveAll(dir); err != nil {
		errs = append(errs, fmt.Errorf("trial: removing %s: %w", dir, err))
	}
	return errors.Join(errs...)
}
