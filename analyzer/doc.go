// Package analyzer is culprit's engine: given a repository, a base and a head
// revision and a failing test, Explain finds the minimal set of hunks whose
// revert makes the test pass, the auxiliary hunks needed to keep the code
// compiling, and, where the semantic analysis can derive it, the causal tree
// from the changed lines to the failed assertion. Result.Document gives the
// answer as the report document of package result, which the renderers
// and the Action use without depending on the engine.
package analyzer
