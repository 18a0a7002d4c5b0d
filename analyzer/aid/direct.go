package aid

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/culprit-dev/culprit/analyzer/note"
	"github.com/culprit-dev/culprit/analyzer/result"
	"github.com/culprit-dev/culprit/analyzer/trace"
)

// maxDirect bounds the functions direct serialises, a group test each.
const maxDirect = 4

// Timing is the fact of a step found by direct intervention: overlapping
// calls of the function that holds the root hunks decide the failure,
// although no fact the traced runs recorded told failing runs from passing
// ones (result.Node.Fact).
const Timing = "timing"

// direct intervenes on the functions that hold the root hunks (Bounds.
// Direct) when no observed fact tells the failing traced runs from the
// passing ones (FLAKY.md, the observer effect: "intervene directly with
// predicates derived from the hunks"). Each function's calls are run one
// at a time (serial:F) and judged against traced head's rate like any
// group test; a serialisation that stops the failure is checked against
// a delay of the same mean length on entering the function, and is only
// correlated when that stops it too. Each function that stops the failure
// is a one-step chain under F: timing inside it decides the failure.
func (g *giwp) direct(ctx context.Context, ex *Explanation) error {
	fns := g.opt.Direct
	if len(fns) > maxDirect {
		fns = fns[:maxDirect]
	}
	rate := float64(g.ob.Failures) / float64(g.ob.Runs)
	root := tree(g.ob, nil)
	for _, fn := range fns {
		if g.exhausted(ctx) {
			break
		}
		iv, _, err := g.runTest(ctx, Intervention{Items: []string{fmt.Sprintf("serial:%d", fn)}}, g.judgeDirect, 0)
		if err != nil {
			return err
		}
		if iv.Verdict != Stopped {
			continue
		}
		link := Confirmed
		if iv.waited > 0 && iv.applied > 0 && !g.exhausted(ctx) {
			wait := iv.waited / time.Duration(iv.applied)
			pl := Intervention{Items: []string{fmt.Sprintf("delay:%d=%s", fn, wait)}, Placebo: true}
			pl, _, err := g.runTest(ctx, pl, g.judgeDirect, placeboRuns*iv.Runs)
			if err != nil {
				return err
			}
			if pl.Verdict == Stopped {
				link = Correlated
			}
		}
		st := g.directStatement(fn)
		n := &result.Node{Target: st, Statements: []result.Statement{st}, Link: link, Fact: Timing}
		if link == Confirmed {
			n.Effect = fmt.Sprintf("%.2f → %d/%d", rate, iv.Failures, iv.Valid)
		}
		root.Children = append(root.Children, n)
	}
	ex.Interventions = g.tests
	if len(root.Children) == 0 {
		// The note that nothing discriminated says, in M, how many of
		// these functions were serialised without stopping the failure.
		persisted := 0
		for _, t := range g.tests {
			if !t.Placebo && t.Verdict == Persists {
				persisted++
			}
		}
		for i := range ex.Notes {
			if ex.Notes[i].Code == note.NoDiscriminator {
				ex.Notes[i].M = persisted
			}
		}
		return nil
	}
	ex.Tree = root
	ex.Notes = slices.DeleteFunc(ex.Notes, func(n result.Note) bool { return n.Code == note.NoDiscriminator })
	if g.ob.Sample != nil {
		ex.Output = g.ob.Sample.Result.Output
	}
	ex.Notes.Add(result.Note{Code: note.DirectIntervention, N: len(root.Children)})
	return nil
}

// judgeDirect counts every valid run of a direct test: there is no
// candidate whose absence a passing run must show.
func (g *giwp) judgeDirect(rn seen, _ []int) (testedRun, runClass) {
	if rn.class != countedRun {
		return testedRun{}, rn.class
	}
	return testedRun{failing: rn.o.failing}, countedRun
}

// directStatement names function site fn for a step: its first statement
// in the code the caller prefers (a root hunk's line), else its
// declaration.
func (g *giwp) directStatement(fn trace.SiteID) result.Statement {
	sites := g.ob.sites
	if int(fn) <= 0 || int(fn) >= len(sites) {
		return result.Statement{}
	}
	decl := sites[fn]
	at := decl
	if g.opt.Prefer != nil {
		for _, s := range sites {
			if s.ID != fn && s.Kind != trace.SiteFunc && s.Func == decl.Func && g.opt.Prefer(s.ID) &&
				(at.ID == fn || s.Pos.Line < at.Pos.Line) {
				at = s
			}
		}
	}
	return result.Statement{File: at.Pos.File, Line: at.Pos.Line, Text: at.Text}
}
