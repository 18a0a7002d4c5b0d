package contrast

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/culprit-dev/culprit/analyzer/trace"
	"github.com/culprit-dev/culprit/diffhunks"
)

// A node is one structural index, interned in a trie shared by both runs:
// equal nodes name corresponding instances (COMPARATIVE.md §2).
type node int32

// step is one element of an index. Its key is a name interned by the
// trie, so a step holds no pointers: the trie has an entry for nearly
// every event of both runs, and that is most of a comparison's memory.
type step struct {
	kind byte // 'G' goroutine root, 'I' package init, 'C' call, 'D' entry without a call, 'R' branch side, 'L' loop iteration, 'M' map iteration by key, '.' leaf
	ev   trace.EventKind
	key  int32
	n    int32
}

type trie struct {
	ids    map[trieKey]node
	parent []node
	steps  []step
	names  map[string]int32 // interned keys
}

type trieKey struct {
	parent node
	step   step
}

func newTrie() *trie {
	return &trie{ids: map[trieKey]node{}, parent: []node{-1}, steps: []step{{}}, names: map[string]int32{}}
}

// name interns a key.
func (t *trie) name(s string) int32 {
	if k, ok := t.names[s]; ok {
		return k
	}
	k := int32(len(t.names))
	t.names[s] = k
	return k
}

// child returns the node below parent for s, and whether it exists.
func (t *trie) child(parent node, s step) (node, bool) {
	n, ok := t.ids[trieKey{parent, s}]
	return n, ok
}

// root is the empty index.
const root node = 0

func (t *trie) intern(parent node, s step) node {
	k := trieKey{parent, s}
	if n, ok := t.ids[k]; ok {
		return n
	}
	n := node(len(t.parent))
	t.ids[k] = n
	t.parent = append(t.parent, parent)
	t.steps = append(t.steps, s)
	return n
}

// run is one side's trace with its structural index.
type run struct {
	tr     *trace.Trace
	side   side
	keys   []string // by SiteID: the key that crosses runs
	keyIDs []int32  // by SiteID: keys interned by the trie
	hunkOf []diffhunks.ID
	spans  map[trace.SiteID]span // extent of each branch site's statement
	node   []node                // by event
	byNode []int32               // by node: the event it names, -1 if none
	ctl    []int                 // by event: the branch (or call) it ran under, -1 if none
	made   map[node]int          // the event that opened a region or frame step
	objs   trace.Objects
	last   []int32     // lazily, by node: the last event under it, -1 if none
	when   map[int]int // memo of Comparison.when for passing events
	// writers memoises writersIn: the sites in a statement that write
	// an operand, by statement and operand text; fileSites holds each
	// file's sites by line, for it.
	writers   map[writersKey][]trace.SiteID
	fileSites map[string][]trace.SiteID
}

// event returns the event named by n in this run.
func (r *run) event(n node) (int, bool) {
	if int(n) < len(r.byNode) && r.byNode[n] >= 0 {
		return int(r.byNode[n]), true
	}
	return -1, false
}

// span is a statement's extent in a file.
type span struct {
	file       string
	start, end [2]int // (line, column), end exclusive
	// guard is set for an if statement without else whose body may leave
	// the function (it holds a return, or a call of panic, outside any
	// function literal): code after the statement ran only because its
	// condition was false, or the body did not leave.
	guard bool
}

func (s span) holds(p trace.Pos) bool {
	if p.File != s.file {
		return false
	}
	at := [2]int{p.Line, p.Col}
	return !less(at, s.start) && less(at, s.end)
}

func less(a, b [2]int) bool { return a[0] < b[0] || a[0] == b[0] && a[1] < b[1] }

// side says how a run's code relates to head.
type side struct {
	dir    string           // the run's module root (its sources)
	prefix string           // the module root relative to the repository
	hunks  []diffhunks.Hunk // all hunks of the change
	proof  []diffhunks.ID   // the hunks the passing run reverts
	revert bool             // this is the passing run: proof is reverted in its code
}

// repoPath is a site file relative to the repository.
func (sd side) repoPath(file string) string {
	if sd.prefix == "" || sd.prefix == "." {
		return file
	}
	return path.Join(sd.prefix, file)
}

// headLine maps a line of the run's file to head, and names the proof
// hunk whose lines (head's, or the restored ones in the passing run) hold
// it, 0 if none does.
func (sd side) headLine(file string, line int) (int, diffhunks.ID) {
	if !sd.revert {
		if id := diffhunks.HeadAt(sd.hunks, file, line); slices.Contains(sd.proof, id) {
			return line, id
		}
		return line, 0
	}
	for _, h := range sd.hunks {
		// A whole file the revert brings back has no head lines.
		if (h.Kind == diffhunks.Delete || h.Kind == diffhunks.Rename) && h.OldFile == file && slices.Contains(sd.proof, h.ID) {
			return line, h.ID
		}
	}
	head, near, inside := diffhunks.VariantLine(sd.hunks, sd.proof, file, line)
	if inside {
		return head, near.ID
	}
	return head, 0
}

// newRun keys the sites of tr and indexes its events into t.
func newRun(tr *trace.Trace, sd side, t *trie) (*run, error) {
	r := &run{tr: tr, side: sd, made: map[node]int{}}
	r.siteKeys(sd)
	r.keyIDs = make([]int32, len(r.keys))
	for id, k := range r.keys {
		r.keyIDs[id] = t.name(k)
	}
	var err error
	if r.spans, err = branchSpans(tr, sd.dir); err != nil {
		return nil, err
	}
	r.index(t)
	return r, nil
}

// siteKeys gives every site the key that names it in both runs: outside
// changed code its head position and kind; inside a changed hunk the
// hunk, kind and ordinal, so that `x < y` and `x > y` pair up.
func (r *run) siteKeys(sd side) {
	r.keys = make([]string, len(r.tr.Sites))
	r.hunkOf = make([]diffhunks.ID, len(r.tr.Sites))
	type group struct {
		hunk diffhunks.ID
		kind trace.SiteKind
	}
	inHunk := map[group][]trace.SiteID{}
	for id := 1; id < len(r.tr.Sites); id++ {
		s := &r.tr.Sites[id]
		file := sd.repoPath(s.Pos.File)
		line, h := sd.headLine(file, s.Pos.Line)
		r.hunkOf[id] = h
		if h == 0 {
			// Code the two runs share: the same text at the same head
			// position.
			r.keys[id] = fmt.Sprintf("%s:%d:%d/%s", file, line, s.Pos.Col, s.Kind)
			continue
		}
		g := group{h, s.Kind}
		inHunk[g] = append(inHunk[g], trace.SiteID(id))
	}
	for g, ids := range inHunk {
		slices.SortFunc(ids, func(a, b trace.SiteID) int {
			pa, pb := r.tr.Sites[a].Pos, r.tr.Sites[b].Pos
			if pa.Line != pb.Line {
				return pa.Line - pb.Line
			}
			return pa.Col - pb.Col
		})
		for k, id := range ids {
			r.keys[id] = fmt.Sprintf("#%d/%s/%d", g.hunk, g.kind, k)
		}
	}
}

// branchSpans finds, for each if, for, range, switch and select site, the
// extent of its whole statement in the run's sources: the region its
// branches' instances live in.
func branchSpans(tr *trace.Trace, dir string) (map[trace.SiteID]span, error) {
	byFile := map[string][]trace.SiteID{}
	for id := 1; id < len(tr.Sites); id++ {
		switch tr.Sites[id].Kind {
		case trace.SiteIf, trace.SiteFor, trace.SiteRange, trace.SiteSwitch, trace.SiteSelect:
			f := tr.Sites[id].Pos.File
			byFile[f] = append(byFile[f], trace.SiteID(id))
		}
	}
	out := map[trace.SiteID]span{}
	fset := token.NewFileSet()
	for file, ids := range byFile {
		src, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(file)))
		if err != nil {
			return nil, fmt.Errorf("reading the traced source: %w", err)
		}
		f, err := parser.ParseFile(fset, file, src, parser.SkipObjectResolution)
		if err != nil {
			return nil, fmt.Errorf("parsing the traced source: %w", err)
		}
		var stmts []span
		ast.Inspect(f, func(n ast.Node) bool {
			switch n.(type) {
			case *ast.IfStmt, *ast.ForStmt, *ast.RangeStmt, *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt:
				s, e := fset.Position(n.Pos()), fset.Position(n.End())
				stmts = append(stmts, span{file: file, start: [2]int{s.Line, s.Column}, end: [2]int{e.Line, e.Column}, guard: isGuard(n)})
			}
			return true
		})
		for _, id := range ids {
			p := tr.Sites[id].Pos
			best := -1
			for k, s := range stmts {
				if s.holds(p) && (best < 0 || less(stmts[best].start, s.start)) {
					best = k // the innermost statement holding the site
				}
			}
			if best >= 0 {
				out[id] = stmts[best]
			}
		}
	}
	return out, nil
}

// isGuard reports whether n is an if statement without else whose body
// may leave the function: it holds a return, or a call of panic, outside
// any function literal.
func isGuard(n ast.Node) bool {
	is, ok := n.(*ast.IfStmt)
	if !ok || is.Else != nil {
		return false
	}
	leaves := false
	ast.Inspect(is.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			leaves = true
		case *ast.CallExpr:
			if id, ok := n.Fun.(*ast.Ident); ok && id.Name == "panic" {
				leaves = true
			}
		}
		return !leaves
	})
	return leaves
}

// region is an open branch side or loop iteration of one frame.
type region struct {
	node node
	base node // the node the region hangs below
	site trace.SiteID
	span span
	loop bool
	k    int32 // iteration, for a loop
}

// frameState is the indexing state of one frame.
type frameState struct {
	prefix  node
	call    int // the event that made the frame (its Call), -1 if none
	stack   []region
	leaves  map[trieKey]int32 // instances so far of each leaf below a region node
	entries map[int32]int32   // D steps so far, by function
}

func (f *frameState) cur() node {
	if n := len(f.stack); n > 0 {
		return f.stack[n-1].node
	}
	return f.prefix
}

// index names every event of the run by its structural index: the chain
// of calls, branch sides and loop iterations that led to it, and its
// ordinal among equal statements there (COMPARATIVE.md §2).
func (r *run) index(t *trie) {
	tr := r.tr
	r.node = make([]node, len(tr.Events))
	r.ctl = make([]int, len(tr.Events))
	x := &indexer{
		r:      r,
		t:      t,
		frames: make([]*frameState, len(tr.Frames)),
		roots:  map[int32]int32{},
		init:   &frameState{prefix: t.intern(root, step{kind: 'I'}), call: -1},
	}
	for i := range tr.Events {
		x.indexEvent(i)
	}
	r.byNode = make([]int32, len(t.parent))
	for k := range r.byNode {
		r.byNode[k] = -1
	}
	for i, nd := range r.node {
		r.byNode[nd] = int32(i)
	}
}

// indexer is the state of one pass of index over a run's events.
type indexer struct {
	r      *run
	t      *trie
	frames []*frameState   // by FrameID, made on a frame's first event
	roots  map[int32]int32 // goroutine roots so far, by function
	init   *frameState     // frame 0: package initialisation
}

// frame returns the state of frame id, making it on first use: its prefix
// is the call that made it, else its parent's entry into it from code the
// tracer does not enter, else the root of a goroutine.
func (x *indexer) frame(id trace.FrameID) *frameState {
	if id == 0 {
		return x.init
	}
	if fs := x.frames[id]; fs != nil {
		return fs
	}
	r, t, tr := x.r, x.t, x.r.tr
	fr := tr.Frame(id)
	fn := t.name(tr.Site(fr.Func).Func)
	fs := &frameState{call: -1}
	switch {
	case fr.Call >= 0 && fr.Call < len(r.node):
		fs.prefix = t.intern(r.node[fr.Call], step{kind: 'C', key: fn})
		fs.call = fr.Call
		r.made[fs.prefix] = fr.Call
	case fr.Parent != 0:
		ps := x.frames[fr.Parent]
		if ps == nil {
			ps = x.init
		}
		if ps.entries == nil {
			ps.entries = map[int32]int32{}
		}
		ps.entries[fn]++
		fs.prefix = t.intern(ps.cur(), step{kind: 'D', key: fn, n: ps.entries[fn]})
		fs.call = tr.Frame(fr.Parent).Entry
	default:
		x.roots[fn]++
		fs.prefix = t.intern(root, step{kind: 'G', key: fn, n: x.roots[fn]})
	}
	x.frames[id] = fs
	return fs
}

// indexEvent indexes event i: it closes the regions of its frame that do
// not hold it, records its control, counts a loop iteration, names the
// event as a leaf of the innermost region and opens the branch side it
// chose.
func (x *indexer) indexEvent(i int) {
	r, tr := x.r, x.r.tr
	e := &tr.Events[i]
	fs := x.frame(e.Frame)
	site := tr.Site(e.Site)
	for n := len(fs.stack); n > 0 && !fs.stack[n-1].span.holds(site.Pos); n-- {
		fs.stack = fs.stack[:n-1]
	}
	key := r.keyIDs[e.Site]
	loop := e.Kind == trace.EvBranch && (site.Kind == trace.SiteFor || site.Kind == trace.SiteRange)
	r.ctl[i] = x.control(fs, e, loop)
	if loop {
		x.iterate(fs, i, e, key)
	}
	cur := fs.cur()
	r.node[i] = x.leaf(fs, cur, e, key)
	if e.Kind == trace.EvBranch && !loop {
		switch site.Kind {
		case trace.SiteIf, trace.SiteSwitch, trace.SiteSelect:
			if sp, ok := r.spans[e.Site]; ok && len(e.Values) > 0 {
				rn := x.t.intern(cur, step{kind: 'R', key: key, n: int32(e.Values[0].Int())})
				fs.stack = append(fs.stack, region{node: rn, base: cur, site: e.Site, span: sp})
				r.made[rn] = i
			}
		}
	}
}

// control is the event that opened the region e runs in, or the frame's
// call outside any region; a loop's own check is controlled by what holds
// the loop.
func (x *indexer) control(fs *frameState, e *trace.Event, loop bool) int {
	below := len(fs.stack)
	if loop && below > 0 && fs.stack[below-1].site == e.Site {
		below--
	}
	if below > 0 {
		return x.r.made[fs.stack[below-1].node]
	}
	return fs.call
}

// iterate counts an iteration of the loop whose check is event i: the
// next one of the loop open on top of the frame, else the first, which
// opens the loop's region.
func (x *indexer) iterate(fs *frameState, i int, e *trace.Event, key int32) {
	r, t := x.r, x.t
	at := func(k int32) step {
		if mk, ok := mapKey(r.tr, e); ok {
			return step{kind: 'M', key: key, n: int32(mk ^ mk>>32)}
		}
		return step{kind: 'L', key: key, n: k}
	}
	if n := len(fs.stack); n > 0 && fs.stack[n-1].site == e.Site {
		top := &fs.stack[n-1]
		top.k++
		top.node = t.intern(top.base, at(top.k))
		r.made[top.node] = i
	} else if sp, ok := r.spans[e.Site]; ok {
		base := fs.cur()
		nd := t.intern(base, at(1))
		fs.stack = append(fs.stack, region{node: nd, base: base, site: e.Site, span: sp, loop: true, k: 1})
		r.made[nd] = i
	}
}

// mapKey is the digest of the key that iteration e of a range over a map
// binds, when it names the same key in every run (trace.Loc.StableKey, or
// a bool, number or string written to the loop's key variable): map order
// is random per run, so such iterations align by key (COMPARATIVE.md,
// "Map order"), and others by their count.
func mapKey(tr *trace.Trace, e *trace.Event) (uint64, bool) {
	for _, it := range e.Reads {
		if it.Loc.StableKey() {
			return it.Loc.Key, true
		}
	}
	return boundKey(tr, e)
}

// boundKey is the digest of the key iteration e of a range over a map
// wrote to its key variable. An iteration that binds the element records
// it as a read of its entry, m[k], which names the key; one that binds the
// key alone (`for t := range m`) reads nothing, and its key is known by
// its write only.
func boundKey(tr *trace.Trace, e *trace.Event) (uint64, bool) {
	site := tr.Site(e.Site)
	if site.Kind != trace.SiteRange || len(site.Exprs) == 0 || site.Exprs[0].Type.Kind != trace.TypeMap {
		return 0, false
	}
	key := rangeKeyText(site.Text)
	if key == "" {
		return 0, false
	}
	for _, w := range e.Writes {
		if o, ok := operand(site, w.Slot); !ok || o.Text != key {
			continue
		}
		switch v := w.Value; v.Kind {
		case trace.ValBool, trace.ValInt, trace.ValUint, trace.ValFloat:
			return v.Bits, true
		case trace.ValString:
			return v.Hash ^ uint64(v.Len)<<1, true
		}
	}
	return 0, false
}

// rangeKeyText is the key variable of a range statement's header
// (`for k, v := range m {` gives k), "" when there is none or it is blank.
func rangeKeyText(header string) string {
	lhs, _, ok := strings.Cut(strings.TrimPrefix(header, "for "), "= range ")
	if !ok {
		return ""
	}
	key, _, _ := strings.Cut(strings.TrimSuffix(lhs, ":"), ",")
	if key = strings.TrimSpace(key); key == "_" {
		return ""
	}
	return key
}

// leaf is the node naming event e below cur: its kind and site key, and
// its ordinal among such events there.
func (x *indexer) leaf(fs *frameState, cur node, e *trace.Event, key int32) node {
	if fs.leaves == nil {
		fs.leaves = map[trieKey]int32{}
	}
	leaf := step{kind: '.', ev: e.Kind, key: key}
	lk := trieKey{cur, leaf}
	fs.leaves[lk]++
	leaf.n = fs.leaves[lk]
	return x.t.intern(cur, leaf)
}

// lastUnder returns the last event of the run whose index extends n, or
// -1 if none does.
func (r *run) lastUnder(t *trie, n node) int {
	if r.last == nil {
		// A parent is interned before its children, so one pass from the
		// newest node down carries each node's last event to its parent.
		r.last = make([]int32, len(t.parent))
		for k := range r.last {
			r.last[k] = -1
		}
		for i, nd := range r.node {
			r.last[nd] = int32(i)
		}
		for a := len(r.last) - 1; a > int(root); a-- {
			if p := t.parent[a]; p > root && r.last[a] > r.last[p] {
				r.last[p] = r.last[a]
			}
		}
	}
	if int(n) < len(r.last) {
		return int(r.last[n])
	}
	return -1
}
