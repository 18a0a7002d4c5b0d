// Package request turns a materialized scenario into the analyzer request
// that explains it. It is apart from package scenario so that the
// analyzer's own sub-packages can use scenarios in their tests.
package request

import (
	"github.com/culprit-dev/culprit/analyzer"
	"github.com/culprit-dev/culprit/analyzer/trial"
	"github.com/culprit-dev/culprit/internal/scenario"
)

// For is the request that explains sc, made into repo, with strategy.
func For(sc *scenario.Scenario, repo *scenario.Repo, strategy analyzer.Strategy) analyzer.Request {
	req := analyzer.Request{
		Dir:  repo.Dir,
		Base: repo.Base,
		Head: repo.Head,
		Test: analyzer.TestRef{Package: sc.Pkg, Name: sc.Test, Command: sc.Command},
		Mode: trial.ModeGo,
		Options: analyzer.Options{
			Strategy: strategy,
			Timeout:  sc.Timeout,
			Reruns:   sc.Reruns,
			// TraceBytes is the scenario's own, like Timeout: both
			// bound what a run that never ends costs.
			TraceBytes: sc.TraceBytes,
		},
	}
	if sc.Mode != "" {
		req.Mode = trial.Mode(sc.Mode)
	}
	return req
}
