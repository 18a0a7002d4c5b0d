package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/culprit-dev/culprit/analyzer"
	"github.com/culprit-dev/culprit/analyzer/cause"
	"github.com/culprit-dev/culprit/analyzer/note"
	"github.com/culprit-dev/culprit/analyzer/trial"
	"github.com/culprit-dev/culprit/diffhunks"
)

// Version is the version of the JSON document written by WriteJSON.
const Version = 1

// Report is the JSON document of one analysis ("Report JSON" in
// ARCHITECTURE.md). Field names and meanings are a contract; new fields may
// be added, none renamed.
type Report struct {
	Version int             `json:"version"`
	Status  analyzer.Status `json:"status"`
	Test    Test            `json:"test"`
	Base    string          `json:"base"`
	Head    string          `json:"head"`
	Hunks   []Hunk          `json:"hunks"`
	// Root are the ids of the hunks whose revert makes the test pass; Aux
	// the ids of the hunks reverted with them so that the code compiles.
	Root  []int  `json:"root"`
	Aux   []int  `json:"aux"`
	Proof *Proof `json:"proof"`
	// Tree is the causal tree, null when the explanation is dynamic only.
	Tree *cause.Node `json:"tree"`
	// Chain is the short account of the failure the explanation opens
	// with, each step beside its instance in the passing run.
	Chain []cause.Statement `json:"chain,omitempty"`
	Stats Stats             `json:"stats"`
	// Notes state where the analysis fell back or degraded, in words;
	// Findings are the same notes as codes with their data.
	Notes    []string  `json:"notes"`
	Findings note.List `json:"findings,omitempty"`
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

// Test names the failing test.
type Test struct {
	Package string `json:"package"`
	Name    string `json:"name"`
	Command string `json:"command,omitempty"`
}

// Hunk is one revertible change of the PR. Line ranges are 1-based and
// inclusive; an empty side is [n, n-1], the point just before line n.
type Hunk struct {
	ID        int    `json:"id"`
	File      string `json:"file"`
	OldFile   string `json:"old_file"`
	BaseLines [2]int `json:"base_lines"`
	HeadLines [2]int `json:"head_lines"`
	Kind      string `json:"kind"`
	Func      string `json:"func,omitempty"`
	Diff      string `json:"diff"`
	// Test marks a hunk of the failing test's own files: part of what the
	// test expects, never a root.
	Test bool `json:"test,omitempty"`
}

// Proof is the run with the root and auxiliary hunks reverted.
type Proof struct {
	Reverted        []int   `json:"reverted"`
	Outcome         string  `json:"outcome"`
	Signature       string  `json:"signature,omitempty"`
	DurationSeconds float64 `json:"duration_seconds"`
}

// Stats describe what the analysis cost.
type Stats struct {
	Strategy        string  `json:"strategy"`
	Trials          int     `json:"trials"`
	Builds          int     `json:"builds"`
	TypeChecks      int     `json:"type_checks,omitempty"`
	CacheHits       int     `json:"cache_hits"`
	WallSeconds     float64 `json:"wall_seconds"`
	SemanticSeconds float64 `json:"semantic_seconds"`
	ContrastSeconds float64 `json:"contrast_seconds,omitempty"`
	SolverCalls     int     `json:"solver_calls"`
	Clauses         int     `json:"clauses"`
	SliceSize       int     `json:"slice_size"`
	PointWise       int     `json:"point_wise"`
	Inputs          int     `json:"inputs"`
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
}

// Interventions are the traced runs behind a chain found by intervention.
type Interventions struct {
	Traced         int                `json:"traced_runs"`
	TracedFailures int                `json:"traced_failures"`
	Tests          []InterventionTest `json:"tests,omitempty"`
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

// RaceAccess is one side of a race at its innermost place in the module.
type RaceAccess struct {
	Op   string `json:"op"`
	Func string `json:"func"`
	File string `json:"file"`
	Line int    `json:"line"`
	Hunk int    `json:"hunk,omitempty"`
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
	Reverted      []int  `json:"reverted"`
	Runs          int    `json:"runs"`
	Failures      int    `json:"failures"`
	Verdict       string `json:"verdict"`
	ProofRuns     int    `json:"proof_runs,omitempty"`
	ProofFailures int    `json:"proof_failures,omitempty"`
}

// Failure is how the test failed on head.
type Failure struct {
	Signature string `json:"signature,omitempty"`
	Message   string `json:"message,omitempty"`
}

// New builds the document of res. It copies what it keeps, so later changes
// to res do not show through.
func New(res *analyzer.Result) *Report {
	r := &Report{
		Version: Version,
		Status:  res.Status,
		Test: Test{
			Package: res.Test.Package,
			Name:    res.Test.Name,
			Command: res.Test.Command,
		},
		Base:     res.Base,
		Head:     res.Head,
		Hunks:    make([]Hunk, 0, len(res.Hunks)),
		Root:     ids(res.Root),
		Aux:      ids(res.Aux),
		Tree:     copyNode(res.Tree),
		Chain:    copyStatements(res.Chain),
		Notes:    make([]string, 0, len(res.Notes)),
		Findings: append(note.List(nil), res.Notes...),
		Evidence: []Run{},
		Stats: Stats{
			Strategy:        string(res.Stats.Strategy),
			Trials:          res.Stats.Trials,
			Builds:          res.Stats.Builds,
			TypeChecks:      res.Stats.TypeChecks,
			CacheHits:       res.Stats.CacheHits,
			WallSeconds:     res.Stats.Wall.Seconds(),
			SemanticSeconds: res.Stats.Semantic.Seconds(),
			ContrastSeconds: res.Stats.Contrast.Seconds(),
			SolverCalls:     res.Stats.SolverCalls,
			Clauses:         res.Stats.Clauses,
			SliceSize:       res.Stats.SliceSize,
			PointWise:       res.Stats.PointWise,
			Inputs:          res.Stats.Inputs,
		},
	}
	for _, n := range res.Notes {
		r.Notes = append(r.Notes, words(n))
	}
	if st := res.Subtests; st.Leaf != "" || len(st.New) > 0 {
		r.Subtests = &Subtests{Explained: st.Leaf, Same: st.Same, Other: st.Other, New: st.New}
		r.Notes = append(r.Notes, r.Subtests.notes()...)
	}
	for _, h := range res.Hunks {
		r.Hunks = append(r.Hunks, Hunk{
			ID:        int(h.ID),
			File:      h.File,
			OldFile:   h.OldFile,
			BaseLines: [2]int{h.Base.Start, h.Base.End},
			HeadLines: [2]int{h.Head.Start, h.Head.End},
			Kind:      string(h.Kind),
			Func:      h.Func,
			Diff:      h.Diff,
			Test:      slices.Contains(res.Spec, h.ID),
		})
	}
	slices.SortStableFunc(r.Hunks, func(a, b Hunk) int { return a.ID - b.ID })
	if p := res.Proof; p != nil {
		r.Proof = &Proof{
			Reverted:        ids(p.Reverted),
			Outcome:         string(p.Outcome),
			Signature:       p.Signature,
			DurationSeconds: p.Duration.Seconds(),
		}
	}
	r.Flakiness = flakiness(res.Flakiness)
	for _, e := range res.Evidence {
		side, ok := sideOf(e, res.Hunks)
		if !ok {
			continue
		}
		run := Run{Side: side, Outcome: string(e.Outcome), Signature: e.Signature, Message: e.Message}
		r.Evidence = append(r.Evidence, run)
		if side == SideHead && e.Outcome != trial.Pass && r.Failure == (Failure{}) {
			r.Failure = Failure{Signature: e.Signature, Message: e.Message}
		}
	}
	return r
}

func flakiness(f *analyzer.Flakiness) *Flakiness {
	if f == nil {
		return nil
	}
	out := &Flakiness{
		Workers: f.Workers,
		Head:    HeadRate{Runs: f.Head.Runs, Failures: f.Head.Failures, Rate: f.Head.Rate, CI: [2]float64{f.Head.CI.Lo, f.Head.CI.Hi}},
		Base:    BaseRate{Runs: f.Base.Runs, Failures: f.Base.Failures, Upper: f.Base.Upper},
	}
	for _, v := range f.Variants {
		out.Variants = append(out.Variants, VariantRuns{Reverted: ids(v.Reverted), Runs: v.Runs, Failures: v.Failures,
			Verdict: v.Verdict, ProofRuns: v.ProofRuns, ProofFailures: v.ProofFailures})
	}
	if iv := f.Interventions; iv != nil {
		out.Interventions = &Interventions{Traced: iv.Traced, TracedFailures: iv.TracedFailures}
		for _, t := range iv.Tests {
			out.Interventions.Tests = append(out.Interventions.Tests, InterventionTest{Items: slices.Clone(t.Items),
				Runs: t.Runs, Valid: t.Valid, Failures: t.Failures, Reused: t.Reused, Verdict: t.Verdict, Placebo: t.Placebo})
		}
	}
	if rr := f.Race; rr != nil {
		out.Race = &Race{Runs: rr.Runs, Unavailable: rr.Unavailable}
		for _, rep := range rr.Reports {
			var acc []RaceAccess
			for _, a := range rep.Accesses {
				acc = append(acc, RaceAccess{Op: a.Op, Func: a.Func, File: a.File, Line: a.Line, Hunk: int(a.Hunk)})
			}
			out.Race.Reports = append(out.Race.Reports, RaceReport{Accesses: acc})
		}
	}
	return out
}

// sideOf tells which tree a classification run ran: head reverts nothing,
// base reverts every hunk. Any other run is a trial, not evidence.
func sideOf(e trial.Result, hunks []diffhunks.Hunk) (string, bool) {
	if len(e.Reverted) == 0 {
		return SideHead, true
	}
	all := make(map[diffhunks.ID]bool, len(hunks))
	for _, h := range hunks {
		all[h.ID] = true
	}
	seen := make(map[diffhunks.ID]bool, len(e.Reverted))
	for _, id := range e.Reverted {
		if !all[id] {
			return "", false
		}
		seen[id] = true
	}
	return SideBase, len(seen) == len(all)
}

func ids(in []diffhunks.ID) []int {
	out := make([]int, 0, len(in))
	for _, id := range in {
		out = append(out, int(id))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// copyNode deep-copies a causal tree, dropping empty value maps so that the
// copy survives a JSON round trip unchanged.
func copyNode(n *cause.Node) *cause.Node {
	if n == nil {
		return nil
	}
	c := &cause.Node{
		Target:  copyStatement(n.Target),
		Outcome: n.Outcome,
		Link:    n.Link,
		Effect:  n.Effect,
		Fact:    n.Fact,
	}
	if n.Via != nil {
		v := copyStatement(*n.Via)
		c.Via = &v
	}
	if n.Statements != nil {
		c.Statements = make([]cause.Statement, len(n.Statements))
		for i, s := range n.Statements {
			c.Statements[i] = copyStatement(s)
		}
	}
	for _, ch := range n.Children {
		if ch != nil {
			c.Children = append(c.Children, copyNode(ch))
		}
	}
	return c
}

func copyStatement(s cause.Statement) cause.Statement {
	s.Values = copyValues(s.Values)
	if s.Passing != nil {
		p := *s.Passing
		p.Values = copyValues(p.Values)
		s.Passing = &p
	}
	return s
}

func copyStatements(sts []cause.Statement) []cause.Statement {
	if len(sts) == 0 {
		return nil
	}
	out := make([]cause.Statement, len(sts))
	for i, s := range sts {
		out[i] = copyStatement(s)
	}
	return out
}

// copyValues copies a value map; an empty one becomes nil, as JSON
// leaves it out.
func copyValues(v map[string]string) map[string]string {
	if len(v) == 0 {
		return nil
	}
	return maps.Clone(v)
}

// WriteJSON writes r as indented JSON with fields in a fixed order.
func (r *Report) WriteJSON(w io.Writer) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // diffs are full of < and &; keep them readable
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return fmt.Errorf("encoding report: %w", err)
	}
	if _, err := w.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("writing report: %w", err)
	}
	return nil
}

// ReadJSON reads a document written by WriteJSON. It rejects other
// versions, unknown statuses and documents whose ids do not add up; fields
// it does not know are ignored, as newer writers may add some.
func ReadJSON(rd io.Reader) (*Report, error) {
	data, err := io.ReadAll(rd)
	if err != nil {
		return nil, fmt.Errorf("reading report: %w", err)
	}
	var head struct {
		Version *int `json:"version"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("decoding report JSON: %w", err)
	}
	if head.Version == nil {
		return nil, errors.New("decoding report JSON: no \"version\" field; not a culprit report")
	}
	if *head.Version != Version {
		return nil, fmt.Errorf("decoding report JSON: unsupported version %d (this culprit reads version %d)", *head.Version, Version)
	}
	r := new(Report)
	if err := json.Unmarshal(data, r); err != nil {
		return nil, fmt.Errorf("decoding report JSON: %w", err)
	}
	if err := r.validate(); err != nil {
		return nil, fmt.Errorf("decoding report JSON: %w", err)
	}
	r.normalize()
	return r, nil
}

// normalize gives absent lists the empty value New gives them.
func (r *Report) normalize() {
	if r.Hunks == nil {
		r.Hunks = []Hunk{}
	}
	if r.Root == nil {
		r.Root = []int{}
	}
	if r.Aux == nil {
		r.Aux = []int{}
	}
	if r.Notes == nil {
		r.Notes = []string{}
	}
	if r.Evidence == nil {
		r.Evidence = []Run{}
	}
	if r.Proof != nil && r.Proof.Reverted == nil {
		r.Proof.Reverted = []int{}
	}
}

// auxOnTree returns the auxiliary hunks, in their order, that hold a step
// of the causal tree.
func (r *Report) auxOnTree() []int { return r.auxWhere(nil) }

// auxChanged returns the auxiliary hunks that hold a step of the causal
// tree where the run without the change did otherwise.
func (r *Report) auxChanged() []int { return r.auxWhere(cause.Statement.Changed) }

// auxWhere returns the auxiliary hunks, in their order, that hold a step
// of the causal tree for which keep is true (any step when keep is nil).
func (r *Report) auxWhere(keep func(cause.Statement) bool) []int {
	on := r.Tree.Hunks(keep)
	var out []int
	for _, id := range r.Aux {
		if on[diffhunks.ID(id)] {
			out = append(out, id)
		}
	}
	return out
}

// hunk returns the hunk with the given id.
func (r *Report) hunk(id int) (Hunk, bool) {
	// Ids usually count from 1 in order: try the direct position first.
	if i := id - 1; i >= 0 && i < len(r.Hunks) && r.Hunks[i].ID == id {
		return r.Hunks[i], true
	}
	for _, h := range r.Hunks {
		if h.ID == id {
			return h, true
		}
	}
	return Hunk{}, false
}

// notes words what Subtests found, for the report's notes.
func (s *Subtests) notes() []string {
	var out []string
	if s.Explained != "" {
		out = append(out, fmt.Sprintf("explained the failing subtest %s, which passes on base", code(s.Explained)))
	}
	if len(s.Same) > 0 {
		out = append(out, fmt.Sprintf("%d more subtest(s) fail at the same place, so this explanation covers them: %s", len(s.Same), codeList(s.Same)))
	}
	if len(s.Other) > 0 {
		out = append(out, fmt.Sprintf("%d more regressed subtest(s) fail elsewhere and were not explained (run again naming one): %s", len(s.Other), codeList(s.Other)))
	}
	if len(s.New) > 0 {
		out = append(out, fmt.Sprintf("%d failing subtest(s) do not exist on base: they are new in this change, so their failure is not a regression: %s", len(s.New), codeList(s.New)))
	}
	return out
}

// codeList quotes up to ten names, saying how many more there are.
func codeList(names []string) string {
	const most = 10
	quoted := make([]string, 0, min(len(names), most))
	for _, n := range names[:min(len(names), most)] {
		quoted = append(quoted, code(n))
	}
	out := strings.Join(quoted, ", ")
	if len(names) > most {
		out += fmt.Sprintf(" and %d more", len(names)-most)
	}
	return out
}
