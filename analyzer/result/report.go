package result

// Version is the version of the document; a reader refuses any other.
const Version = 1

// HunkID names one hunk of the change. Ids start at 1 and follow the order
// of files (sorted by path), then of lines; 0 means no hunk. diffhunks.ID
// is the same type.
type HunkID int

// Report is the document of one analysis. Field names and meanings are a
// contract; new fields may be added, none renamed.
type Report struct {
	Version int    `json:"version"`
	Status  Status `json:"status"`
	Test    Test   `json:"test"`
	// Base and Head are the revisions as they were named (a branch, a
	// tag, HEAD~1 or a commit id); BaseSHA and HeadSHA the full commit
	// ids they resolved to when the analysis ran, empty in documents
	// written before they were added.
	Base    string `json:"base"`
	Head    string `json:"head"`
	BaseSHA string `json:"base_sha,omitempty"`
	HeadSHA string `json:"head_sha,omitempty"`
	// Tool is the build of culprit that ran the analysis.
	Tool  *Tool  `json:"tool,omitempty"`
	Hunks []Hunk `json:"hunks"`
	// Root are the hunks whose revert makes the test pass; Aux the hunks
	// reverted with them so that the code compiles.
	Root []HunkID `json:"root"`
	Aux  []HunkID `json:"aux"`
	// AuxNeeds says why each auxiliary hunk that was checked is needed:
	// the first compiler error of the variant that reverts the root and
	// every other auxiliary hunk but not this one.
	AuxNeeds []AuxNeed `json:"aux_needs,omitempty"`
	Proof    *Proof    `json:"proof"`
	// Tree is the causal tree, null when the explanation is dynamic only.
	Tree *Node `json:"tree"`
	// Chain is the short account of the failure the explanation opens
	// with, each step beside its instance in the passing run.
	Chain []Statement `json:"chain,omitempty"`
	Stats Stats       `json:"stats"`
	// Notes are the findings (and what Subtests says) in words, for
	// readers that do not know the codes. The engine leaves them empty;
	// the report package words them when it writes the document.
	Notes []string `json:"notes"`
	// Findings say where the analysis fell back or degraded, as codes
	// with their data, in the order they arose.
	Findings Findings `json:"findings,omitempty"`
	// Evidence are the classification runs of base and head.
	Evidence []Run `json:"evidence"`
	// Flakiness holds the failure rates of a test whose outcomes on head
	// were mixed (statuses flaky and flaky-regression), and the runs of
	// the variants the noisy revert search judged.
	Flakiness *Flakiness `json:"flakiness,omitempty"`
	// Failure is the first failure seen on head.
	Failure Failure `json:"failure"`
	// Subtests, when the named test has failing subtests, says which one
	// was explained and which were not.
	Subtests *Subtests `json:"subtests,omitempty"`
}

// Hunk returns the hunk with the given id.
func (r *Report) Hunk(id HunkID) (Hunk, bool) {
	// Ids usually count from 1 in order: try the direct position first.
	if i := int(id) - 1; i >= 0 && i < len(r.Hunks) && r.Hunks[i].ID == id {
		return r.Hunks[i], true
	}
	for _, h := range r.Hunks {
		if h.ID == id {
			return h, true
		}
	}
	return Hunk{}, false
}

// AuxNeed is why one auxiliary hunk is needed: without it, the compiler
// stops at File:Line with Error (the compiler's words, about the pull
// request's code).
type AuxNeed struct {
	Hunk  HunkID `json:"hunk"`
	File  string `json:"file"`
	Line  int    `json:"line"`
	Error string `json:"error"`
}

// Tool names a build of culprit: its module version ("v1.2.0", a
// pseudo-version for a build from a checkout, or "(devel)") and the VCS
// revision it was built from, when the build recorded one.
type Tool struct {
	Version  string `json:"version"`
	Revision string `json:"revision,omitempty"`
	// Modified says the build's working tree had uncommitted changes, so
	// Revision alone does not give its source.
	Modified bool `json:"modified,omitempty"`
}

// Test names the failing test: a Go test by package and name, or a shell
// command in command mode.
type Test struct {
	Package string `json:"package"`
	Name    string `json:"name"`
	Command string `json:"command,omitempty"`
}

// Hunk is one revertible change of the PR. Line ranges are 1-based and
// inclusive; an empty side is [n, n-1], the point just before line n.
type Hunk struct {
	ID        HunkID `json:"id"`
	File      string `json:"file"`
	OldFile   string `json:"old_file"`
	BaseLines [2]int `json:"base_lines"`
	HeadLines [2]int `json:"head_lines"`
	// Kind is "modify", "add", "delete", "rename", "binary" or "mode".
	Kind string `json:"kind"`
	Func string `json:"func,omitempty"`
	Diff string `json:"diff"`
	// Test marks a hunk of the failing test's own files: part of what the
	// test expects, never a root.
	Test bool `json:"test,omitempty"`
}

// Proof is the run with the root and auxiliary hunks reverted.
type Proof struct {
	Reverted []HunkID `json:"reverted"`
	// Outcome is a trial's: "pass", "fail", "build-error", "timeout",
	// "crash" or "no-tests".
	Outcome         string  `json:"outcome"`
	Signature       string  `json:"signature,omitempty"`
	DurationSeconds float64 `json:"duration_seconds"`
}

// Stats describe what the analysis cost.
type Stats struct {
	Strategy   string `json:"strategy"`
	Trials     int    `json:"trials"`
	Builds     int    `json:"builds"`
	TypeChecks int    `json:"type_checks,omitempty"`
	// TypeAccepted are compile-only checks answered "compiles" by
	// type-checking in process.
	TypeAccepted    int     `json:"type_accepted,omitempty"`
	CacheHits       int     `json:"cache_hits"`
	WallSeconds     float64 `json:"wall_seconds"`
	SemanticSeconds float64 `json:"semantic_seconds"`
	ContrastSeconds float64 `json:"contrast_seconds,omitempty"`
	SolverCalls     int     `json:"solver_calls"`
	Clauses         int     `json:"clauses"`
	SliceSize       int     `json:"slice_size"`
	PointWise       int     `json:"point_wise"`
	Inputs          int     `json:"inputs"`
	Rounds          int     `json:"rounds,omitempty"` // trials on the critical path: rounds of independent trials, which runners may run side by side
}

// Sides of a classification run.
const (
	SideBase = "base"
	SideHead = "head"
)

// Run is one classification run of base or head.
type Run struct {
	Side      string `json:"side"`
	Outcome   string `json:"outcome"`
	Signature string `json:"signature,omitempty"`
	Message   string `json:"message,omitempty"`
}

// Failure is how the test failed on head.
type Failure struct {
	Signature string `json:"signature,omitempty"`
	Message   string `json:"message,omitempty"`
	// Traced marks the message of the traced failing run, whose values
	// the tree shows, given instead of the first failing run's because
	// that run printed another instance of the assertion (goroutines or
	// a map's order made another fail first).
	Traced bool `json:"traced,omitempty"`
}

// Subtests sorts the failing leaf subtests of the named test.
type Subtests struct {
	// Explained is the subtest the analysis explained.
	Explained string `json:"explained,omitempty"`
	// Same fail with Explained's signature: the explanation covers them.
	Same []string `json:"same,omitempty"`
	// Other regressed too, with another signature, and were not explained.
	Other []string `json:"other,omitempty"`
	// New do not exist on base: they are new in the change, not regressions.
	New []string `json:"new,omitempty"`
}
