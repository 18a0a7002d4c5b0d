package trial

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/culprit-dev/culprit/diffhunks"
)

// call is one execution, shared by every request for the same variant.
type call struct {
	done  chan struct{}
	res   Result
	err   error
	round int // the lane depth the execution left (rounds.go)
}

// Run builds and tests the head tree with the given hunks reverted. The
// same set of hunks never runs twice: a repeated request waits for, and
// returns, the first one's result marked Cached. An error means the trial
// could not be run at all (ctx cancelled, variant not buildable, git
// failure), not that the test failed.
func (r *Runner) Run(ctx context.Context, revert []diffhunks.ID) (Result, error) {
	ids := normalize(revert)
	return r.do(ctx, "run:"+key(ids), func() (Result, bool) {
		// A variant known not to compile fails the same way when run.
		if res, ok := r.finished("build:" + key(ids)); ok && res.Outcome == BuildError {
			return res, true
		}
		return Result{}, false
	}, func(ctx context.Context) (Result, error) {
		return r.checked(ctx, ids, false)
	}, ids, false)
}

// Build reports whether the variant compiles (Outcome Pass) or not
// (BuildError, with the compiler's messages), without running the test
// when it can: a finished Run of the same variant answers it.
func (r *Runner) Build(ctx context.Context, revert []diffhunks.ID) (Result, error) {
	ids := normalize(revert)
	return r.do(ctx, "build:"+key(ids), func() (Result, bool) {
		res, ok := r.finished("run:" + key(ids))
		switch {
		case !ok, res.Outcome == Timeout:
			// A run that timed out may have hung while compiling.
			return Result{}, false
		case res.Outcome != BuildError:
			res.Outcome, res.Signature, res.Message = Pass, "", ""
		}
		return res, true
	}, func(ctx context.Context) (Result, error) {
		return r.checked(ctx, ids, true)
	}, ids, true)
}

// checked runs (or, if build, only compiles) the variant that reverts
// ids, unless type-checking it in process shows that it does not compile
// or, for build, that it does.
func (r *Runner) checked(ctx context.Context, ids []diffhunks.ID, build bool) (Result, error) {
	v, err := r.variant(ids)
	if err != nil {
		return Result{}, err
	}
	if res, ok := r.inProcess(ctx, v, build); ok {
		r.count(func(s *Counts) {
			if res.Outcome == BuildError {
				s.TypeChecks++
			} else {
				s.TypeAccepted++
			}
		})
		return res, nil
	}
	r.count(func(s *Counts) {
		if build {
			s.Builds++
		} else {
			s.Trials++
		}
	})
	res, err := r.executed(ctx, ids, v, build)
	if err == nil && res.OverMemory {
		r.count(func(s *Counts) { s.OverMemory++ })
	}
	return res, err
}

// RunAll runs the variants concurrently, at most Config.Workers at once,
// and returns their results in order. The first error cancels the rest.
func (r *Runner) RunAll(ctx context.Context, reverts [][]diffhunks.ID) ([]Result, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	results := make([]Result, len(reverts))
	errs := make([]error, len(reverts))
	ctxs, join := Fork(ctx, len(reverts))
	var wg sync.WaitGroup
	for i, rev := range reverts {
		wg.Go(func() {
			results[i], errs[i] = r.Run(ctxs[i], rev)
			if errs[i] != nil {
				cancel()
			}
		})
	}
	wg.Wait()
	join()
	for _, err := range errs {
		if err != nil {
			return results, err
		}
	}
	return results, nil
}

// do returns the cached result for k, or the one derived from another
// cached result by derive (called with r.mu held), or runs exec once for every concurrent caller.
// Failed executions are forgotten so that a later request retries them.
// An execution is recorded in ctx's lane (rounds.go); a caller that waited
// for another's execution reaches its round.
func (r *Runner) do(ctx context.Context, k string, derive func() (Result, bool), exec func(context.Context) (Result, error), ids []diffhunks.ID, build bool) (Result, error) {
	ln := laneOf(ctx)
	start := ln.at()
	r.mu.Lock()
	c, ok := r.cache[k]
	if !ok {
		if res, ok := derive(); ok {
			c = &call{done: make(chan struct{}), res: res}
			close(c.done)
			r.cache[k] = c
		}
	}
	if c != nil {
		r.counts.CacheHits++
		r.mu.Unlock()
		select {
		case <-c.done:
		case <-ctx.Done():
			return Result{}, ctx.Err()
		}
		if c.err != nil {
			return Result{}, c.err
		}
		ln.reach(c.round)
		res := c.res
		res.Cached = true
		return res, nil
	}
	c = &call{done: make(chan struct{})}
	r.cache[k] = c
	r.mu.Unlock()

	run := func() {
		c.res, c.round, c.err = ln.execute(start, ids, build, func() (Result, error) { return exec(ctx) })
	}
	if r.cfg.Executor != nil {
		// The executor bounds its own runners; what it leaves to this
		// runner takes a worker then (executed).
		run()
	} else {
		select {
		case r.sem <- struct{}{}:
			run()
			<-r.sem
		case <-ctx.Done():
			c.err = ctx.Err()
		}
	}
	c.res.Reverted = ids
	if c.err != nil {
		c.err = fmt.Errorf("trial of %v: %w", ids, c.err)
		r.mu.Lock()
		delete(r.cache, k)
		r.mu.Unlock()
	}
	close(c.done)
	return c.res, c.err
}

// finished returns the result cached under k if its execution is over and
// succeeded. r.mu must be held.
func (r *Runner) finished(k string) (Result, bool) {
	c, ok := r.cache[k]
	if !ok {
		return Result{}, false
	}
	select {
	case <-c.done:
		return c.res, c.err == nil
	default:
		return Result{}, false
	}
}

func (r *Runner) count(f func(*Counts)) {
	r.mu.Lock()
	f(&r.counts)
	r.mu.Unlock()
}

func normalize(revert []diffhunks.ID) []diffhunks.ID {
	ids := slices.Clone(revert)
	slices.Sort(ids)
	return slices.Compact(ids)
}

func key(ids []diffhunks.ID) string {
	var b strings.Builder
	for i, id := range ids {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprint(&b, id)
	}
	return b.String()
}
