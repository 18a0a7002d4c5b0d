package instrument

import (
	"context"
	"fmt"
	"os"

	"github.com/culprit-dev/culprit/analyzer/trace"
)

// Untraced instruments the test package pkg of the module in dir and its
// module's packages as Run would, without building or running anything,
// and returns what it had to leave uninstrumented. It is the diagnostic
// behind `culprit trace --skipped`.
func Untraced(ctx context.Context, dir, pkg string) ([]trace.Skip, error) {
	tmp, err := os.MkdirTemp("", "culprit-untraced-")
	if err != nil {
		return nil, fmt.Errorf("instrumenting %s: %w", pkg, err)
	}
	defer os.RemoveAll(tmp)
	in, err := instrument(ctx, dir, pkg, tmp, goEnv{}, nil, nil, nil)
	if err != nil {
		return nil, err
	}
	return in.tab.Skipped, nil
}
