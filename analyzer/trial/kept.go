package trial

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/culprit-dev/culprit/diffhunks"
)

// A variant that -overlay cannot express (it reverts test data, go.mod,
// an embedded file or a file beside the code, such as a changelog), and a
// variant built with the tracing runtime, is checked out once for its
// repeated runs: its test binary is built in the checkout and runs there,
// so that what the test reads at run time is the variant's. Before, every
// run of the first kind was a go test run (about 0.4 s against 0.02 s for
// a small package's binary), so a flaky base that reverts a changelog
// could not run enough times in the budget to rule out a rare failure;
// and a perturbed run of the second read head's files.

// maxIdleKept bounds the checkouts kept while no Repeat uses them; past
// it the least recently used goes back to the pool of worktrees, and its
// variant is checked out and built again if repeated later.
const maxIdleKept = 4

// keptCheckout is one variant's checkout and the test binary built there.
type keptCheckout struct {
	done  chan struct{}
	wt    string // the worktree, "" once returned
	dir   string // the binary's directory under the runner's tmp
	bin   string // "" when the build failed
	why   error  // why the build failed, when its builder says
	err   error
	users int // Repeats running it now
	used  int // when it was last leased (Runner.seq order)
}

// keptBuild builds the test binary of the variant checked out in worktree
// wt into directory out, and returns its path: "" when it failed, with
// the reason when there is one to give (a go test run of the variant
// gives it otherwise). An error is the runner's own failure.
type keptBuild func(ctx context.Context, wt, out string) (bin string, why, err error)

// keptBinary returns the variant's kept checkout under key k, built by
// build the first time, leased until release is called.
func (r *Runner) keptBinary(ctx context.Context, k string, ids []diffhunks.ID, v variant, build keptBuild) (kc *keptCheckout, release func(), err error) {
	r.mu.Lock()
	if r.kept == nil {
		r.kept = map[string]*keptCheckout{}
	}
	kc, ok := r.kept[k]
	if !ok {
		kc = &keptCheckout{done: make(chan struct{})}
		r.kept[k] = kc
	}
	kc.users++
	r.seq++
	kc.used = r.seq
	r.mu.Unlock()
	release = func() {
		r.mu.Lock()
		kc.users--
		r.mu.Unlock()
		r.evictKept(context.WithoutCancel(ctx))
	}
	if !ok {
		kc.err = r.buildKept(ctx, ids, v, kc, build)
		if kc.err != nil {
			r.mu.Lock()
			delete(r.kept, k)
			r.mu.Unlock()
		}
		close(kc.done)
	}
	select {
	case <-kc.done:
	case <-ctx.Done():
		release()
		return nil, nil, ctx.Err()
	}
	if kc.err != nil {
		release()
		return nil, nil, kc.err
	}
	return kc, release, nil
}

// buildKept checks the variant out and builds its test binary there; a
// checkout whose build failed goes back to the pool at once.
func (r *Runner) buildKept(ctx context.Context, ids []diffhunks.ID, v variant, kc *keptCheckout, build keptBuild) error {
	wt, err := r.takeWorktree(ctx)
	if err != nil {
		return err
	}
	r.mu.Lock()
	kc.wt = wt
	r.mu.Unlock()
	if err := v.writeTo(wt); err != nil {
		return errors.Join(err, r.dropKept(ctx, kc))
	}
	kc.dir = filepath.Join(r.tmp, fmt.Sprintf("kept%d", r.nextSeq()))
	if err := os.MkdirAll(kc.dir, 0o755); err != nil {
		return errors.Join(err, r.dropKept(ctx, kc))
	}
	r.count(func(s *Counts) { s.Builds++ })
	ln := laneOf(ctx)
	start, t0 := ln.at(), time.Now()
	kc.bin, kc.why, err = build(ctx, wt, kc.dir)
	if err != nil {
		return errors.Join(err, r.dropKept(ctx, kc))
	}
	built := Pass
	if kc.bin == "" {
		built = BuildError
	}
	ln.record(start, ids, true, built, time.Since(t0))
	if kc.bin == "" {
		return r.dropKept(ctx, kc)
	}
	return nil
}

// goTestBinary is the keptBuild of a plain test binary: go test -c in the
// checkout. One that does not compile marks the variant broken, as
// testBinary does.
func (r *Runner) goTestBinary(ids []diffhunks.ID, v variant) keptBuild {
	return func(ctx context.Context, wt, out string) (string, error, error) {
		bin, _, err := r.compileTest(ctx, filepath.Join(wt, filepath.FromSlash(r.prefix)), v.modFiles(), binKey(ids), filepath.Join(out, "test.bin"))
		return bin, nil, err
	}
}

// evictKept returns the least recently used idle checkouts to the pool
// while more than maxIdleKept are idle. An entry whose build failed holds
// no checkout and stays, so that its variant is not built again.
func (r *Runner) evictKept(ctx context.Context) {
	r.mu.Lock()
	var idle []string
	for key, k := range r.kept {
		select {
		case <-k.done:
			if k.users == 0 && k.wt != "" {
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
