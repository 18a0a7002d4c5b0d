package trial

import (
	"context"
	"errors"
	"fmt"
)

// ErrNoRace reports that head's test could not be built with the race
// detector (no C toolchain, an unsupported platform, or a variant that
// only go test can run).
var ErrNoRace = errors.New("the test could not be built with -race")

// RaceRepeat runs head's test n times in a test binary built once with the
// race detector, Config.Workers at a time. The runs are evidence only:
// they are slower than the others and their rate compares with nothing,
// so they are counted as trials but never cached as head's result.
func (r *Runner) RaceRepeat(ctx context.Context, n int) ([]Result, error) {
	if r.cfg.Mode != ModeGo {
		return nil, ErrNoRace
	}
	v, err := r.variant(nil)
	if err != nil {
		return nil, fmt.Errorf("running the test with -race: %w", err)
	}
	t2j, err := r.test2json(ctx)
	if err != nil {
		return nil, err
	}
	select {
	case r.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	bin, err := r.testBinary(ctx, nil, v, "-race")
	<-r.sem
	if err != nil {
		return nil, err
	}
	if bin == "" || t2j == "" {
		return nil, ErrNoRace
	}
	out, err := r.times(ctx, nil, n, func(ctx context.Context) (Result, error) { return r.runBinary(ctx, t2j, bin, r.wtHead) })
	if err != nil {
		return out, fmt.Errorf("running the test with -race: %w", err)
	}
	return out, nil
}
