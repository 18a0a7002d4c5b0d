package trial

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"time"

	"github.com/culprit-dev/culprit/diffhunks"
)

// An Instrumenter builds the test binary of the variant checked out at
// dir with the tracing runtime, writing it under out, a fresh directory
// the runner removes when it closes. The binary must run as go test's
// would, and its tracing runtime must read the perturbation of
// EnvIntervene (see Amplification.Perturb).
type Instrumenter func(ctx context.Context, dir, out string) (bin string, err error)

// EnvIntervene is the variable through which a perturbed run gets its
// perturbation (the tracing runtime's intervention spec).
const EnvIntervene = "CULPRIT_INTERVENE"

// perturbSlowdown bounds how much slower a run of a binary built with the
// tracing runtime is than a plain one.
const perturbSlowdown = 5

// SetInstrumenter lets the runner perturb runs (Amplification.Perturb).
func (r *Runner) SetInstrumenter(in Instrumenter) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.instr = in
}

// CanPerturb reports whether the runner has an Instrumenter.
func (r *Runner) CanPerturb() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.instr != nil
}

// perturbed returns how to run the variant once with its schedule
// perturbed: its binary built with the tracing runtime, once per variant,
// run with a new seed each time. A variant whose instrumented build fails
// is run the usual way once: when it does not compile at all, that
// build-error is its outcome for every run; otherwise the perturbation
// cannot be had, and that is an error, since an unperturbed run would not
// compare with the others.
//
// It is repeatable's, which holds a worker's place for it: the build, and
// the plain check of a variant whose build failed, take one as trials do.
// every is the amplification's Perturb.
func (r *Runner) perturbed(ctx context.Context, ids []diffhunks.ID, t2j string, every int) (func(context.Context) (Result, error), error) {
	r.mu.Lock()
	instr := r.instr
	r.mu.Unlock()
	if instr == nil {
		return nil, errors.New("perturbed runs need an instrumenter")
	}
	var buildErr error
	bin, err := r.once(ctx, "perturbed:"+key(ids), func() (string, error) {
		dir, release, err := r.Checkout(ctx, ids)
		if err != nil {
			return "", err
		}
		out := filepath.Join(r.tmp, fmt.Sprintf("pb%d", r.nextSeq()))
		r.count(func(s *Counts) { s.Builds++ })
		ln := laneOf(ctx)
		start, t0 := ln.at(), time.Now()
		bin, err := instr(ctx, dir, out)
		built := Pass
		if err != nil {
			built, buildErr = BuildError, err
		}
		ln.record(start, ids, true, built, time.Since(t0))
		return bin, errors.Join(release(), ctx.Err())
	})
	if err != nil {
		return nil, err
	}
	if bin == "" {
		plain, err := r.trial(ctx, ids, false)
		if err != nil {
			return nil, err
		}
		if plain.Outcome != BuildError {
			if buildErr == nil {
				buildErr = errors.New("an earlier build failed")
			}
			return nil, fmt.Errorf("building %v with the tracing runtime: %w", ids, buildErr)
		}
		return func(context.Context) (Result, error) { return plain, nil }, nil
	}
	return func(ctx context.Context) (Result, error) {
		seed := NewSeed()
		res, err := r.runBinary(ctx, t2j, bin, r.wtHead, EnvIntervene+"="+PerturbItem(seed, every))
		res.Seed = seed
		return res, err
	}, nil
}

// NewSeed draws a perturbation seed, never 0 (which marks an unperturbed
// run).
func NewSeed() uint64 {
	return max(rand.Uint64(), 1)
}

// PerturbItem is the intervention spec item that perturbs a run of a
// binary built with the tracing runtime at about 1 in every traced points,
// as seed chooses.
func PerturbItem(seed uint64, every int) string {
	return fmt.Sprintf("perturb:%d/%d", seed, every)
}
