package semantic

import (
	"context"
	"testing"
	"time"

	"github.com/culprit-dev/culprit/analyzer/trace"
)

// TestAfterExample traces TestF on the head of the AFTER running example
// and checks the causes and critical predicates of SEMANTIC.md §3–§4.
func TestAfterExample(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a traced test binary")
	}
	dir := afterHead(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	tr, err := trace.Run(ctx, trace.Config{Dir: dir, Pkg: "./calc", Test: "TestF", TraceDir: t.TempDir()})
	if err != nil {
		t.Fatalf("tracing TestF: %v", err)
	}
	if !tr.Result.Failed {
		t.Fatalf("traced TestF did not fail:\n%s", tr.Result.Output)
	}
	checkAfter(t, tr, dir)
}
