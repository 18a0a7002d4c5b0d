package result

// Flakiness is the statistics of a flaky test. Every run behind it went
// Workers at a time, so that the rates compare.
type Flakiness struct {
	Workers  int           `json:"workers"`
	Head     HeadRate      `json:"head"`
	Base     BaseRate      `json:"base"`
	Variants []VariantRuns `json:"variants,omitempty"`
	Race     *Race         `json:"race,omitempty"`
	// Interventions is how the chain was sought: head traced without
	// interventions, then each group test.
	Interventions *Interventions `json:"interventions,omitempty"`
	// Amplification is how every run was made to fail more often, absent
	// when runs were plain.
	Amplification *Amplification `json:"amplification,omitempty"`
}

// Amplification is the way of running the test that every measured run
// used (Iterations per process, stopping at the first failure, and a
// GOMAXPROCS when positive) and each candidate measured on head to choose
// it.
type Amplification struct {
	Iterations int `json:"iterations"`
	GoMaxProcs int `json:"gomaxprocs,omitempty"`
	// Perturb, when positive, says that each run was built with the
	// tracing runtime and paused at about one in Perturb traced points,
	// with a seed drawn per run; Seed is a failing head run's.
	Perturb int                 `json:"perturb,omitempty"`
	Seed    uint64              `json:"seed,omitempty"`
	Tried   []AmplificationRuns `json:"tried"`
	// NoneFailed says that no run failed while the candidates were
	// measured: the one with the most tries of the test per second was
	// kept.
	NoneFailed bool `json:"none_failed,omitempty"`
}

// Amplifies reports whether a changes how the test runs, as opposed to
// recording that plain runs were kept; false for nil.
func (a *Amplification) Amplifies() bool {
	return a != nil && (a.Iterations > 1 || a.GoMaxProcs > 0 || a.Perturb > 0)
}

// AmplificationRuns is head measured under one candidate.
type AmplificationRuns struct {
	Iterations int     `json:"iterations"`
	GoMaxProcs int     `json:"gomaxprocs,omitempty"`
	Perturb    int     `json:"perturb,omitempty"`
	Runs       int     `json:"runs"`
	Failures   int     `json:"failures"`
	Seconds    float64 `json:"seconds"`
}

// HeadRate is head's failure rate with its 95 % Wilson interval.
type HeadRate struct {
	Runs     int        `json:"runs"`
	Failures int        `json:"failures"`
	Rate     float64    `json:"rate"`
	CI       [2]float64 `json:"ci"`
}

// BaseRate is base's runs; Upper is the 99 % upper bound of its failure
// rate when it never failed.
type BaseRate struct {
	Runs     int     `json:"runs"`
	Failures int     `json:"failures"`
	Upper    float64 `json:"upper,omitempty"`
}

// VariantRuns is one variant's runs in the noisy revert search: its
// verdict ("passes", "fails", "undecided", or the outcome of a variant that
// could not run the test) and, for the answer, the proof's fresh runs.
type VariantRuns struct {
	Reverted      []HunkID `json:"reverted"`
	Runs          int      `json:"runs"`
	Failures      int      `json:"failures"`
	Verdict       string   `json:"verdict"`
	ProofRuns     int      `json:"proof_runs,omitempty"`
	ProofFailures int      `json:"proof_failures,omitempty"`
}

// Race is what head's runs under the race detector showed: the data races
// whose two accesses reach the module's code, or why none ran.
type Race struct {
	Runs        int          `json:"runs"`
	Reports     []RaceReport `json:"reports,omitempty"`
	Unavailable string       `json:"unavailable,omitempty"`
}

// RaceReport is one data race, its current access first.
type RaceReport struct {
	Accesses []RaceAccess `json:"accesses"`
}

// RaceAccess is one side of a race at its innermost place in the module:
// the access ("read", "write", "previous read", "previous write"), the
// function, the place, and the hunk whose head lines hold it (0: none).
type RaceAccess struct {
	Op   string `json:"op"`
	Func string `json:"func"`
	File string `json:"file"`
	Line int    `json:"line"`
	Hunk HunkID `json:"hunk,omitempty"`
}

// Interventions are the traced runs behind a chain found by intervention.
type Interventions struct {
	Traced         int `json:"traced_runs"`
	TracedFailures int `json:"traced_failures"`
	// Perturb, when positive, says the traced runs were perturbed at 1 in
	// Perturb traced points, as none of the Unperturbed runs before them
	// failed.
	Perturb     int                `json:"perturb,omitempty"`
	Unperturbed int                `json:"unperturbed_runs,omitempty"`
	Tests       []InterventionTest `json:"tests,omitempty"`
}

// InterventionTest is one group test: what it did, its runs (valid: the
// hooks acted and the run ended as a pass or with the failure), failures
// among the valid runs, the runs an earlier test of the same intervention
// made (reused), and its verdict ("stopped", "persists", "invalid",
// "undecided"); placebo marks the delay-only check of a link.
type InterventionTest struct {
	Items    []string `json:"items"`
	Runs     int      `json:"runs"`
	Valid    int      `json:"valid"`
	Failures int      `json:"failures"`
	Reused   int      `json:"reused,omitempty"`
	Verdict  string   `json:"verdict"`
	Placebo  bool     `json:"placebo,omitempty"`
}
