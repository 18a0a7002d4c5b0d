package shard

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"

	"github.com/culprit-dev/culprit/analyzer/trial"
)

// Bounds of one outcome's text: a shard's runner trims the compiler's
// messages and the test output to less (analyzer/trial).
const (
	maxText     = 64 << 10
	maxOutput   = 1 << 20
	maxSubtests = 10000
)

var outcomes = []trial.Outcome{trial.Pass, trial.Fail, trial.BuildError, trial.Timeout, trial.Crash, trial.NoTests}

// ReadOutcomes reads one shard's answer to slice i of k of rd and checks
// it as untrusted data: its size, version, round and slice, one outcome
// per request of the slice in the order asked, each for the hunks that
// request reverts, with a known outcome and text within bounds. Any
// failure rejects the whole answer: the caller runs the slice again or
// elsewhere, and never takes a part of it.
func ReadOutcomes(r io.Reader, rd *Round, i, k int) ([]trial.Result, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxOutcomesBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading outcomes: %w", err)
	}
	if len(data) > MaxOutcomesBytes {
		return nil, fmt.Errorf("outcomes over %d bytes", MaxOutcomesBytes)
	}
	var o Outcomes
	if err := json.Unmarshal(data, &o); err != nil {
		return nil, fmt.Errorf("reading outcomes: %w", err)
	}
	if o.Version != Version || o.ID != rd.ID || o.Shard != i || o.Shards != k {
		return nil, fmt.Errorf("outcomes of version %d, round %q, shard %d of %d; want %d, %q, %d of %d",
			o.Version, o.ID, o.Shard, o.Shards, Version, rd.ID, i, k)
	}
	lo, hi := Slice(len(rd.Requests), i, k)
	if len(o.Outcomes) != hi-lo {
		return nil, fmt.Errorf("%d outcomes for %d requests", len(o.Outcomes), hi-lo)
	}
	out := make([]trial.Result, len(o.Outcomes))
	for j, oc := range o.Outcomes {
		q := rd.Requests[lo+j]
		res := oc.Result
		switch {
		case !slices.Equal(oc.Revert, q.Revert) || res.Reverted != nil && !slices.Equal(res.Reverted, q.Revert):
			return nil, fmt.Errorf("outcome %d is for %v, the request for %v", j, oc.Revert, q.Revert)
		case !slices.Contains(outcomes, res.Outcome):
			return nil, fmt.Errorf("outcome %d: unknown outcome %q", j, res.Outcome)
		case len(res.Signature) > maxText || len(res.Message) > maxText || len(res.Output) > maxOutput || len(res.Subtests) > maxSubtests:
			return nil, fmt.Errorf("outcome %d: text over its bounds", j)
		case res.Duration < 0 || res.Cached || res.TypeChecked:
			return nil, fmt.Errorf("outcome %d: not the answer of a run", j)
		}
		for _, st := range res.Subtests {
			if !slices.Contains(outcomes, st.Outcome) || len(st.Name) > maxText || len(st.Signature) > maxText {
				return nil, fmt.Errorf("outcome %d: a subtest out of bounds", j)
			}
		}
		res.Reverted = q.Revert
		out[j] = res
	}
	return out, nil
}
