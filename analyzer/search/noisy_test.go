package search

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/culprit-dev/culprit/analyzer/stats"
	"github.com/culprit-dev/culprit/analyzer/trial"
	"github.com/culprit-dev/culprit/diffhunks"
)

// noisy is a simulated flaky test: a variant fails with rate(reverted) in
// each run, drawn from a seeded PCG, so that trial counts are exact.
type noisy struct {
	rate func(r set) float64

	mu   sync.Mutex
	rng  *rand.Rand
	runs int
}

func (n *noisy) Repeat(ctx context.Context, revert []diffhunks.ID, k int) ([]trial.Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	p := n.rate(setOf(revert...))
	out := make([]trial.Result, k)
	for i := range out {
		n.runs++
		out[i] = trial.Result{Reverted: slices.Clone(revert), Outcome: trial.Pass}
		if n.rng.Float64() < p {
			out[i].Outcome, out[i].Signature = trial.Fail, "x_test.go:9"
		}
	}
	return out, nil
}

func (n *noisy) Build(ctx context.Context, revert []diffhunks.ID) (trial.Result, error) {
	return trial.Result{Reverted: revert, Outcome: trial.Pass}, nil
}

func noisyHunks(n int) []diffhunks.Hunk {
	var hs []diffhunks.Hunk
	for i := 1; i <= n; i++ {
		hs = append(hs, diffhunks.Hunk{ID: diffhunks.ID(i), File: fmt.Sprintf("f%d.go", i), Kind: diffhunks.Modify})
	}
	return hs
}

// TestNoisyAsymmetric searches a flaky regression of rate 0.4 caused by
// hunk 3 among 6: every seed finds {3}, every passing verdict took exactly
// the SPRT's passes, and the proof is a fresh batch without failure.
func TestNoisyAsymmetric(t *testing.T) {
	const lower = 0.3 // head's Wilson lower bound
	passes := stats.NewSPRT(lower).PassesNeeded()
	for seed := uint64(1); seed <= 20; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			sim := &noisy{rng: rand.New(rand.NewPCG(seed, 7)), rate: func(r set) float64 {
				if r.has(3) {
					return 0
				}
				return 0.4
			}}
			nt := NewNoisyTester(sim, lower, 2)
			f, err := Asymmetric(context.Background(), nt, noisyHunks(6), []diffhunks.ID{1, 2, 3, 4, 5, 6}, Plan{})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(f.Root, []diffhunks.ID{3}) || !f.Proof.Passed() {
				t.Fatalf("root %v, proof %+v", f.Root, f.Proof)
			}
			total, proofs := 0, 0
			for _, j := range nt.Judged() {
				total += j.Runs + j.ProofRuns
				if j.ProofRuns > 0 {
					proofs++
					if j.ProofRuns != nt.ProofRuns || j.ProofFailures != 0 || !slices.Equal(j.Reverted, []diffhunks.ID{3}) {
						t.Errorf("proof %+v", j)
					}
				}
				// Passes come in batches of 2: the verdict lands on the
				// first batch that reaches the SPRT's count.
				if j.Verdict == stats.Passes && (j.Failures != 0 || j.Runs != passes+passes%2) {
					t.Errorf("passing verdict after %d runs, %d failures; want %d runs", j.Runs, j.Failures, passes+passes%2)
				}
				if j.Verdict == stats.Passes && !slices.Contains(j.Reverted, 3) {
					t.Errorf("variant %v without the root judged passing", j.Reverted)
				}
			}
			if proofs != 1 || total != sim.runs {
				t.Errorf("%d proofs, %d runs judged, %d run", proofs, total, sim.runs)
			}
		})
	}
}

// TestNoisyProofFails: a variant that passes its SPRT by luck but fails in
// the proof gives ErrProofFailed, never a root.
func TestNoisyProofFails(t *testing.T) {
	// The variant passes every run of its judgement, then fails every
	// run of its proof.
	judged := stats.NewSPRT(0.3).PassesNeeded()
	sim := &noisy{rng: rand.New(rand.NewPCG(1, 1))}
	sim.rate = func(set) float64 {
		if sim.runs >= judged {
			return 1
		}
		return 0
	}
	nt := NewNoisyTester(sim, 0.3, 2)
	f, err := OneByOne(context.Background(), nt, noisyHunks(1), []diffhunks.ID{1}, Plan{})
	if !errors.Is(err, ErrProofFailed) || len(f.Root) != 0 || !slices.Equal(f.Suspect, []diffhunks.ID{1}) {
		t.Fatalf("root %v, suspect %v, err %v", f.Root, f.Suspect, err)
	}
	j := nt.Judged()[0]
	if j.ProofRuns != nt.ProofRuns || j.ProofFailures != nt.ProofRuns {
		t.Errorf("proof runs %d, failures %d", j.ProofRuns, j.ProofFailures)
	}
}

// TestNoisyUndecided: a variant whose runs never decide (cap below the
// SPRT's passes) counts as not passing.
func TestNoisyUndecided(t *testing.T) {
	sim := &noisy{rng: rand.New(rand.NewPCG(1, 1)), rate: func(set) float64 { return 0 }}
	nt := NewNoisyTester(sim, 0.3, 2)
	nt.MaxRuns = 4
	res, err := nt.Run(context.Background(), []diffhunks.ID{1})
	if err != nil || res.Passed() || sim.runs != 4 {
		t.Fatalf("undecided variant: %+v, %v after %d runs", res, err, sim.runs)
	}
	if j := nt.Judged()[0]; j.Verdict != stats.Undecided {
		t.Errorf("verdict %v", j.Verdict)
	}
}
