package trial

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/culprit-dev/culprit/diffhunks"
)

// A variant that -overlay cannot express (it reverts test data, go.mod,
// an embedded file or a file beside the code, such as a changelog) is
// checked out once for its repeated runs: its test binary is built in the
// checkout and runs there, so that what the test reads at run time is the
// variant's. Without it every run of such a variant was a go test run
// (about 0.4 s against 0.02 s for a small package's binary): a flaky
// base that reverts a changelog could not run enough times in the
// budget to rule out a rare failure.

// maxIdleKept bounds the checkouts kept while no Repeat uses them; past
// it the least recently used goes back to the pool of worktrees, and its
// variant is checked out and built again if repeated later.
const maxIdleKept = 4

// keptCheckout is one variant's checkout and the test binary built there.
type keptCheckout struct {
	done  chan struct{}
	wt    string // the worktree, "" once returned
	dir   string // the binary's directory under the runner's tmp
	bin   string // "" when the build failed: run go test instead
	err   error
	users int // Repeats running it now
	used  int // when it was last leased (Runner.seq order)
}

// keptBinary returns the variant's kept checkout, built, leased until
// release is called. A build that fails to compile leaves bin "" and marks
// the variant broken, as testBinary does.
func (r *Runner) keptBinary(ctx context.Context, ids []diffhunks.ID, v variant) (k *keptCheckout, release func(), err error) {
	key := binKey(ids)
	r.mu.Lock()
	if r.kept == nil {
		r.kept = map[string]*keptCheckout{}
	}
	k, ok := r.kept[key]
	if !ok {
		k = &keptCheckout{done: make(chan struct{})}
		r.kept[key] = k
	}
	k.users++
	r.seq++
	k.used = r.seq
	r.mu.Unlock()
	release = func() {
		r.mu.Lock()
		k.users--
		r.mu.Unlock()
		r.evictKept(context.WithoutCancel(ctx))
	}
	if !ok {
		k.err = r.buildKept(ctx, ids, v, k)
		if k.err != nil {
			r.mu.Lock()
			delete(r.kept, key)
			r.mu.Unlock()
		}
		close(k.done)
	}
	select {
	case <-k.done:
	case <-ctx.Done():
		release()
		return nil, nil, ctx.Err()
	}
	if k.err != nil {
		release()
		return nil, nil, k.err
	}
	return k, release, nil
}

// buildKept checks the variant out and builds its test binary there.
func (r *Runner) buildKept(ctx context.Context, ids []diffhunks.ID, v variant, k *keptCheckout) error {
	wt, err := r.takeWorktree(ctx)
	if err != nil {
		return err
	}
	r.mu.Lock()
	k.wt = wt
	r.mu.Unlock()
	if err := v.writeTo(wt); err != nil {
		return errors.Join(err, r.dropKept(ctx, k))
	}
	k.dir = filepath.Join(r.tmp, fmt.Sprintf("kept%d", r.nextSeq()))
	if err := os.MkdirAll(k.dir, 0o755); err != nil {
		return errors.Join(err, r.dropKept(ctx, k))
	}
	r.count(func(s *Counts) { s.Builds++ })
	bin := filepath.Join(k.dir, "test.bin")
	ln := laneOf(ctx)
	start := ln.at()
	out, err := r.goCommand(ctx, filepath.Join(wt, filepath.FromSlash(r.prefix)), v.modFiles(),
		"test", "-c", "-vet=off", "-o", bin, r.linkFlags(), r.cfg.Pkg)
	if err != nil {
		return errors.Join(err, r.dropKept(ctx, k))
	}
	built := Pass
	if out.exitCode != 0 || out.timedOut {
		built = BuildError
	}
	ln.record(start, ids, true, built, out.duration)
	switch {
	case out.exitCode != 0 && !out.timedOut:
		r.mu.Lock()
		if r.broken == nil {
			r.broken = map[string]bool{}
		}
		r.broken[binKey(ids)] = true
		r.mu.Unlock()
	case out.exitCode == 0:
		if _, err := os.Stat(bin); err == nil {
			k.bin = bin
		}
	}
	if k.bin == "" {
		// Its runs go the usual way, which says why: nothing to keep.
		return r.dropKept(ctx, k)
	}
	return nil
}

// evictKept returns the least recently used idle checkouts to the pool
// while more than maxIdleKept are idle.
func (r *Runner) evictKept(ctx context.Context) {
	r.mu.Lock()
	var idle []string
	for key, k := range r.kept {
		select {
		case <-k.done:
			if k.users == 0 {
				idle = append(idle, key)
			}
		default:
		}
	}
	if len(idle) <= maxIdleKept {
		r.mu.Unlock()
		return
	}
	slices.SortFunc(idle, func(a, b string) int { return cmp.Compare(r.kept[a].used, r.kept[b].used) })
	var gone []*keptCheckout
	for _, key := range idle[:len(idle)-maxIdleKept] {
		gone = append(gone, r.kept[key])
		delete(r.kept, key)
	}
	r.mu.Unlock()
	for _, k := range gone {
		_ = r.dropKept(ctx, k) // a worktree that cannot be restored is left to Close
	}
}

// dropKept removes the checkout's binary and returns its worktree to the
// pool, restored to head.
func (r *Runner) dropKept(ctx context.Context, k *keptCheckout) error {
	var errs []error
	if k.dir != "" {
		errs = append(errs, os.RemoveAll(k.dir))
	}
	r.mu.Lock()
	wt := k.wt
	k.wt = ""
	r.mu.Unlock()
	if wt != "" {
		errs = append(errs, r.putWorktree(ctx, wt))
	}
	return errors.Join(errs...)
}
