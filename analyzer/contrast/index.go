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

	"github.com/culprit-dev/culprit/analyzer/trace"
	"github.com/culprit-dev/culprit/diffhunks"
)

// A node is one structural index, interned in a trie shared by both runs:
// equal nodes name corresponding instances (COMPARATIVE.md §2).
type node int32

// step is one element of an index.
type step struct {
	kind byte // 'G' goroutine root, 'I' package init, 'C' call, 'D' entry without a call, 'R' branch side, 'L' loop iteration, '.' leaf
	key  string
	n    int
}

type trie struct {
	ids    map[trieKey]node
	parent []node
	steps  []step
}

type trieKey struct {
	parent node
	step   step
}

func newTrie() *trie {
	return &trie{ids: map[trieKey]node{}, parent: []node{-1}, steps: []step{{}}}
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
	hunkOf []diffhunks.ID
	spans  map[trace.SiteID]span // extent of each branch site's statement
	node   []node                // by event
	byNode map[node]int
	ctl    []int        // by event: the branch (or call) it ran under, -1 if none
	made   map[node]int // the event that opened a region or frame step
	objs   trace.Objects
	last   map[node]int // lazily: the last event under each node
	when   map[int]int  // memo of Comparison.when for passing events
}

// span is a statement's extent in a file.
type span struct {
	file       string
	start, end [2]int // (line, column), end exclusive
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
		for _, h := range sd.hunks {
			if h.File == file && (h.Kind == diffhunks.Modify && h.Head.Contains(line) || h.Kind == diffhunks.Add) && slices.Contains(sd.proof, h.ID) {
				return line, h.ID
			}
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
	r := &run{tr: tr, side: sd, byNode: map[node]int{}, made: map[node]int{}}
	r.siteKeys(sd)
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
				stmts = append(stmts, span{file, [2]int{s.Line, s.Column}, [2]int{e.Line, e.Column}})
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

// region is an open branch side or loop iteration of one frame.
type region struct {
	node node
	base node // the node the region hangs below
	site trace.SiteID
	span span
	loop bool
	k    int // iteration, for a loop
}

// frameState is the indexing state of one frame.
type frameState struct {
	prefix  node
	call    int // the event that made the frame (its Call), -1 if none
	stack   []region
	leaves  map[trieKey]int // instances so far of each leaf below a region node
	entries map[string]int  // D steps so far, by function
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
	frames := make([]*frameState, len(tr.Frames))
	roots := map[string]int{}
	initFrame := &frameState{prefix: t.intern(root, step{kind: 'I'}), call: -1}
	state := func(id trace.FrameID) *frameState {
		if id == 0 {
			return initFrame
		}
		if fs := frames[id]; fs != nil {
			return fs
		}
		fr := tr.Frame(id)
		fn := tr.Site(fr.Func).Func
		fs := &frameState{call: -1}
		switch {
		case fr.Call >= 0 && fr.Call < len(r.node):
			fs.prefix = t.intern(r.node[fr.Call], step{kind: 'C', key: fn})
			fs.call = fr.Call
			r.made[fs.prefix] = fr.Call
		case fr.Parent != 0:
			ps := frames[fr.Parent]
			if ps == nil {
				ps = initFrame
			}
			if ps.entries == nil {
				ps.entries = map[string]int{}
			}
			ps.entries[fn]++
			fs.prefix = t.intern(ps.cur(), step{kind: 'D', key: fn, n: ps.entries[fn]})
			fs.call = tr.Frame(fr.Parent).Entry
		default:
			roots[fn]++
			fs.prefix = t.intern(root, step{kind: 'G', key: fn, n: roots[fn]})
		}
		frames[id] = fs
		return fs
	}
	for i := range tr.Events {
		e := &tr.Events[i]
		fs := state(e.Frame)
		site := tr.Site(e.Site)
		for n := len(fs.stack); n > 0 && !fs.stack[n-1].span.holds(site.Pos); n-- {
			fs.stack = fs.stack[:n-1]
		}
		key := r.keys[e.Site]
		loop := e.Kind == trace.EvBranch && (site.Kind == trace.SiteFor || site.Kind == trace.SiteRange)
		// The control of an event is the region it runs in; a loop's own
		// check is controlled by what holds the loop.
		below := len(fs.stack)
		if loop && below > 0 && fs.stack[below-1].site == e.Site {
			below--
		}
		r.ctl[i] = fs.call
		if below > 0 {
			r.ctl[i] = r.made[fs.stack[below-1].node]
		}
		if loop {
			if n := len(fs.stack); n > 0 && fs.stack[n-1].site == e.Site {
				top := &fs.stack[n-1]
				top.k++
				top.node = t.intern(top.base, step{kind: 'L', key: key, n: top.k})
				r.made[top.node] = i
			} else if sp, ok := r.spans[e.Site]; ok {
				base := fs.cur()
				nd := t.intern(base, step{kind: 'L', key: key, n: 1})
				fs.stack = append(fs.stack, region{node: nd, base: base, site: e.Site, span: sp, loop: true, k: 1})
				r.made[nd] = i
			}
		}
		cur := fs.cur()
		if fs.leaves == nil {
			fs.leaves = map[trieKey]int{}
		}
		leaf := step{kind: '.', key: key + "/" + e.Kind.String()}
		lk := trieKey{cur, leaf}
		fs.leaves[lk]++
		leaf.n = fs.leaves[lk]
		nd := t.intern(cur, leaf)
		r.node[i] = nd
		r.byNode[nd] = i
		if e.Kind == trace.EvBranch && !loop {
			switch site.Kind {
			case trace.SiteIf, trace.SiteSwitch, trace.SiteSelect:
				if sp, ok := r.spans[e.Site]; ok && len(e.Values) > 0 {
					rn := t.intern(cur, step{kind: 'R', key: key, n: int(e.Values[0].Int())})
					fs.stack = append(fs.stack, region{node: rn, base: cur, site: e.Site, span: sp})
					r.made[rn] = i
				}
			}
		}
	}
}

// lastUnder returns the last event of the run whose index extends n, or
// -1 if none does.
func (r *run) lastUnder(t *trie, n node) int {
	if r.last == nil {
		r.last = map[node]int{}
		for i, nd := range r.node {
			for a := nd; a > root; a = t.parent[a] {
				r.last[a] = i
			}
		}
	}
	if i, ok := r.last[n]; ok {
		return i
	}
	return -1
}
