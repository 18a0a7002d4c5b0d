package search

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/culprit-dev/culprit/analyzer/trial"
	"github.com/culprit-dev/culprit/diffhunks"
)

// set is a reverted set as the oracle rules see it.
type set map[diffhunks.ID]bool

func setOf(ids ...diffhunks.ID) set {
	s := set{}
	for _, id := range ids {
		s[id] = true
	}
	return s
}

func (s set) has(ids ...diffhunks.ID) bool {
	for _, id := range ids {
		if !s[id] {
			return false
		}
	}
	return true
}

// oracle is a Tester whose outcomes come from rules instead of builds. Like
// the real tester it caches: a repeated Run is marked Cached. It counts every
// call by set so tests can check the strategies' costs.
type oracle struct {
	// passes decides a run that compiles; nth is how many times the same
	// set was run before.
	passes func(r set, nth int) bool
	// compiles is nil when every variant compiles.
	compiles func(r set) bool
	// msg is the compiler output of a variant that does not compile.
	msg func(r set) string

	mu     sync.Mutex
	runs   map[string]int
	builds map[string]int
	order  []string // runs in call order
}

var _ Tester = (*oracle)(nil)

func (o *oracle) compiled(r set) bool { return o.compiles == nil || o.compiles(r) }

func (o *oracle) Run(ctx context.Context, revert []diffhunks.ID) (trial.Result, error) {
	if err := ctx.Err(); err != nil {
		return trial.Result{}, err
	}
	k := key(revert)
	o.mu.Lock()
	if o.runs == nil {
		o.runs = map[string]int{}
	}
	nth := o.runs[k]
	o.runs[k]++
	o.order = append(o.order, k)
	o.mu.Unlock()
	r := setOf(revert...)
	res := trial.Result{Reverted: slices.Clone(revert), Cached: nth > 0}
	switch {
	case !o.compiled(r):
		res.Outcome = trial.BuildError
		if o.msg != nil {
			res.Message = o.msg(r)
		}
	case o.passes(r, nth):
		res.Outcome = trial.Pass
	default:
		res.Outcome = trial.Fail
		res.Signature = "calc/calc_test.go:6"
	}
	return res, nil
}

func (o *oracle) Build(ctx context.Context, revert []diffhunks.ID) (trial.Result, error) {
	if err := ctx.Err(); err != nil {
		return trial.Result{}, err
	}
	o.mu.Lock()
	if o.builds == nil {
		o.builds = map[string]int{}
	}
	o.builds[key(revert)]++
	o.mu.Unlock()
	r := setOf(revert...)
	res := trial.Result{Reverted: slices.Clone(revert), Outcome: trial.Pass}
	if !o.compiled(r) {
		res.Outcome = trial.BuildError
		if o.msg != nil {
			res.Message = o.msg(r)
		}
	}
	return res, nil
}

// checkNoRepeats fails the test if a set was built twice, or run twice
// other than the proof.
func (o *oracle) checkNoRepeats(t *testing.T, proof []diffhunks.ID) {
	t.Helper()
	o.mu.Lock()
	defer o.mu.Unlock()
	for k, n := range o.builds {
		if n > 1 {
			t.Errorf("built {%s} %d times", k, n)
		}
	}
	for k, n := range o.runs {
		limit := 1
		if proof != nil && k == key(proof) {
			limit = 2
		}
		if n > limit {
			t.Errorf("ran {%s} %d times", k, n)
		}
	}
}

func (o *oracle) nbuilds() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	n := 0
	for _, c := range o.builds {
		n += c
	}
	return n
}

// always builds a passes rule that ignores repeats.
func always(f func(r set) bool) func(set, int) bool {
	return func(r set, _ int) bool { return f(r) }
}

// subsetRule passes iff all of root is reverted.
func subsetRule(root ...diffhunks.ID) func(set, int) bool {
	return always(func(r set) bool { return r.has(root...) })
}

func ids(from, to int) []diffhunks.ID {
	var out []diffhunks.ID
	for i := from; i <= to; i++ {
		out = append(out, diffhunks.ID(i))
	}
	return out
}

// hunksIn lays out n hunks over files of perFile hunks each, perFunc hunks
// to a function.
func hunksIn(n, perFile, perFunc int) []diffhunks.Hunk {
	var hs []diffhunks.Hunk
	for i := 1; i <= n; i++ {
		f := (i - 1) / perFile
		hs = append(hs, diffhunks.Hunk{
			ID:   diffhunks.ID(i),
			File: fmt.Sprintf("pkg/f%02d.go", f),
			Func: fmt.Sprintf("F%d", (i-1)/perFunc),
			Kind: diffhunks.Modify,
		})
	}
	return hs
}
