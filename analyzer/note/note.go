// Package note names what an analysis reports besides its verdict: where it
// fell back, what it could not do within its budget, and facts a reader
// needs to trust the answer. The engine records a code with its data (a
// result.Note); the report package alone decides the words (x/tools'
// Diagnostic does the same for analyzers), so a note is worded once and
// never duplicated. The package is a leaf: the codes are part of the
// report JSON, which package result holds.
package note

// Code names a kind of note. Codes are part of the JSON report.
type Code string

// Classification.
const (
	Identical      Code = "identical"        // base and head are the same tree
	HeadBuildFails Code = "head-build-fails" // Detail: the compiler's first line
	PassesOnHead   Code = "passes-on-head"   // N: head runs, all passed
	FlakyOnHead    Code = "flaky-on-head"    // N of M head runs failed
	NewTest        Code = "new-test"         // the test does not exist on base
	BaseBuildFails Code = "base-build-fails" // Detail: the compiler's first line
	FailsOnBase    Code = "fails-on-base"    // N of M base runs failed
	FlakyOnBase    Code = "flaky-on-base"    // N of M base runs failed, every head run failed
	TimedOutOnBoth Code = "timed-out"        // the test hung on head and base alike
	OverMemory     Code = "over-memory"      // N test runs were stopped past Limit of memory
	// Flaky tests (head's outcomes mixed); the rates are in the result's
	// flakiness data.
	FlakyOnBoth       Code = "flaky-on-both"      // N of M base runs failed too
	FlakyInconclusive Code = "flaky-inconclusive" // base needed N runs without a failure, M fit the budget
	NoIntervention    Code = "no-intervention"    // no causal chain derived: the root is proven by failure rates only
	// Amplified: once head passed some runs, every run was amplified: N
	// iterations per process (1: plain runs, no candidate did better), M
	// the GOMAXPROCS (0: unchanged).
	Amplified Code = "amplified"
	// Perturbed: the amplification also perturbed each run's schedule,
	// pausing at about one in N traced points.
	Perturbed Code = "perturbed"
	// SharedWorker: runs that left their processor mostly idle went N
	// to a worker's place, alike for every variant; made alone they kept
	// it M % busy.
	SharedWorker Code = "shared-worker"
	// PerturbFailed: perturbed runs were wanted but could not be built
	// (Detail: the first line of why).
	PerturbFailed Code = "perturb-failed"
)

// Explanation of a flaky regression by intervention (FLAKY.md §2–§4).
const (
	NoTracedFailure    Code = "no-traced-failure"   // N traced runs of head, M of them passing: tracing hid the failure (or every run failed)
	ObserveCut         Code = "observe-cut"         // N traced runs, M of them passing, stopped: at those rates the runs of each outcome wanted were out of reach
	TracesFull         Code = "traces-full"         // N traced runs filled their trace (Limit: its size) and were set aside, of M
	TracesNarrowed     Code = "traces-narrowed"     // every one of N traced runs filled its trace (Limit); head was traced again with only the root hunks' functions (Detail) and the test instrumented
	NoDiscriminator    Code = "no-discriminator"    // no predicate told the failing traced runs from the passing ones; M: root hunks' functions serialised without stopping the failure
	DirectIntervention Code = "direct-intervention" // N functions of the root hunks whose calls, serialised, stopped the failure although no predicate discriminated
	Unintervenable     Code = "unintervenable"      // N candidates have no safe intervention: correlated at most
	InterventionBudget Code = "intervention-budget" // N group tests ran before the budget ended; M candidates left open
	NoPlacebo          Code = "no-placebo"          // N confirmed links not checked against a placebo; M checked
	InterventionFailed Code = "intervention-failed" // Detail: why the explanation could not run
	InterventionSkip   Code = "intervention-skip"   // Limit: too little budget left to trace and intervene
)

// Budgets.
const (
	BudgetClassify    Code = "budget-classify"    // Limit: ran out while base and head ran
	BudgetNothing     Code = "budget-nothing"     // Limit: ran out before any variant passed
	BudgetUnminimised Code = "budget-unminimised" // Limit; N: hunks of the passing variant kept
	BudgetSuspect     Code = "budget-suspect"     // Limit; Hunks: judged passing in the noisy search, not proven
	SemanticBudget    Code = "semantic-budget"    // Limit; N: causes derived before it ran out
	LargeAux          Code = "large-aux"          // N auxiliary hunks remain after minimising
	RolesUnchecked    Code = "roles-unchecked"    // the N auxiliary hunks were too many to try each as a root
)

// Semantic analysis.
const (
	CommandModeDynamic Code = "command-mode-dynamic" // no tracing outside Go mode
	SemanticFailed     Code = "semantic-failed"      // Detail: why it could not run
	TraceTruncated     Code = "trace-truncated"      // the trace buffer filled up
	TraceNarrowed      Code = "trace-narrowed"       // Detail: the packages traced again, alone, after the buffer filled up
	TraceWrapped       Code = "trace-wrapped"        // N: events kept; the buffer filled up and kept the run's last events
	TraceWindow        Code = "trace-window"         // N: test frame events before the failure; Detail: where the window starts
	Untraced           Code = "untraced"             // N constructs left untraced
	TraceProbed        Code = "trace-probed"         // N functions the probe run never entered were compiled uninstrumented
	NoFailureInTrace   Code = "no-failure-in-trace"  // Detail: why the assertion was not found
	CauseFailed        Code = "cause-failed"         // Detail: why one predicate has no cause
	CausesTouchNothing Code = "causes-touch-nothing" // N causes led to no root
	CausesIdle         Code = "causes-idle"          // N causes led to no root, the last M touched no new hunk
	SolverGaveUp       Code = "solver-gave-up"       // N checks came back unknown
	SliceCut           Code = "slice-cut"            // N causes whose slice stopped at M events
)

// Comparison with the passing run.
const (
	ContrastSkipped Code = "contrast-skipped" // Detail: why the passing run was not traced or compared
	ContrastBudget  Code = "contrast-budget"  // Limit: too little budget left to trace the passing run
	ContrastOnly    Code = "contrast-only"    // the tree is the path of differences alone (no cause was derived)
	ContrastOutside Code = "contrast-outside" // Detail: where the runs first differ, in code the change did not touch
	ContrastCut     Code = "contrast-cut"     // N: the walk over the differences stopped after N steps
)

// Revert search.
const (
	// The test hunks' codes keep their "spec-" names: codes are part of the
	// report's JSON contract.
	TestHunks         Code = "spec-hunks"       // N hunks of the test's own files, never root
	NoCandidates      Code = "no-candidates"    // nothing to revert
	AllFail           Code = "all-fail"         // reverting all N candidates gives Outcome
	TestHunksReverted Code = "spec-reverted"    // with the N test hunks reverted too, it passes
	NotMonotone       Code = "not-monotone"     // single hunks and complements were tried too
	NoSubset          Code = "no-subset"        // no subset of the N candidates passes
	NoSingle          Code = "no-single"        // no single hunk passes (one-by-one), N candidates, Outcome of all
	OnlyCandidate     Code = "only-candidate"   // reverting the only candidate does not pass
	FellBackToAll     Code = "fell-back-to-all" // one-by-one: N candidates reverted together
	Unresolved        Code = "unresolved"       // N variants did not compile even with auxiliary hunks
	RootByRole        Code = "root-by-role"     // Hunks[0] passes with only what it needs to compile
	CompileOnly       Code = "compile-only"     // without Hunks the rest of the root does not compile: they are auxiliary
	MinimiseCut       Code = "minimise-cut"     // minimising stopped with Limit left, for the proof and the explanation
	Reduced           Code = "reduced"          // the N candidates were reduced as a whole; M root hunks are those without which the rest compiles (0: none)
	ProofRepeat       Code = "proof-repeat"     // reverting Hunks passed in the search, gave Outcome again
	FlakyProof        Code = "flaky-proof"      // Hunks passed once, not in the proof: no culprit claimed
	FlakyRemeasured   Code = "flaky-remeasured" // Hunks passed once, not in the proof; head, run again, passed N of M runs: measured as flaky
	NothingPasses     Code = "nothing-passes"   // no subset could be reverted to pass
	ProofFailed       Code = "proof-failed"     // the proof with Hunks reverted gave Outcome
)

// Roles among proven roots.
const (
	// AlternativeRoot: Hunks are another proven root, disjoint from the
	// root; the failing run executed the root nearer the failure.
	AlternativeRoot Code = "alternative-root"
	// ExecutedRoot: Hunks were needed to compile the root's revert, and
	// the failing run executed them while it executed no root hunk: they
	// are root too.
	ExecutedRoot Code = "executed-root"
	// AuxNotNeeded: Hunks were reverted with the root as auxiliary hunks,
	// but the variant without them compiles and passes: they are left out,
	// and that variant is the proof.
	AuxNotNeeded Code = "aux-not-needed"
	// AuxChangesBehaviour: Hunks were reverted with the root as auxiliary
	// hunks, and the variant without them compiles but fails: the failure
	// depends on them, so they are root too.
	AuxChangesBehaviour Code = "aux-changes-behaviour"
	// TreeRoot: Hunks were reverted with the root, and the causal tree
	// passes through their statements: they change behaviour, so they
	// are root too.
	TreeRoot Code = "tree-root"
	// RenameRoot: Hunks, the root the reverts settled on, only rename
	// identifiers and change no behaviour; the causal tree named the
	// root among the hunks reverted with them (TreeRoot), and Hunks are
	// shown as auxiliary.
	RenameRoot Code = "rename-root"
	// OffTreeAux: Hunks were root, the causal tree shows an effect of the
	// change in the other root hunks and none in them, and the proven
	// revert does not compile without them: they are shown as auxiliary.
	OffTreeAux Code = "off-tree-aux"
	// WholeRoles: the proven revert does not compile without any one of
	// its hunks (the test's own apart), so no run can tell their roles
	// apart; Hunks hold the causal tree's steps that ran otherwise without
	// the change and are root, the rest auxiliary. N: hunks on the tree
	// that only thread a parameter (search.Plumbing), rename
	// (search.RenamesOnly) or declare what the others use
	// (search.DeclaresOnly), auxiliary too.
	WholeRoles Code = "whole-roles"
)
