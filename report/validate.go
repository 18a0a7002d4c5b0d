package report

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/culprit-dev/culprit/analyzer/result"
)

// validate checks what ReadJSON cannot leave to the renderer: that the
// ids add up, and that every enumerated field holds a value this version
// writes. A report artifact is written by a run of the pull request's
// code, so an unknown value is refused rather than shown as "unknown":
// the same version wrote it (ReadJSON checks that), so only a forged or
// corrupted document holds one, and much of the wording (the verdict, the
// proof, the fold a verdict sits in) depends on these values; a comment
// that guessed would say what no analysis found.
func validate(r *result.Report) error {
	if !r.Status.Known() {
		return fmt.Errorf("unknown status %q", r.Status)
	}
	if err := validateIDs(r); err != nil {
		return err
	}
	return validateValues(r)
}

func validateIDs(r *result.Report) error {
	known := make(map[result.HunkID]bool, len(r.Hunks))
	for _, h := range r.Hunks {
		if known[h.ID] {
			return fmt.Errorf("hunk id %d appears twice", h.ID)
		}
		known[h.ID] = true
		for _, lr := range [][2]int{h.BaseLines, h.HeadLines} {
			if lr[1] < lr[0]-1 {
				return fmt.Errorf("hunk %d: bad line range [%d, %d]", h.ID, lr[0], lr[1])
			}
		}
	}
	check := func(what string, list []result.HunkID) error {
		for _, id := range list {
			if !known[id] {
				return fmt.Errorf("%s names hunk %d, which is not in hunks", what, id)
			}
		}
		return nil
	}
	if err := check("root", r.Root); err != nil {
		return err
	}
	if err := check("aux", r.Aux); err != nil {
		return err
	}
	if r.Proof != nil {
		if err := check("proof.reverted", r.Proof.Reverted); err != nil {
			return err
		}
	}
	for i, e := range r.Evidence {
		if e.Side != result.SideBase && e.Side != result.SideHead {
			return fmt.Errorf("evidence[%d]: side %q is neither %q nor %q", i, e.Side, result.SideBase, result.SideHead)
		}
	}
	f := r.Flakiness
	if f == nil {
		return nil
	}
	if f.Head.Failures > f.Head.Runs || f.Base.Failures > f.Base.Runs {
		return errors.New("flakiness: more failures than runs")
	}
	for i, v := range f.Variants {
		if err := check(fmt.Sprintf("flakiness.variants[%d].reverted", i), v.Reverted); err != nil {
			return err
		}
	}
	if rr := f.Race; rr != nil {
		for i, rep := range rr.Reports {
			for j, a := range rep.Accesses {
				if a.Hunk == 0 {
					continue
				}
				if err := check(fmt.Sprintf("flakiness.race.reports[%d].accesses[%d].hunk", i, j), []result.HunkID{a.Hunk}); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// The values of the enumerated fields, as this version writes them: the
// engine's constants, spelled out here because the report depends on the
// document alone (analyzer's TestDocumentValues checks that they agree).
var (
	// hunkKinds are diffhunks.Kind's.
	hunkKinds = setOf("modify", "add", "delete", "rename", "binary", "mode")
	// runOutcomes are trial.Outcome's; "" is a run without one.
	runOutcomes = setOf("", "pass", "fail", "build-error", "timeout", "crash", "no-tests")
	// strategies are the revert-search strategies (analyzer.Strategy).
	strategies = setOf("", "after", "dynamic", "ddmin", "one-by-one")
	// A variant's verdict is the noisy search's decision (stats.Decision),
	// or the outcome of a variant that could not run the test.
	variantVerdicts = setOf("passes", "fails", "undecided",
		"pass", "fail", "build-error", "timeout", "crash", "no-tests")
	// interventionVerdicts are aid.Verdict's.
	interventionVerdicts = setOf("stopped", "persists", "invalid", "undecided")
	// raceOps are the accesses gotest.Races parses.
	raceOps = setOf("read", "write", "previous read", "previous write")
	// links are how aid judged a chain's step (result.Node.Link).
	links = setOf("", "confirmed", "correlated")
	// facts are the families of aid's predicates, and timing: a
	// function's calls serialised directly (result.Node.Fact).
	facts = setOf("", "branch", "never", "interleave", "order", "remote-def", "value", "panic", "overlap", "timing")
	// stepOutcomes are a branch's ("true", "false", "no case"; "case n"
	// is checked apart) and the root's ("failed", "panic", "died").
	stepOutcomes = setOf("", "true", "false", "no case", "failed", "panic", "died")
)

func setOf(vs ...string) map[string]bool {
	m := make(map[string]bool, len(vs))
	for _, v := range vs {
		m[v] = true
	}
	return m
}

// enumErr collects the first enumerated field whose value is unknown.
type enumErr struct{ err error }

func (e *enumErr) in(set map[string]bool, value, path string, args ...any) {
	if e.err == nil && !set[value] {
		e.err = fmt.Errorf("%s: unknown value %.60q", fmt.Sprintf(path, args...), value)
	}
}

// step checks a step's outcomes: in stepOutcomes, or "case n".
func (e *enumErr) step(s result.Statement, path string) {
	e.outcome(s.Outcome, path+".outcome")
	if s.Passing != nil {
		e.outcome(s.Passing.Outcome, path+".passing.outcome")
	}
}

func (e *enumErr) outcome(o, path string) {
	if n, ok := strings.CutPrefix(o, "case "); ok {
		if _, err := strconv.Atoi(n); err == nil {
			return
		}
	}
	e.in(stepOutcomes, o, "%s", path)
}

func (e *enumErr) node(n *result.Node, path string) {
	if n == nil {
		if e.err == nil {
			e.err = fmt.Errorf("%s: null", path)
		}
		return
	}
	e.in(links, n.Link, "%s.link", path)
	e.in(facts, n.Fact, "%s.fact", path)
	e.outcome(n.Outcome, path+".outcome")
	e.step(n.Target, path+".target")
	if n.Via != nil {
		e.step(*n.Via, path+".via")
	}
	for i, s := range n.Statements {
		e.step(s, fmt.Sprintf("%s.statements[%d]", path, i))
	}
	for i, c := range n.Children {
		e.node(c, fmt.Sprintf("%s.children[%d]", path, i))
	}
}

// validateValues checks every enumerated field against its values.
func validateValues(r *result.Report) error {
	var e enumErr
	for i, h := range r.Hunks {
		e.in(hunkKinds, h.Kind, "hunks[%d].kind", i)
	}
	if r.Proof != nil {
		e.in(runOutcomes, r.Proof.Outcome, "proof.outcome")
	}
	for i, run := range r.Evidence {
		e.in(runOutcomes, run.Outcome, "evidence[%d].outcome", i)
	}
	e.in(strategies, r.Stats.Strategy, "stats.strategy")
	for i, n := range r.Findings {
		if strings.HasPrefix(words(result.Note{Code: n.Code}), unknownNote) && e.err == nil {
			e.err = fmt.Errorf("findings[%d].code: unknown value %.60q", i, n.Code)
		}
		e.in(runOutcomes, n.Outcome, "findings[%d].outcome", i)
	}
	if r.Tree != nil {
		e.node(r.Tree, "tree")
	}
	for i, s := range r.Chain {
		e.step(s, fmt.Sprintf("chain[%d]", i))
	}
	if f := r.Flakiness; f != nil {
		for i, v := range f.Variants {
			e.in(variantVerdicts, v.Verdict, "flakiness.variants[%d].verdict", i)
		}
		if iv := f.Interventions; iv != nil {
			for i, t := range iv.Tests {
				e.in(interventionVerdicts, t.Verdict, "flakiness.interventions.tests[%d].verdict", i)
			}
		}
		if rr := f.Race; rr != nil {
			for i, rep := range rr.Reports {
				for j, a := range rep.Accesses {
					e.in(raceOps, a.Op, "flakiness.race.reports[%d].accesses[%d].op", i, j)
				}
			}
		}
	}
	return e.err
}
