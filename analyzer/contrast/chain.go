package contrast

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/culprit-dev/culprit/analyzer/result"
	"github.com/culprit-dev/culprit/analyzer/trace"
	"github.com/culprit-dev/culprit/diffhunks"
)

// Chain bounds: the comment opens with this many steps at most and, when
// the path has them, at least.
const (
	chainMin = 3
	chainMax = 7
)

// Statement describes a path step: its source, values and outcome in its
// own run and, for a failing step, its passing instance.
func (c *Comparison) Statement(s Step) result.Statement {
	if s.Const != nil {
		return c.constStatement(s.Const)
	}
	r := c.runs[s.Side]
	site := r.tr.SiteOf(s.Event)
	file := r.side.repoPath(site.Pos.File)
	line := site.Pos.Line
	if s.Side == Passing {
		line, _ = r.side.headLine(file, line)
	}
	st := result.Statement{
		File:    file,
		Line:    line,
		Text:    site.Text,
		Values:  c.values(s.Side, s.Event),
		Outcome: c.outcome(s.Side, s.Event),
		Hunk:    c.hunkOf(s),
	}
	if s.Side == Failing {
		st.Passing, _ = c.Annotate(s.Event)
		st.Diverges = c.Diverges(s.Event)
		if st.Passing != nil {
			// A struct shown in both runs is shown by the fields that
			// differ, which a reader would otherwise hunt for.
			for name, f := range st.Values {
				if p, ok := st.Passing.Values[name]; ok {
					st.Values[name], st.Passing.Values[name] = trace.DifferingFields(f, p)
				}
			}
		}
	} else {
		st.OnlyPassing = true
		st.Diverges = c.divergesAt(Passing, s.Event)
	}
	return st
}

// constStatement is the declaration of a constant the change altered,
// with its value in both runs.
func (c *Comparison) constStatement(k *Const) result.Statement {
	r := c.runs[Failing]
	file := r.side.repoPath(k.Decl.File)
	_, h := r.side.headLine(file, k.Decl.Line)
	text := k.Name
	if src, err := os.ReadFile(filepath.Join(c.in.FailingDir, filepath.FromSlash(k.Decl.File))); err == nil {
		if lines := strings.Split(string(src), "\n"); k.Decl.Line <= len(lines) {
			text = strings.TrimSpace(lines[k.Decl.Line-1])
		}
	}
	var objs trace.Objects
	return result.Statement{
		File:    file,
		Line:    k.Decl.Line,
		Text:    text,
		Hunk:    h,
		Values:  map[string]string{k.Name: k.Failing.Format(k.Type, &objs)},
		Passing: &result.Passing{Values: map[string]string{k.Name: k.Passing.Format(k.Type, &objs)}},
	}
}

// Diverges reports whether failing event i is where the runs first
// differ on the path (Path must have run).
func (c *Comparison) Diverges(i int) bool { return c.divergesAt(Failing, i) }

// divergesAt reports whether event i of run s is the path's divergence.
func (c *Comparison) divergesAt(s Side, i int) bool {
	p := c.path
	if p == nil || p.Divergence < 0 {
		return false
	}
	d := p.Steps[p.Divergence]
	return d.Side == s && d.Event == i && d.Const == nil
}

// Chain picks the 3–7 steps the explanation opens with, in execution
// order (COMPARATIVE.md §4): the steps in changed code, the divergence,
// the omissions and the failure always; other differences unless they
// only pass a value on; repeats of one statement folded with a count.
func (c *Comparison) Chain() []result.Statement { return c.pick(chainMin, chainMax) }

// Summary is the path as at most max steps, picked as Chain picks them,
// for a tree made of the path alone.
func (c *Comparison) Summary(max int) []result.Statement { return c.pick(0, max) }

// chainRow is one statement of a chain being picked: a step, how many
// repeats of its statement it stands for, and whether it must be shown.
type chainRow struct {
	step      Step
	count     int
	must      bool
	transport bool
	instead   *chainRow // a passing-only step merged into this failing-only one
}

// pick chooses between least and most statements of the path: every row
// worth showing, cut down to most or filled up to least, in path order.
func (c *Comparison) pick(least, most int) []result.Statement {
	p := c.path
	if p == nil || len(p.Steps) == 0 {
		return nil
	}
	rows := c.chainRows(p)
	rows = c.mergeAtDivergence(p, rows)
	rows = c.mergeSameLine(rows)
	chosen := filterRows(rows, func(rw *chainRow) bool { return rw.must || !rw.transport })
	if len(chosen) > most {
		chosen = c.trimChain(p, rows, chosen, most)
	}
	if len(chosen) < least {
		chosen = padChain(rows, chosen, least)
	}
	return c.chainStatements(chosen)
}

// chainRows makes a row of each step of the path, marking those that must
// be shown and those that only fill a chain; a step of a statement that
// already has a row is folded into it as a repeat.
func (c *Comparison) chainRows(p *Path) []*chainRow {
	var rows []*chainRow
	type siteKey struct {
		side  Side
		site  trace.SiteID
		konst string
	}
	bySite := map[siteKey]*chainRow{}
	last := len(p.Steps) - 1
	failure := p.Steps[last]
	for k, s := range p.Steps {
		r := c.runs[s.Side]
		ev := r.tr.Event(s.Event)
		ctr := c.Counterpart(s.Side, s.Event)
		// Steps that ran on one side only are kept, except the failing
		// run's own reporting of the failure (the calls that format it).
		omission := ctr < 0 && !(s.Side == Failing && failure.Side == Failing && r.ctl[s.Event] == r.ctl[failure.Event])
		inHunk := c.hunkOf(s) != 0 && ev.Kind != trace.EvCallExt // a call's result shows in its statement
		must := k == p.Divergence || k == last || inHunk || omission || s.Const != nil
		key := siteKey{s.Side, ev.Site, ""}
		if s.Const != nil {
			key.konst = s.Const.Name
		}
		if prev := bySite[key]; prev != nil && k != p.Divergence && k != last {
			// A repeat (another iteration or call): the latest instance
			// speaks for all, except that the divergence stays shown.
			if prev.step != p.Steps[max(p.Divergence, 0)] {
				prev.step = s
			}
			prev.count++
			continue
		}
		// An aligned step that did the same in both runs explains nothing
		// by itself: it only fills a chain that is too short.
		filler := s.Const == nil && (isTransport(r.tr.SiteOf(s.Event), ev) || ctr >= 0 && !c.provenDifferent(s.Side, s.Event) || ctr < 0 && !omission)
		rw := &chainRow{step: s, count: 1, must: must, transport: filler}
		bySite[key] = rw
		rows = append(rows, rw)
	}
	return rows
}

// mergeAtDivergence makes a failing-only and a passing-only step on the
// two sides of the divergence one row: what each run did there instead.
func (c *Comparison) mergeAtDivergence(p *Path, rows []*chainRow) []*chainRow {
	if p.Divergence < 0 || p.Steps[p.Divergence].Side != Failing {
		return rows
	}
	div := p.Steps[p.Divergence].Event
	pdiv := c.Counterpart(Failing, div)
	var fOnly, pOnly *chainRow
	for _, rw := range rows {
		st := rw.step
		switch {
		case st.Side == Failing && c.runs[Failing].ctl[st.Event] == div && c.Counterpart(Failing, st.Event) < 0 && fOnly == nil:
			fOnly = rw
		case st.Side == Passing && pdiv >= 0 && c.runs[Passing].ctl[st.Event] == pdiv && pOnly == nil:
			pOnly = rw
		}
	}
	if fOnly != nil && pOnly != nil {
		fOnly.instead = pOnly
		rows = slices.DeleteFunc(rows, func(rw *chainRow) bool { return rw == pOnly })
	}
	return rows
}

// mergeSameLine makes a failing-only and a passing-only step of one line
// one row (a panic there, a return in the passing run).
func (c *Comparison) mergeSameLine(rows []*chainRow) []*chainRow {
	at := map[string]*chainRow{}
	for _, rw := range rows {
		if st := rw.step; st.Side == Failing && rw.instead == nil && c.Counterpart(Failing, st.Event) < 0 {
			at[c.place(st)] = rw
		}
	}
	return slices.DeleteFunc(rows, func(rw *chainRow) bool {
		if rw.step.Side != Passing {
			return false
		}
		f := at[c.place(rw.step)]
		if f == nil || f.instead != nil {
			return false
		}
		f.instead = rw
		return true
	})
}

// filterRows is the rows ok accepts, in order.
func filterRows(rows []*chainRow, ok func(*chainRow) bool) []*chainRow {
	var out []*chainRow
	for _, rw := range rows {
		if ok(rw) {
			out = append(out, rw)
		}
	}
	return out
}

// trimChain cuts the chosen rows down to most. The divergence and the last
// two stay, then each hunk's last step while there is room (the first
// hunk's, where the chain opens, before the others), then the other
// decisions taken in changed code, nearest the failure first: the
// predicates the change's behaviour turned on, which a hunk's last step
// (the return a guard let through) does not show. The rest fill what room
// is left, nearest the failure first.
func (c *Comparison) trimChain(p *Path, rows, chosen []*chainRow, most int) []*chainRow {
	keep := map[*chainRow]bool{}
	last := map[diffhunks.ID]int{}
	for k, rw := range chosen {
		st := rw.step
		if h := c.hunkOf(st); h != 0 {
			last[h] = k
		}
		if k >= len(chosen)-2 || p.Divergence >= 0 && p.Steps[p.Divergence] == st {
			keep[rw] = true
		}
	}
	var hunkRows []*chainRow
	for k, rw := range chosen {
		if h := c.hunkOf(rw.step); h != 0 && last[h] == k {
			hunkRows = append(hunkRows, rw)
		}
	}
	for k, rw := range hunkRows {
		if len(keep) >= most {
			break
		}
		if k > 0 {
			rw = hunkRows[len(hunkRows)-k]
		}
		keep[rw] = true
	}
	for k := len(chosen) - 1; k >= 0 && len(keep) < most; k-- {
		if st := chosen[k].step; st.Const == nil && c.hunkOf(st) != 0 && c.runs[st.Side].tr.Event(st.Event).Kind == trace.EvBranch {
			keep[chosen[k]] = true
		}
	}
	for k := len(chosen) - 1; k >= 0 && len(keep) < most; k-- {
		keep[chosen[k]] = true
	}
	return filterRows(rows, func(rw *chainRow) bool { return keep[rw] })
}

// padChain fills the chosen rows up to least with the rows nearest the
// failure.
func padChain(rows, chosen []*chainRow, least int) []*chainRow {
	in := map[*chainRow]bool{}
	for _, rw := range chosen {
		in[rw] = true
	}
	for k := len(rows) - 1; k >= 0 && len(in) < least; k-- {
		in[rows[k]] = true
	}
	return filterRows(rows, func(rw *chainRow) bool { return in[rw] })
}

// chainStatements describes the chosen rows: each row's statement, with
// what the passing run did instead when a passing-only step was merged
// into it, and its count of repeats.
func (c *Comparison) chainStatements(chosen []*chainRow) []result.Statement {
	out := make([]result.Statement, 0, len(chosen))
	for _, rw := range chosen {
		st := c.Statement(rw.step)
		if in := rw.instead; in != nil {
			pst := c.Statement(in.step)
			text := pst.Text
			if pst.Line != st.Line || pst.File != st.File {
				text = fmt.Sprintf("%s (line %d)", pst.Text, pst.Line)
			}
			st.Passing = &result.Passing{Text: text, Values: pst.Values}
			// The row stands for both steps: where the passing one is
			// where the runs part, so is the row.
			st.Diverges = st.Diverges || pst.Diverges
		}
		if rw.count > 1 {
			st.Count = rw.count
		}
		out = append(out, st)
	}
	return out
}

// hunkOf is the hunk a step lies in: a proof hunk, or one outside the
// proof that crossedCause reached (outsideHunk); 0 if none.
func (c *Comparison) hunkOf(s Step) diffhunks.ID {
	if s.Const != nil {
		return c.constStatement(s.Const).Hunk
	}
	r := c.runs[s.Side]
	return cmp.Or(r.hunkOf[r.tr.Event(s.Event).Site], c.outsideHunk(s.Side, s.Event))
}

// place is a step's head file and line.
func (c *Comparison) place(s Step) string {
	st := c.Statement(s)
	return fmt.Sprintf("%s:%d", st.File, st.Line)
}

// isTransport reports whether an event only passes a value on: a
// parameter binding, `return v`, or a copy of one variable or one call's
// result.
func isTransport(s *trace.Site, e *trace.Event) bool {
	switch e.Kind {
	case trace.EvEntry, trace.EvCallExt:
		// A binding, or a call the tracer does not enter: its result
		// shows again in the statement that uses it.
		return true
	case trace.EvReturn, trace.EvAssign:
		if len(s.Exprs) != 1 || s.Exprs[0] == nil {
			return false
		}
		op := s.Exprs[0].Op
		return op == trace.ExprRead || op == trace.ExprCall && e.Kind == trace.EvAssign
	}
	return false
}

// Sources are the path's steps where a proven difference starts (a value
// that differs, or a step the other run lacks), in order. Steps whose
// values cannot be compared are not among them.
func (c *Comparison) Sources() []Step {
	if c.path == nil {
		return nil
	}
	return slices.DeleteFunc(slices.Clone(c.path.Steps), func(s Step) bool {
		return !s.Source || !c.provenDifferent(s.Side, s.Event)
	})
}

// provenDifferent reports whether event i of run s has no counterpart or
// an output that differs comparably from its counterpart's.
func (c *Comparison) provenDifferent(s Side, i int) bool {
	j := c.Counterpart(s, i)
	if j < 0 {
		return true
	}
	a, b := outputs(c.runs[s].tr.Event(i)), outputs(c.runs[s.other()].tr.Event(j))
	if len(a) != len(b) {
		return true
	}
	for k := range a {
		if eq, known := c.sameIn(s, a[k], b[k]); known && !eq {
			return true
		}
	}
	return false
}
