package trial

import (
	"context"
	"fmt"
	"io/fs"
	"sync"
	"time"

	"github.com/culprit-dev/culprit/diffhunks"
)

// Request is one trial as data: what a runner that has only a checkout of
// head needs to build the variant and run the test on it. It is the unit
// an Executor runs, locally or on another machine.
type Request struct {
	// Revert is the sorted set of reverted hunks, which names the variant.
	Revert []diffhunks.ID `json:"revert"`
	// Files maps repository-relative slash paths to their content in the
	// variant, for every path that differs from head; Deleted lists the
	// head paths the variant lacks; Modes the paths whose mode changes.
	Files   map[string][]byte      `json:"files,omitempty"`
	Deleted []string               `json:"deleted,omitempty"`
	Modes   map[string]fs.FileMode `json:"modes,omitempty"`
	// Dir is Config.Dir relative to the repository root ("" for the top);
	// Package and Test name the test as Config.Pkg and Config.Test do.
	Dir     string        `json:"dir,omitempty"`
	Package string        `json:"package"`
	Test    string        `json:"test"`
	Timeout time.Duration `json:"timeout"`
	// Build asks only whether the variant compiles.
	Build bool `json:"build,omitempty"`
}

// Executor runs rounds of trials: requests that do not depend on each
// other's outcomes, which it may run side by side. Results come back in
// the order of the round. An error means the round could not be run at
// all (cancelled), not that a test failed. A result left without an
// Outcome is a request the executor could not answer (its runner was
// lost, its answer did not pass the checks): the Runner runs it itself,
// so that an executor never has to guess.
type Executor interface {
	Execute(ctx context.Context, round []Request) ([]Result, error)
}

// The local pool of worktrees is one executor.
var _ Executor = (*Runner)(nil)

// request is the trial of variant v (head with ids reverted) as data.
func (r *Runner) request(ids []diffhunks.ID, v variant, build bool) Request {
	return Request{Revert: ids, Files: v.files, Deleted: v.deleted, Modes: v.modes,
		Dir: r.prefix, Package: r.cfg.Pkg, Test: r.cfg.Test, Timeout: r.cfg.Timeout, Build: build}
}

// executor is where the runner's trials go: Config.Executor, or the
// runner's own worktrees.
func (r *Runner) executor() Executor {
	if r.cfg.Executor != nil {
		return r.cfg.Executor
	}
	return r
}

// Execute runs the round's requests in the runner's worktrees, side by
// side, bypassing the cache and the worker bound: the runner's own trials
// come one at a time, each holding a worker. The requests must be for the
// runner's test.
func (r *Runner) Execute(ctx context.Context, round []Request) ([]Result, error) {
	for _, q := range round {
		if q.Package != r.cfg.Pkg || q.Test != r.cfg.Test || q.Dir != r.prefix {
			return nil, fmt.Errorf("trial: request for %s %s in %q, runner for %s %s in %q",
				q.Package, q.Test, q.Dir, r.cfg.Pkg, r.cfg.Test, r.prefix)
		}
	}
	out := make([]Result, len(round))
	errs := make([]error, len(round))
	if len(round) == 1 {
		out[0], errs[0] = r.trialOf(ctx, variantOf(round[0]), round[0].Build)
		return out, errs[0]
	}
	var wg sync.WaitGroup
	for i, q := range round {
		wg.Go(func() { out[i], errs[i] = r.trialOf(ctx, variantOf(q), q.Build) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return out, fmt.Errorf("trial of %v: %w", round[i].Revert, err)
		}
	}
	return out, nil
}

func variantOf(q Request) variant {
	return variant{files: q.Files, deleted: q.Deleted, modes: q.Modes}
}

// executed runs the trial of v through the runner's executor.
func (r *Runner) executed(ctx context.Context, ids []diffhunks.ID, v variant, build bool) (Result, error) {
	out, err := r.executor().Execute(ctx, []Request{r.request(ids, v, build)})
	if err != nil {
		return Result{}, err
	}
	if len(out) != 1 {
		return Result{}, fmt.Errorf("trial: executor answered %d results for one request", len(out))
	}
	if out[0].Outcome == "" {
		select {
		case r.sem <- struct{}{}:
			defer func() { <-r.sem }()
		case <-ctx.Done():
			return Result{}, ctx.Err()
		}
		return r.trialOf(ctx, v, build)
	}
	return out[0], nil
}
