package analyzer

import (
	"cmp"
	"fmt"
	"maps"
	"slices"

	"github.com/culprit-dev/culprit/analyzer/gotest"
	"github.com/culprit-dev/culprit/analyzer/result"
	"github.com/culprit-dev/culprit/analyzer/trial"
	"github.com/culprit-dev/culprit/diffhunks"
)

// Document gives res in the form of the report JSON, the one the report
// package renders and the Action writes and posts. It copies what it
// keeps, so later changes to res do not show through. Findings keep their
// codes; the report package words them.
func (res *Result) Document() *result.Report {
	r := &result.Report{
		Version:   result.Version,
		Status:    res.Status,
		Test:      result.Test{Package: res.Test.Package, Name: res.Test.Name, Command: res.Test.Command},
		Base:      res.Base,
		Head:      res.Head,
		BaseSHA:   res.BaseSHA,
		HeadSHA:   res.HeadSHA,
		Hunks:     documentHunks(res.Hunks, res.TestHunks),
		Root:      sortedIDs(res.Root),
		Aux:       sortedIDs(res.Aux),
		AuxNeeds:  res.AuxNeeds,
		Tree:      copyNode(res.Tree),
		Chain:     copyStatements(res.Chain),
		Notes:     []string{},
		Findings:  append(result.Findings(nil), res.Notes...),
		Flakiness: documentFlakiness(res.Flakiness),
		Stats:     documentCost(res.Cost),
	}
	if res.Tool != (result.Tool{}) {
		tool := res.Tool
		r.Tool = &tool
	}
	if st := res.Subtests; st.Leaf != "" || len(st.New) > 0 {
		r.Subtests = &result.Subtests{Explained: st.Leaf, Same: st.Same, Other: st.Other, New: st.New}
	}
	if p := res.Proof; p != nil {
		r.Proof = &result.Proof{
			Reverted:        sortedIDs(p.Reverted),
			Outcome:         string(p.Outcome),
			Signature:       p.Signature,
			DurationSeconds: p.Duration.Seconds(),
		}
	}
	r.Evidence, r.Failure = documentEvidence(res.Evidence, res.Hunks)
	r.Failure = tracedFailure(r.Failure, r.Tree, res.tracedOutput)
	return r
}

// tracedFailure is the failure the tree explains. The first failing run
// may have printed another instance of the failed assertion than the one
// traced (goroutines, a map's order): when its message does not print the
// values the tree shows there and a message of the traced run at the same
// place does, that message is given, marked Traced.
func tracedFailure(first result.Failure, tree *result.Node, traced string) result.Failure {
	if tree == nil || traced == "" || tree.Target.Text == "" {
		return first
	}
	st := tree.Target
	if p, ok := gotest.CheckPrinted(st.Text, st.Values, first.Message); !ok || p.Consistent() {
		return first
	}
	for _, msg := range gotest.MessagesAt(traced, st.File, st.Line) {
		if p, _ := gotest.CheckPrinted(st.Text, st.Values, msg); p.Consistent() && p.Checked > 0 {
			return result.Failure{Signature: fmt.Sprintf("%s:%d", st.File, st.Line), Message: msg, Traced: true}
		}
	}
	return first
}

// documentHunks gives the hunks in the order of their ids, those of the
// test's own files (testHunks) marked.
func documentHunks(hunks []diffhunks.Hunk, testHunks []diffhunks.ID) []result.Hunk {
	out := make([]result.Hunk, 0, len(hunks))
	for _, h := range hunks {
		out = append(out, result.Hunk{
			ID:        h.ID,
			File:      h.File,
			OldFile:   h.OldFile,
			BaseLines: [2]int{h.Base.Start, h.Base.End},
			HeadLines: [2]int{h.Head.Start, h.Head.End},
			Kind:      string(h.Kind),
			Func:      h.Func,
			Diff:      h.Diff,
			Test:      slices.Contains(testHunks, h.ID),
		})
	}
	slices.SortStableFunc(out, func(a, b result.Hunk) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

func documentCost(s Cost) result.Stats {
	return result.Stats{
		Strategy:        string(s.Strategy),
		Trials:          s.Trials,
		Builds:          s.Builds,
		TypeChecks:      s.TypeChecks,
		TypeAccepted:    s.TypeAccepted,
		CacheHits:       s.CacheHits,
		Rounds:          s.Rounds,
		WallSeconds:     s.Wall.Seconds(),
		SemanticSeconds: s.Semantic.Seconds(),
		ContrastSeconds: s.Contrast.Seconds(),
		SolverCalls:     s.SolverCalls,
		Clauses:         s.Clauses,
		SliceSize:       s.SliceSize,
		PointWise:       s.PointWise,
		Inputs:          s.Inputs,
	}
}

// documentEvidence gives the classification runs among evidence, and the
// first failure of head among them.
func documentEvidence(evidence []trial.Result, hunks []diffhunks.Hunk) ([]result.Run, result.Failure) {
	runs := []result.Run{}
	var failure result.Failure
	for _, e := range evidence {
		side, ok := sideOf(e, hunks)
		if !ok {
			continue
		}
		runs = append(runs, result.Run{Side: side, Outcome: string(e.Outcome), Signature: e.Signature, Message: e.Message})
		if side == result.SideHead && e.Outcome != trial.Pass && failure == (result.Failure{}) {
			failure = result.Failure{Signature: e.Signature, Message: e.Message}
		}
	}
	return runs, failure
}

// sideOf tells which tree a classification run ran: head reverts nothing,
// base reverts every hunk. Any other run is a trial, not evidence.
func sideOf(e trial.Result, hunks []diffhunks.Hunk) (string, bool) {
	if len(e.Reverted) == 0 {
		return result.SideHead, true
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
	return result.SideBase, len(seen) == len(all)
}

func documentFlakiness(f *Flakiness) *result.Flakiness {
	if f == nil {
		return nil
	}
	out := &result.Flakiness{
		Workers: f.Workers,
		Head: result.HeadRate{Runs: f.Head.Runs, Failures: f.Head.Failures, Rate: f.Head.Rate,
			CI: [2]float64{f.Head.CI.Lo, f.Head.CI.Hi}},
		Base: result.BaseRate{Runs: f.Base.Runs, Failures: f.Base.Failures, Upper: f.Base.Upper},
	}
	for _, v := range f.Variants {
		out.Variants = append(out.Variants, result.VariantRuns{Reverted: sortedIDs(v.Reverted), Runs: v.Runs,
			Failures: v.Failures, Verdict: v.Verdict, ProofRuns: v.ProofRuns, ProofFailures: v.ProofFailures})
	}
	if iv := f.Interventions; iv != nil {
		out.Interventions = &result.Interventions{Traced: iv.Traced, TracedFailures: iv.TracedFailures, Perturb: iv.Perturb, Unperturbed: iv.Unperturbed}
		for _, t := range iv.Tests {
			out.Interventions.Tests = append(out.Interventions.Tests, result.InterventionTest{Items: slices.Clone(t.Items),
				Runs: t.Runs, Valid: t.Valid, Failures: t.Failures, Reused: t.Reused, Verdict: t.Verdict, Placebo: t.Placebo})
		}
	}
	if a := f.Amplification; a != nil {
		out.Amplification = &result.Amplification{Iterations: a.Chosen.PerProcess(), GoMaxProcs: a.Chosen.GoMaxProcs,
			Perturb: a.Chosen.Perturb, Seed: a.FailingSeed, NoneFailed: a.NoneFailed}
		for _, t := range a.Tried {
			out.Amplification.Tried = append(out.Amplification.Tried, result.AmplificationRuns{Iterations: t.Amplification.PerProcess(),
				GoMaxProcs: t.Amplification.GoMaxProcs, Perturb: t.Amplification.Perturb, Runs: t.Runs, Failures: t.Failures, Seconds: t.Seconds})
		}
	}
	if rr := f.Race; rr != nil {
		out.Race = &result.Race{Runs: rr.Runs, Unavailable: rr.Unavailable}
		for _, rep := range rr.Reports {
			var acc []result.RaceAccess
			for _, a := range rep.Accesses {
				acc = append(acc, result.RaceAccess{Op: a.Op, Func: a.Func, File: a.File, Line: a.Line, Hunk: a.Hunk})
			}
			out.Race.Reports = append(out.Race.Reports, result.RaceReport{Accesses: acc})
		}
	}
	return out
}

// sortedIDs copies ids sorted, each once; never nil, as the document
// writes an empty list rather than null.
func sortedIDs(ids []diffhunks.ID) []diffhunks.ID {
	out := slices.Clone(ids)
	if out == nil {
		out = []diffhunks.ID{}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// copyNode deep-copies a causal tree, dropping empty value maps so that the
// copy survives a JSON round trip unchanged.
func copyNode(n *result.Node) *result.Node {
	if n == nil {
		return nil
	}
	c := &result.Node{
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
		c.Statements = make([]result.Statement, len(n.Statements))
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

func copyStatement(s result.Statement) result.Statement {
	s.Values = copyValues(s.Values)
	if s.Passing != nil {
		p := *s.Passing
		p.Values = copyValues(p.Values)
		s.Passing = &p
	}
	return s
}

func copyStatements(sts []result.Statement) []result.Statement {
	if len(sts) == 0 {
		return nil
	}
	out := make([]result.Statement, len(sts))
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
