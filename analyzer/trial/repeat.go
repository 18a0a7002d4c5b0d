package trial

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/culprit-dev/culprit/diffhunks"
)

// Repeat runs the same variant n times, bypassing the cache, to tell a
// deterministic outcome from a flaky one. The runs go Config.Workers at a
// time, as every other trial does, so that a rate measured here compares
// with rates measured by later repeats under the same load. Results come
// back in the order the runs were started; a variant that does not
// compile gives one, its build error. When the variant has no cached
// run yet, the first result becomes its cached Run result, so the search
// that follows does not pay for it again.
func (r *Runner) Repeat(ctx context.Context, revert []diffhunks.ID, n int) ([]Result, error) {
	ids := normalize(revert)
	run, release, err := r.repeatable(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("building %v to run it %d times: %w", ids, n, err)
	}
	defer release()
	var out []Result
	if r.brokenBinary(ids) && n > 1 {
		// The test binary did not compile: a go test run says why, and
		// when it is a build error, more runs would only compile it again.
		out, err = r.times(ctx, ids, 1, run)
		if err == nil && out[0].Outcome != BuildError {
			var more []Result
			more, err = r.times(ctx, ids, n-1, run)
			out = append(out, more...)
		}
	} else {
		out, err = r.times(ctx, ids, n, run)
	}
	for i := range out {
		out[i].Reverted = ids
	}
	if err != nil {
		return out, fmt.Errorf("%v: %w", ids, err)
	}
	if len(out) > 0 {
		r.mu.Lock()
		k := "run:" + key(ids)
		if _, ok := r.cache[k]; !ok {
			c := &call{done: make(chan struct{}), res: out[0]}
			close(c.done)
			r.cache[k] = c
		}
		r.mu.Unlock()
	}
	return out, nil
}

// repeatable returns how to run the variant once: its prebuilt test binary
// when it has one (see binary.go and kept.go), else a go test run; and
// what to call once its runs are over.
func (r *Runner) repeatable(ctx context.Context, ids []diffhunks.ID) (run func(context.Context) (Result, error), release func(), err error) {
	none := func() {}
	slow := func(ctx context.Context) (Result, error) { return r.trial(ctx, ids, false) }
	if r.cfg.Mode != ModeGo {
		return slow, none, nil
	}
	// A perturbed variant is checked out and kept (perturb.go, kept.go);
	// any other is given by -overlay, or else checked out and kept too.
	every := r.amplification().Perturb
	v, err := r.variant(ids)
	if err != nil {
		return slow, none, nil // the go test run reports a broken variant
	}
	// Builds take a worker's place like trials do.
	select {
	case r.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	}
	defer func() { <-r.sem }()
	t2j, err := r.test2json(ctx)
	switch {
	case (err != nil || t2j == "") && every > 0:
		return nil, nil, fmt.Errorf("perturbed runs need test2json: %v", err)
	case err != nil || t2j == "":
		return slow, none, err
	case every > 0:
		return r.perturbed(ctx, ids, v, t2j, every)
	case !v.overlayable():
		k, release, err := r.keptBinary(ctx, binKey(ids), ids, v, r.goTestBinary(ids, v))
		if err != nil || k.bin == "" {
			if release != nil {
				release()
			}
			return slow, none, err
		}
		bin, wt := k.bin, k.wt
		return func(ctx context.Context) (Result, error) { return r.runBinary(ctx, t2j, bin, wt) }, release, nil
	}
	bin, err := r.testBinary(ctx, ids, v)
	if err != nil || bin == "" {
		return slow, none, err
	}
	return func(ctx context.Context) (Result, error) { return r.runBinary(ctx, t2j, bin, r.wtHead) }, none, nil
}

// times calls run n times, Config.Workers at a time, each counted as a
// trial, and returns the results in the order the runs were started. Runs
// that leave their processor idle enough share a worker's place
// (PerWorker, share.go): a worker then runs a group of them at once. On
// an error it returns the runs before the first failed one: a caller that
// stops on the budget still sees what ran.
func (r *Runner) times(ctx context.Context, ids []diffhunks.ID, n int, run func(context.Context) (Result, error)) ([]Result, error) {
	amp := r.amplification()
	per := r.PerWorker()
	out := make([]Result, n)
	errs := make([]error, n)
	// The runs do not depend on each other: side by side, one round.
	ctxs, join := Fork(ctx, n)
	defer join()
	var wg sync.WaitGroup
	one := func(i int) {
		ln := laneOf(ctxs[i])
		start, t0 := ln.at(), time.Now()
		out[i], errs[i] = run(ctxs[i])
		out[i].PerWorker = per
		if errs[i] != nil {
			return
		}
		if out[i].OverMemory {
			r.count(func(s *Counts) { s.OverMemory++ })
		}
		if per == 1 {
			r.ranAlone(amp, out[i])
		}
		ln.add(start, Entry{Revert: append([]diffhunks.ID{}, ids...), Repeat: true, Outcome: out[i].Outcome, Seconds: time.Since(t0).Seconds()})
	}
	for i := 0; i < n; i += per {
		select {
		case r.sem <- struct{}{}:
		case <-ctx.Done():
			errs[i] = ctx.Err()
		}
		if errs[i] != nil {
			break
		}
		group := min(per, n-i)
		r.count(func(s *Counts) { s.Trials += group })
		var g sync.WaitGroup
		for j := i; j < i+group; j++ {
			g.Go(func() { one(j) })
		}
		wg.Go(func() {
			defer func() { <-r.sem }()
			g.Wait()
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return out[:i], fmt.Errorf("run %d: %w", i+1, err)
		}
	}
	return out, nil
}
