package trial

import (
	"context"
	"fmt"

	"github.com/culprit-dev/culprit/diffhunks"
)

// Repeat runs the same variant n times, bypassing the cache, to tell a
// deterministic outcome from a flaky one. When the variant has no cached
// run yet, the first result becomes its cached Run result, so the search
// that follows does not pay for it again.
func (r *Runner) Repeat(ctx context.Context, revert []diffhunks.ID, n int) ([]Result, error) {
	ids := normalize(revert)
	out := make([]Result, 0, n)
	for i := 0; i < n; i++ {
		select {
		case r.sem <- struct{}{}:
		case <-ctx.Done():
			return out, ctx.Err()
		}
		r.count(func(s *Stats) { s.Trials++ })
		res, err := r.trial(ctx, ids, false)
		<-r.sem
		if err != nil {
			return out, fmt.Errorf("run %d of %v: %w", i+1, ids, err)
		}
		res.Reverted = ids
		out = append(out, res)
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
