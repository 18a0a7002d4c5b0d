package trial

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"

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
// perturbed: its binary built with the tracing runtime in a checkout of
// the variant kept for its runs (kept.go), run there with a new seed each
// time; and what to call once its runs are over. A variant whose
// instrumented build fails is run the usual way once: when it does not
// compile at all, that build-error is its outcome for every run;
// otherwise the perturbation cannot be had, and that is an error, since an
// unperturbed run would not compare with the others.
//
// It is repeatable's, which holds a worker's place for it: the build, and
// the plain check of a variant whose build failed, take one as trials do.
// every is the amplification's Perturb.
func (r *Runner) perturbed(ctx context.Context, ids []diffhunks.ID, v variant, t2j string, every int) (run func(context.Context) (Result, error), release func(), err error) {
	r.mu.Lock()
	instr := r.instr
	r.mu.Unlock()
	if instr == nil {
		return nil, nil, errors.New("perturbed runs need an instrumenter")
	}
	build := func(ctx context.Context, wt, out string) (string, error, error) {
		bin, err := instr(ctx, filepath.Join(wt, filepath.FromSlash(r.prefix)), out)
		if err != nil {
			return "", err, ctx.Err()
		}
		return bin, nil, nil
	}
	k, release, err := r.keptBinary(ctx, "perturbed:"+key(ids), ids, v, build)
	if err != nil {
		return nil, nil, err
	}
	if k.bin == "" {
		release()
		plain, err := r.trial(ctx, ids, false)
		if err != nil {
			return nil, nil, err
		}
		if plain.Outcome != BuildError {
			return nil, nil, fmt.Errorf("building %v with the tracing runtime: %w", ids, cmp.Or(k.why, errors.New("the build failed")))
		}
		return func(context.Context) (Result, error) { return plain, nil }, func() {}, nil
	}
	bin, wt := k.bin, k.wt
	return func(ctx context.Context) (Result, error) {
		seed := NewSeed()
		res, err := r.runBinary(ctx, t2j, bin, wt, EnvIntervene+"="+PerturbItem(seed, every))
		res.Seed = seed
		return res, err
	}, release, nil
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
