// Package analyzer is culprit's engine: given a repository, a base and a head
// revision and a failing test, Explain finds the minimal set of hunks whose
// revert makes the test pass, the auxiliary hunks needed to keep the code
// compiling, and, where the semantic analysis can derive it, the causal tree
// from the changed lines to the failed assertion. Result.Document gives the
// answer as the report document of package result, which the renderers
// and the Action use without depending on the engine.
//
// Explain runs these phases in order, each a function in phases.go (the
// first in explain.go); a phase that settles the answer ends the analysis:
//
//  1. prepare: resolve the two commits, split the change into hunks
//     (package diffhunks gives each its id), find the test's module.
//  2. verdict: run head and base several times (classify.go); a flaky
//     regression is searched and explained here (flaky.go, flakycause.go).
//  3. leaf: choose the subtest whose failure is explained (subtests.go).
//  4. search: find hunks whose revert passes, by the strategy (package
//     search; AFTER's loop over semantic causes in after.go); settle
//     turns a spent budget or an unstable pass into the answer.
//  5. roles: root and auxiliary hunks, decided once (roles.go); prove
//     records the proof run, and only a passing one explains.
//  6. explain: compare the failing run with the proof's passing run
//     (passingrun.go) and root the causal tree in the root hunks.
//
// A hunk id from `culprit explain` is followed through prepare (the id),
// search and roles (Result.Root, Result.Aux), prove (Result.Proof),
// explain (the tree's leaves), and Result.Document, which package report
// renders as markdown.
package analyzer
