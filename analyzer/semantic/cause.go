package semantic

import (
	"go/ast"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/culprit-dev/culprit/analyzer/result"
	"github.com/culprit-dev/culprit/analyzer/trace"
	"github.com/culprit-dev/culprit/diffhunks"
)

// Loc is a source line.
type Loc struct {
	File string // relative to the traced module root, with slashes
	Line int
}

// Lines returns the distinct lines of the cause's statements, in trace
// order. A parameter binding is the line of its call.
func (c *Cause) Lines() []Loc {
	var out []Loc
	seen := map[Loc]bool{}
	for _, i := range c.Events {
		s := c.a.siteOfStmt(i)
		l := Loc{File: s.Pos.File, Line: s.Pos.Line}
		if l.File != "" && !seen[l] {
			seen[l] = true
			out = append(out, l)
		}
	}
	return out
}

// Deletions returns the deleted code (Setup.Deleted) the cause touches:
// what it found omitted from a side a branch took or from between a
// definition and its use, and any deletion that stood directly in the
// innermost block of one of its statements (the run passed the point
// where the deleted code used to run).
func (c *Cause) Deletions() []diffhunks.ID {
	a := c.a
	var out []diffhunks.ID
	add := func(k int) {
		if id := a.opt.Deleted[k].Hunk; !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	for _, k := range c.Omitted {
		add(k)
	}
	for _, i := range c.Events {
		s := a.siteOfStmt(i)
		p := a.place(s)
		if p == nil {
			continue
		}
		block := innermostBlock(p)
		if block == nil {
			continue
		}
		for k, d := range a.opt.Deleted {
			if d.File == s.Pos.File && a.deletion(k).block == block {
				add(k)
			}
		}
	}
	slices.Sort(out)
	return out
}

// CriticalPredicates returns the branches that decide whether the cause's
// statements run or what they read (AFTER Alg. 3), latest first, each
// branch event at most once over the analysis:
//   - direct: the closest enclosing branch a generator does not
//     post-dominate;
//   - indirect: for each location a generator reads, with last definition
//     d, every branch between d and the generator in the same frame whose
//     not-taken side may define the location.
func (a *Analysis) CriticalPredicates(c *Cause) []Target {
	found := map[int]bool{}
	for _, g := range c.Events {
		if b := a.control(g); b >= 0 {
			found[b] = true
		}
		a.indirect(g, found)
	}
	var evs []int
	for b := range found {
		if a.seen[b] {
			continue
		}
		ev := a.tr.Event(b)
		if ev.Kind != trace.EvBranch {
			continue
		}
		a.seen[b] = true
		evs = append(evs, b)
	}
	sort.Sort(sort.Reverse(sort.IntSlice(evs)))
	out := make([]Target, 0, len(evs))
	for _, b := range evs {
		ev := a.tr.Event(b)
		t := Target{Event: b, Failure: -1, via: c, pred: predBranch}
		if len(ev.Values) > 0 && ev.Values[0].Kind == trace.ValBool {
			t.Outcome = strconv.FormatBool(ev.Values[0].Bool())
		} else {
			t.pred = predObserved
			if len(ev.Values) > 0 {
				t.Outcome = "case " + strconv.FormatInt(ev.Values[0].Int(), 10)
			}
		}
		out = append(out, t)
	}
	return out
}

// maxCalleeDepth bounds how deep indirect follows call results into the
// callees' return statements.
const maxCalleeDepth = 3

// indirect adds the branches that could have redefined what generator g
// reads (potential dependence), also through the results of the calls g
// makes: a value returned by a getter is a read of what the getter read.
func (a *Analysis) indirect(g int, found map[int]bool) {
	a.indirectDepth(g, found, 0)
}

func (a *Analysis) indirectDepth(g int, found map[int]bool, depth int) {
	if depth < maxCalleeDepth {
		for _, exit := range a.calleeReturns(g) {
			a.indirectDepth(exit, found, depth+1)
		}
	}
	ev := a.tr.Event(g)
	if ev.Kind == trace.EvReturn {
		a.nakedReturn(g, found)
	}
	reads := ev.Reads
	src := g
	if ev.Kind == trace.EvEntry && ev.Frame > 0 {
		// A parameter binding reads the call's arguments.
		if c := a.tr.Frame(ev.Frame).Call; c >= 0 {
			src = c
			reads = a.tr.Event(c).Reads
		}
	}
	sev := a.tr.Event(src)
	for _, it := range reads {
		d := a.tr.Def(src, it.Slot)
		o, _ := a.f.operand(src, it.Slot)
		if d < 0 {
			// Nothing traced wrote the location: a field the run
			// left as it was. A branch of this frame's run whose
			// not-taken side would have assigned it decided its value:
			// for a local's field any such branch since the variable
			// was last written whole (the loop below), for a field
			// elsewhere one that assigns a field of the name.
			local := it.Loc.Kind == trace.LocLocal && it.Loc.Obj != 0 && !o.Global
			if !local && it.Loc.Kind != trace.LocLocal && sev.Frame > 0 {
				a.unassignedBetween(a.tr.Frame(sev.Frame).Entry, src, o, found)
			}
			if !local {
				continue
			}
			d = a.tr.LastDef(trace.Loc{Kind: trace.LocLocal, Frame: it.Loc.Frame, Obj: it.Loc.Obj}, src)
		}
		name := o.Text
		if d >= 0 && a.tr.Event(d).Frame != sev.Frame {
			if it.Loc.Kind != trace.LocLocal || o.Global {
				a.exitsBetween(d, src, o, found)
			}
			continue
		}
		for _, b := range a.idx.before(sev.Frame, src) {
			if b <= d {
				break
			}
			bp, outcome, short, ok := a.boolBranch(b)
			if !ok {
				continue
			}
			local := it.Loc.Kind == trace.LocLocal
			if mayDefine(notTaken(bp, outcome, short), name, local, a.writesLocal(a.tr.SiteOf(b).Pos.File, it.Loc, o)) {
				found[b] = true
			}
			// The side taken ran without code the change deleted from it.
			if om := a.omitted(a.tr.SiteOf(b).Pos.File, notTaken(bp, !outcome, short), name, local); len(om) > 0 {
				found[b] = true
				a.omit[b] = mergeInts(a.omit[b], om)
			}
		}
	}
}

// boolBranch returns the statement of branch event b, its outcome, and
// whether it is an operand of && or ||; false when b is not a boolean
// branch whose statement is known.
func (a *Analysis) boolBranch(b int) (bp *place, outcome, short, ok bool) {
	be := a.tr.Event(b)
	if be.Kind != trace.EvBranch || len(be.Values) == 0 || be.Values[0].Kind != trace.ValBool {
		return nil, false, false, false
	}
	site := a.tr.SiteOf(b)
	if bp = a.place(site); bp == nil {
		return nil, false, false, false
	}
	return bp, be.Values[0].Bool(), site.Kind == trace.SiteAndAnd || site.Kind == trace.SiteOrOr, true
}

// calleeReturns returns the return events of the instrumented calls whose
// results event g's statement uses.
func (a *Analysis) calleeReturns(g int) []int {
	var out []int
	var walk func(e *trace.Expr)
	walk = func(e *trace.Expr) {
		if e == nil {
			return
		}
		if e.Op == trace.ExprCall {
			if ci := a.tr.LastCall(g, e.Call); ci >= 0 && a.tr.Event(ci).Kind == trace.EvCall {
				if fr := a.tr.Callee(ci); fr != 0 {
					if exit := a.tr.Frame(fr).Exit; exit >= 0 && a.tr.Event(exit).Kind == trace.EvReturn {
						out = append(out, exit)
					}
				}
			}
		}
		walk(e.X)
		walk(e.Y)
		for _, arg := range e.Args {
			walk(arg)
		}
	}
	for _, e := range a.tr.SiteOf(g).Exprs {
		walk(e)
	}
	return out
}

// maxExitScan bounds the events exitsBetween looks at for one read.
const maxExitScan = 200_000

// exitsBetween adds the branches, in any frame, that ran between the
// definition d of a location outside the reading frame and its read at src
// and whose taken side left early, skipping code that assigns the location
// (potential dependence over the CFG: `if len(args) == 0 { return }`
// before `f.args = args`). o is the read's operand.
func (a *Analysis) exitsBetween(d, src int, o trace.Operand, found map[int]bool) {
	field := lastName(o.Text)
	if field == "" {
		return
	}
	for b := d + 1; b < src && b-d <= maxExitScan; b++ {
		bp, outcome, _, ok := a.boolBranch(b)
		if !ok {
			continue
		}
		if definesField(skippedByExit(bp, outcome), field, a.writesField(a.tr.SiteOf(b).Pos.File, o)) {
			found[b] = true
		}
	}
}

// unassignedBetween adds the branches, in any frame, that ran between
// events from and src and whose not-taken side assigns the location the
// read at src (operand o) names: that read, of a location nothing traced
// wrote, kept its old value because those branches went the other way
// (`if !ok { v.errs = append(v.errs, e) }` not taken leaves v.errs empty).
func (a *Analysis) unassignedBetween(from, src int, o trace.Operand, found map[int]bool) {
	field := lastName(o.Text)
	if field == "" || from < 0 {
		return
	}
	for b := from + 1; b < src && b-from <= maxExitScan; b++ {
		bp, outcome, short, ok := a.boolBranch(b)
		if !ok || short {
			continue
		}
		if region := notTaken(bp, outcome, false); region != nil && definesField([]ast.Stmt{asStmt(region)}, field, a.writesField(a.tr.SiteOf(b).Pos.File, o)) {
			found[b] = true
		}
	}
}

// asStmt returns region as a statement (a block or an else-if).
func asStmt(region ast.Node) ast.Stmt {
	if s, ok := region.(ast.Stmt); ok {
		return s
	}
	return &ast.EmptyStmt{}
}

// lastName is the last selector or name of a location's text: "args" for
// "s.args", "s.args[i]" or "(*s).args".
func lastName(text string) string {
	if i := strings.IndexByte(text, '['); i >= 0 {
		text = text[:i]
	}
	text = strings.TrimRight(text, ")")
	if i := strings.LastIndexAny(text, ".(*"); i >= 0 {
		text = text[i+1:]
	}
	return text
}

// Tree builds the causal tree of the causes, in the order they were
// computed: the first is the root; each later cause hangs below the cause
// whose critical predicate it explains. hunkAt maps a head line to its
// hunk (0 if none).
//
// With cmp, every step carries its instance in the passing run and the
// step where the runs first differ is marked (COMPARATIVE.md §4).
func (a *Analysis) Tree(causes []*Cause, hunkAt func(file string, line int) diffhunks.ID, cmp Contrast) *result.Node {
	st := func(i int) result.Statement {
		s := a.statement(i, hunkAt)
		if cmp != nil {
			if p, ok := cmp.Annotate(i); ok {
				s.Passing = p
			}
			s.Diverges = cmp.Diverges(i)
		}
		return s
	}
	if len(causes) == 0 {
		return nil
	}
	nodes := map[*Cause]*result.Node{}
	var root *result.Node
	for _, c := range causes {
		n := &result.Node{
			Target:  st(c.Target.Event),
			Outcome: c.Target.Outcome,
		}
		if c.Target.Failure >= 0 && c.Target.Failure != c.Target.Event {
			// The failing call is what the reader recognises; the
			// controlling branch is among the statements.
			n.Target = st(c.Target.Failure)
		}
		shown := c.Target.Event // the node's own target is not repeated among its statements
		if c.Target.Failure >= 0 && c.Target.Failure != c.Target.Event {
			shown = c.Target.Failure
		}
		for _, i := range c.Events {
			if i != shown {
				n.Statements = append(n.Statements, st(i))
			}
		}
		for _, k := range c.Omitted {
			n.Statements = append(n.Statements, a.deletedStatement(k))
		}
		for _, u := range c.Constants {
			st := result.Statement{File: u.Loc.File, Line: u.Loc.Line, Text: "const " + u.Text}
			if hunkAt != nil {
				st.Hunk = hunkAt(u.Loc.File, u.Loc.Line)
			}
			n.Statements = append(n.Statements, st)
		}
		nodes[c] = n
		parent := nodes[c.Target.via]
		switch {
		case parent != nil:
			via := st(c.Target.Event)
			n.Via = &via
			parent.Children = append(parent.Children, n)
		case root == nil:
			root = n
		default:
			// A cause whose parent was not passed in: attach it to the
			// root rather than drop it.
			via := st(c.Target.Event)
			n.Via = &via
			root.Children = append(root.Children, n)
		}
	}
	return root
}

// Contrast describes failing events by their instances in the passing
// run (contrast.Comparison).
type Contrast interface {
	// Annotate returns event i's passing instance; false when unknown.
	Annotate(i int) (*result.Passing, bool)
	// Diverges reports whether event i is where the runs first differ.
	Diverges(i int) bool
}

// statement describes event i with the values it read and wrote.
func (a *Analysis) statement(i int, hunkAt func(string, int) diffhunks.ID) result.Statement {
	s := a.siteOfStmt(i)
	st := result.Statement{File: s.Pos.File, Line: s.Pos.Line, Text: s.Text}
	if hunkAt != nil {
		st.Hunk = hunkAt(s.Pos.File, s.Pos.Line)
	}
	ev := a.tr.Event(i)
	vals := map[string]string{}
	add := func(ev int, items []trace.Item) {
		for _, it := range items {
			o, ok := a.f.operand(ev, it.Slot)
			if !ok || o.Text == "" {
				continue
			}
			vals[o.Text] = it.Value.Format(o.Type, &a.objs)
		}
	}
	add(i, ev.Reads)
	add(i, ev.Writes)
	if ev.Kind == trace.EvReturn && len(ev.Values) == 1 {
		vals["return"] = ev.Values[0].Format(a.resultType(i), &a.objs)
	}
	if len(vals) > 0 {
		st.Values = vals
	}
	return st
}

func isBlock(n ast.Node) bool {
	switch n.(type) {
	case *ast.BlockStmt, *ast.CaseClause, *ast.CommClause:
		return true
	}
	return false
}

// mergeInts adds the elements of ys missing from xs.
func mergeInts(xs, ys []int) []int {
	for _, y := range ys {
		if !slices.Contains(xs, y) {
			xs = append(xs, y)
		}
	}
	return xs
}

// resultType is the type of the single result of the return event i, as
// far as the site table knows it.
func (a *Analysis) resultType(i int) trace.Type {
	if s := a.tr.SiteOf(i); len(s.Exprs) == 1 && s.Exprs[0] != nil {
		return s.Exprs[0].Type
	}
	return trace.Type{}
}

// nakedReturn adds, for a `return` without expressions, the branches of
// its frame whose not-taken side assigns a named result the return hands
// back: `if len(errs) > 0 { err = errs }` not taken returns err's zero
// value. The return reads the results without the tracer recording it;
// each one's last definition is its last traced write in the frame, or
// the entry that zeroed it.
func (a *Analysis) nakedReturn(g int, found map[int]bool) {
	site := a.tr.SiteOf(g)
	if len(site.Exprs) > 0 {
		return
	}
	p := a.place(site)
	if p == nil {
		return
	}
	_, fn := statementOf(p.path)
	var ft *ast.FuncType
	switch fn := fn.(type) {
	case *ast.FuncDecl:
		ft = fn.Type
	case *ast.FuncLit:
		ft = fn.Type
	}
	if ft == nil || ft.Results == nil {
		return
	}
	fr := a.tr.Event(g).Frame
	evs := a.idx.before(fr, g) // latest first
	// The entry's writes resolve a result's name to its variable where
	// the tracer records the results' zeroing.
	var entry []trace.Item
	if e := a.tr.Frame(fr).Entry; e >= 0 {
		entry = a.tr.Event(e).Writes
	}
	for _, field := range ft.Results.List {
		for _, id := range field.Names {
			if id.Name == "_" {
				continue
			}
			res := trace.Loc{Kind: trace.LocLocal}
			var op trace.Operand
			for _, w := range entry {
				if o, ok := a.f.operand(a.tr.Frame(fr).Entry, w.Slot); ok && o.Text == id.Name && w.Loc.Kind == trace.LocLocal {
					res, op = w.Loc, o
				}
			}
			for _, b := range evs {
				if a.writesName(b, id.Name, res.Obj) {
					break
				}
				bp, outcome, short, ok := a.boolBranch(b)
				if !ok {
					continue
				}
				if mayDefine(notTaken(bp, outcome, short), id.Name, true, a.writesLocal(a.tr.SiteOf(b).Pos.File, res, op)) {
					found[b] = true
				}
			}
		}
	}
}

// writesName reports whether event i writes the local variable obj, or,
// when obj is 0 (not known), a local named name.
func (a *Analysis) writesName(i int, name string, obj int) bool {
	for _, w := range a.tr.Event(i).Writes {
		if w.Loc.Kind != trace.LocLocal {
			continue
		}
		if o, ok := a.f.operand(i, w.Slot); ok && (obj == 0 && o.Text == name || obj != 0 && w.Loc.Obj == obj && w.Loc.Path == "") {
			return true
		}
	}
	return false
}

// writesLocal returns, for the read of loc (operand o) and the code of
// file, the resolver mayDefine takes: whether a statement writes the
// never-address-taken local loc denotes, or a part of it, as the sites the
// tracer built with the type checker's resolution record. It is nil for
// other locations, and a statement without a site that writes something
// is left to the name.
func (a *Analysis) writesLocal(file string, loc trace.Loc, o trace.Operand) resolver {
	if loc.Kind != trace.LocLocal || loc.Obj == 0 || o.Global {
		return nil
	}
	return a.writesOperand(file, func(op trace.Operand) bool {
		return !op.Global && op.Obj == loc.Obj && overlaps(op.Path, loc.Path)
	})
}

// writesField returns, for the read of operand o outside the reading
// frame and the code of file, the resolver definesField takes: whether a
// statement writes the struct field o's last selector selects (that field
// of that struct type, through any variable), or the package-level
// variable o names, as the sites record. It is nil when o is neither.
func (a *Analysis) writesField(file string, o trace.Operand) resolver {
	switch {
	case o.Field != 0:
		return a.writesOperand(file, func(op trace.Operand) bool { return op.Field == o.Field })
	case o.Global && o.Obj != 0 && o.Path == "":
		return a.writesOperand(file, func(op trace.Operand) bool { return op.Global && op.Obj == o.Obj })
	}
	return nil
}

// writesOperand returns a resolver that answers, for a statement of file,
// whether one of the operands its site writes satisfies match; known is
// false for a statement without a site that writes.
func (a *Analysis) writesOperand(file string, match func(trace.Operand) bool) resolver {
	if a.writers == nil {
		a.writers = map[trace.Pos][]trace.Operand{}
		for k := range a.tr.Sites {
			s := &a.tr.Sites[k]
			p := s.Pos
			p.EndLine, p.EndCol = 0, 0
			for _, op := range s.Operands {
				if op.Write {
					a.writers[p] = append(a.writers[p], op)
				}
			}
		}
	}
	return func(st ast.Stmt) (bool, bool) {
		at := a.src.fset.Position(st.Pos())
		ops, ok := a.writers[trace.Pos{File: file, Line: at.Line, Col: at.Column}]
		if !ok {
			return false, false
		}
		for _, op := range ops {
			if match(op) {
				return true, true
			}
		}
		return false, true
	}
}

// overlaps reports whether two paths below one variable (".x", "[2]", ""
// for the whole) share memory: one is the other or lies inside it.
func overlaps(p, q string) bool {
	if len(p) > len(q) {
		p, q = q, p
	}
	return strings.HasPrefix(q, p) && (len(q) == len(p) || q[len(p)] == '.' || q[len(p)] == '[')
}
