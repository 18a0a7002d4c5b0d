package aid

import (
	"fmt"
	"strconv"

	"github.com/culprit-dev/culprit/analyzer/result"
	"github.com/culprit-dev/culprit/analyzer/trace"
)

// Link kinds of a chain step.
const (
	Confirmed  = "confirmed"  // intervening on it alone stopped the failure
	Correlated = "correlated" // on the DAG path, but not shown causal: unintervenable or left open
)

// Step is one step of the chain: a candidate, its link, and its witness
// events in one failing trace.
type Step struct {
	Candidate *Candidate
	Link      string
	// Effect is the failure rate without → with its intervention
	// ("0.30 → 0/26"), "" when no single-candidate test decided it.
	Effect string
	tr     *trace.Trace
	w      Witness
}

// chain orders the steps: confirmed candidates and the correlated ones
// that lie after a confirmed one on the DAG (or all correlated ones when
// nothing was confirmed), in topological order. When the caller prefers
// sites (root hunks) and a confirmed step has one, the chain starts at
// the first such step: the steps before it are preconditions.
func (g *giwp) chain() (steps, pre []Step) {
	steps = g.steps()
	if g.opt.Prefer == nil {
		return steps, nil
	}
	for k, st := range steps {
		if st.Link == Confirmed && g.opt.preferred(st.Candidate) {
			return steps[k:], steps[:k]
		}
	}
	return steps, nil
}

func (g *giwp) steps() []Step {
	var steps []Step
	for _, i := range g.d.order {
		link := ""
		switch {
		case g.confirmed[i]:
			link = Confirmed
		case g.discarded[i]:
			continue
		default: // unintervenable, open when the budget ran out, or downgraded by its placebo
			after := len(g.confirmed) == 0 || g.downgraded[i]
			for c := range g.confirmed {
				if g.d.reach[c][i] {
					after = true
				}
			}
			if !after {
				continue
			}
			link = Correlated
		}
		c := g.cs[i]
		tr, w := g.ob.witnessed(c)
		if tr == nil {
			continue
		}
		st := Step{Candidate: c, Link: link, tr: tr, w: w}
		if k, ok := g.effect[i]; ok && link == Confirmed {
			iv := g.tests[k]
			st.Effect = fmt.Sprintf("%.2f → %d/%d", float64(g.ob.Failures)/float64(g.ob.Runs), iv.Failures, iv.Valid)
		}
		steps = append(steps, st)
	}
	return steps
}

// tree makes the chain a cause tree: the root is F, each step the child
// of the step it causes, the last step the root's child.
func tree(ob *Observation, steps []Step) *result.Node {
	root := &result.Node{Statements: []result.Statement{}}
	if tr := ob.Sample; tr != nil {
		if fs := tr.Failures(); len(fs) > 0 {
			root.Target = statement(tr, fs[0], &trace.Objects{})
			root.Outcome = "failed"
			if tr.Events[fs[0]].Kind == trace.EvPanic {
				root.Outcome = "panic"
			}
		} else {
			root.Outcome = "died" // the process ended without a failure event
		}
	}
	parent := root
	for k := len(steps) - 1; k >= 0; k-- {
		s := steps[k]
		var objs trace.Objects
		n := &result.Node{Link: s.Link, Effect: s.Effect, Fact: s.Candidate.Pred.Family.String()}
		if s.w.Events[0] >= 0 { // a never() of a site that did not run has no event
			n.Target = statement(s.tr, s.w.Time, &objs)
			if s.tr.Events[s.w.Time].Kind == trace.EvBranch {
				n.Outcome = n.Target.Outcome
			}
		}
		for _, e := range s.w.Events {
			if e >= 0 {
				n.Statements = append(n.Statements, statement(s.tr, e, &objs))
			}
		}
		parent.Children = append(parent.Children, n)
		parent = n
	}
	return root
}

// statement is event i as a cause statement: the site's module-relative
// position and text, and the values it read, wrote or returned.
func statement(tr *trace.Trace, i int, objs *trace.Objects) result.Statement {
	e := tr.Event(i)
	s := tr.SiteOf(i)
	st := result.Statement{File: s.Pos.File, Line: s.Pos.Line, Text: s.Text}
	vals := map[string]string{}
	add := func(items []trace.Item) {
		for _, it := range items {
			for _, o := range s.Operands {
				if o.Slot == it.Slot && o.Text != "" {
					vals[o.Text] = it.Value.Format(o.Type, objs)
				}
			}
		}
	}
	add(e.Reads)
	add(e.Writes)
	switch e.Kind {
	case trace.EvReturn, trace.EvCallExt:
		for k, v := range e.Values {
			var t trace.Type
			if k < len(s.Exprs) && s.Exprs[k] != nil && e.Kind == trace.EvReturn {
				t = s.Exprs[k].Type
			}
			name := "return"
			if len(e.Values) > 1 {
				name += strconv.Itoa(k)
			}
			vals[name] = v.Format(t, objs)
		}
	case trace.EvBranch:
		if len(e.Values) > 0 {
			if v := e.Values[0]; v.Kind == trace.ValBool {
				st.Outcome = strconv.FormatBool(v.Bool())
			} else if v.Int() < 0 {
				st.Outcome = "no case"
			} else {
				st.Outcome = fmt.Sprintf("case %d", v.Int()+1)
			}
		}
	}
	if len(vals) > 0 {
		st.Values = vals
	}
	return st
}
