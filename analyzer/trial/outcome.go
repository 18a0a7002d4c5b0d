// Package trial builds and runs one variant of the head tree (head with a
// subset of hunks reverted) and reports its outcome. Trials are the unit of
// cost of the whole analysis: each is cached by its set of reverted hunks.
package trial

import (
	"time"

	"github.com/culprit-dev/culprit/diffhunks"
)

// Outcome is what one build-and-test of a variant gave.
type Outcome string

const (
	Pass       Outcome = "pass"
	Fail       Outcome = "fail"
	BuildError Outcome = "build-error"
	Timeout    Outcome = "timeout"
	Crash      Outcome = "crash"    // the test binary died without a test verdict
	NoTests    Outcome = "no-tests" // the named test does not exist in the variant
)

// Result is the outcome of one trial with its evidence.
type Result struct {
	// Reverted is the sorted set of hunks reverted in this variant.
	Reverted []diffhunks.ID
	Outcome  Outcome
	// Signature locates the failure: the first failing assertion as
	// "file:line" (file relative to the repository), or the panic site.
	// Empty unless Outcome is Fail or Crash.
	Signature string
	// Message is the first failure message, or the compiler's messages for
	// BuildError, trimmed to a few KiB.
	Message string
	// Output is the tail of the combined test output, for the report.
	Output   string
	Duration time.Duration
	// CPU is the processor time the test's processes used, and PeakRSS
	// the largest resident set among them in bytes: what a run costs the
	// runner beside its wall time. Both are zero for a cached or
	// type-checked result and for a command-mode run, which records
	// neither (so its runs never share a worker, share.go).
	CPU     time.Duration
	PeakRSS int64
	// PerWorker is how many runs shared one worker's place with this
	// one, itself included (Runner.PerWorker): 1, or 0, when it ran
	// alone.
	PerWorker int
	// Subtests are the leaf subtests of the named test, with their own
	// outcomes (Pass, Fail, or NoTests for a skipped one), in start order.
	// Empty when the test has no subtests or did not run.
	Subtests []Subtest
	// Cached is true when the result came from the cache, not a new run.
	Cached bool
	// Seed is the perturbation seed of a perturbed run (Amplification.
	// Perturb), 0 otherwise: the same seed replays the run's pauses.
	Seed uint64
	// OverMemory is true when the test's processes were stopped for
	// passing their memory bound (proc.TestMemory): the run is a Crash.
	OverMemory bool
	// TypeChecked is true when type-checking the variant in process
	// answered (a BuildError, or a Pass of a compile-only check); the go
	// command did not run.
	TypeChecked bool
}

// Subtest is the outcome of one leaf subtest in a run.
type Subtest struct {
	Name      string // the full path, as go test prints it ("TestF/case_1")
	Outcome   Outcome
	Signature string // as Result.Signature, for a failed subtest
}

// Passed reports whether the variant built and its test passed.
func (r Result) Passed() bool { return r.Outcome == Pass }

// Compiled reports whether the variant built.
func (r Result) Compiled() bool { return r.Outcome != BuildError }
