package analyzer

import (
	"time"

	"github.com/culprit-dev/culprit/analyzer/result"
	"github.com/culprit-dev/culprit/analyzer/trial"
	"github.com/culprit-dev/culprit/diffhunks"
)

// TestRef names the failing test.
type TestRef struct {
	// Package is the Go package path relative to the repository ("./calc").
	Package string `json:"package,omitempty"`
	// Name is the test name, with subtests separated by "/".
	Name string `json:"name,omitempty"`
	// Command is the shell test command in trial.ModeCommand.
	Command string `json:"command,omitempty"`
}

// Strategy names a revert-search strategy.
type Strategy string

const (
	StrategyAfter    Strategy = "after"      // semantic guidance + asymmetric revert search
	StrategyDynamic  Strategy = "dynamic"    // asymmetric revert search over all hunks
	StrategyDDMin    Strategy = "ddmin"      // Zeller's delta debugging over hunks
	StrategyOneByOne Strategy = "one-by-one" // revert each hunk alone
)

// Options tune the analysis. The zero value is usable.
type Options struct {
	Strategy Strategy
	// Timeout bounds one trial (build and test). Default 2 minutes.
	Timeout time.Duration
	// Reruns is how many times base and head are run to classify the
	// failure as deterministic or flaky. Default 3.
	Reruns int
	// Workers bounds trials run in parallel. Default 2.
	Workers int
	// Parallel is how many variants one round of the revert search tries
	// at once (search.Plan.Parallel), for an executor with more runners
	// than local workers: ddmin then also cuts into that many parts
	// (search.Plan.Split). Zero means Workers, and ddmin's halves.
	Parallel int
	// Executor, in Go mode, runs the trials the in-process type checker
	// cannot answer elsewhere (trial.Config.Executor); nil runs them in
	// local worktrees.
	Executor trial.Executor
	// BuildCommand is the shell build command in trial.ModeCommand
	// (optional).
	BuildCommand string
	// Budget bounds the whole analysis in wall time (DefaultBudget when
	// zero). When it runs out the analysis stops and reports what it has:
	// the smallest passing variant seen, marked as not minimised.
	Budget time.Duration
	// MaxTrials bounds the test runs (0: no bound besides Budget).
	MaxTrials int
	// SemanticBudget bounds tracing and the semantic analysis; past it the
	// revert search alone decides. Zero means a quarter of Budget, at most
	// DefaultSemanticBudget.
	SemanticBudget time.Duration
	// TraceBytes bounds the trace file of each traced run; 0 means the
	// tracer's default (256 MiB). A failing run whose trace fills it is
	// traced again with fewer packages instrumented.
	TraceBytes int64
	// EnvPassthrough names the environment variables the tests need
	// beyond the allow-list of internal/proc; every other variable is
	// withheld from the pull request's code.
	EnvPassthrough []string
	// Progress, when set, is called at each phase and as trials start and
	// end. It must return quickly.
	Progress func(Progress)
}

// Request asks for the explanation of one failing test.
type Request struct {
	Dir  string // the git repository
	Base string // base revision
	Head string // head revision
	Test TestRef
	Mode trial.Mode
	Options
}

// Cost is what an analysis cost: trials, builds, time, solver work.
type Cost struct {
	Strategy   Strategy
	Trials     int // trials run (cache misses)
	Builds     int // builds run, including compile-only checks
	TypeChecks int // variants found not to compile in process, with no build run
	// TypeAccepted are compile-only checks found to compile in process.
	TypeAccepted int
	CacheHits    int
	Wall         time.Duration
	Semantic     time.Duration // time spent in tracing and semantic analysis (not in the revert searches it starts)
	Contrast     time.Duration // time spent tracing the passing run and comparing the runs
	SolverCalls  int
	Clauses      int // soft clauses in the formulas built
	SliceSize    int // events in the backward dynamic slices
	PointWise    int // operations encoded point-wise
	Inputs       int // reads encoded as inputs
	Rounds       int // trials on the critical path: with a runner for every trial of a round, the time of this many trials (trial.Ledger)
}

// Result is the explanation of a failing test.
type Result struct {
	Status result.Status
	Test   TestRef
	// Base and Head are the revisions as the request named them; BaseSHA
	// and HeadSHA the commits they resolved to, which the trials ran.
	Base    string
	Head    string
	BaseSHA string
	HeadSHA string
	// Tool is the build of culprit that ran the analysis.
	Tool  result.Tool
	Hunks []diffhunks.Hunk
	// Root is the minimal set of hunks whose revert makes the test pass;
	// Aux are the hunks that must be reverted with them to compile.
	Root []diffhunks.ID
	Aux  []diffhunks.ID
	// AuxNeeds says why each checked auxiliary hunk is needed.
	AuxNeeds []result.AuxNeed
	// TestHunks are the hunks of the failing test's own files: never root,
	// reverted only as auxiliary hunks.
	TestHunks []diffhunks.ID
	// Tree is the causal tree, nil when the explanation is dynamic only.
	Tree *result.Node
	// Chain is the short account the explanation opens with: 3–7 steps
	// from the change to the failure, each with its passing instance; nil
	// without a tree.
	Chain []result.Statement
	// Proof is the final run with Root and Aux reverted.
	Proof *trial.Result
	// Evidence holds the classification runs of base and head.
	Evidence []trial.Result
	// Flakiness holds the failure rates of a flaky test (Flaky or
	// FlakyRegression when head's outcomes were mixed), nil otherwise.
	Flakiness *Flakiness
	// Subtests says which failing subtest was explained, and which failing
	// subtests were not (new in the change, or failing another way).
	Subtests SubtestChoice
	// Notes say where the analysis fell back or degraded, as codes with
	// their data; report words them.
	Notes result.Findings
	Cost  Cost
	// tracedOutput is the output of the traced failing run the tree was
	// derived from, "" when none was.
	tracedOutput string
}
