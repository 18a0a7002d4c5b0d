package trial

import (
	"context"
	"fmt"

	"github.com/culprit-dev/culprit/diffhunks"
)

// Repeat runs the same variant n times, bypassing the cache, to tell a
// deterministic outcome from a flaky one. The first result is cached as the
// variant's Run result when it is the first run of that variant, so the
// search that follows does not pay for it again.
func (r *Runner) Repeat(ctx context.Context, revert []diffhunks.ID, n int) ([]Result, error) {
	ids := normalize(revert)
	out := make([]Result, 0, n)
	for i := 0; i < n; i++ {
		var res Result
		var err error
		if i == 0 {
			res, err = r.Run(ctx, ids)
		} else {
			select {
			case r.sem <- struct{}{}:
			case <-ctx.Done():
				return out, ctx.Err()
			}
			r.count(func(s *Stats) { s.Trials++ })
			res, err = r.trial(ctx, ids, false)
			<-r.sem
			res.Reverted = ids
		}
		if err != nil {
			return out, fmt.Errorf("run %d of %v: %w", i+1, ids, err)
		}
		out = append(out, res)
	}
	return out, nil
}
