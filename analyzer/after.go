package analyzer

import (
	"context"

	"github.com/culprit-dev/culprit/analyzer/search"
	"github.com/culprit-dev/culprit/analyzer/trial"
	"github.com/culprit-dev/culprit/diffhunks"
)

// explainAfter runs AFTER's loop (SEMANTIC.md §5): causes from the failing
// run select the candidate hunks for the revert search, and critical
// predicates extend the search until a root is found.
func explainAfter(ctx context.Context, req Request, runner *trial.Runner, res *Result, candidates []diffhunks.ID, opt search.Options) (*search.Found, error) {
	res.Notes = append(res.Notes, "the semantic analysis is not available in this build: the explanation is dynamic only")
	return search.Asymmetric(ctx, runner, res.Hunks, candidates, opt)
}
