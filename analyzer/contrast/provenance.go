package contrast

// This file holds the walk's sources of a read's value beyond the write it
// saw: a write a condition skipped (untakenWrites), the changed code that
// made a crossed write run (crossedCause), and where the pointer a field
// was read through came from (readBase).

import (
	"go/token"
	"slices"
	"sort"
	"strings"

	"github.com/culprit-dev/culprit/analyzer/trace"
	"github.com/culprit-dev/culprit/diffhunks"
)

// untakenWrites lists, latest first, the if statements of event e's frame
// that ran after the write e's read rd saw (rd.def, in the same frame),
// hold a statement that writes rd's operand, and did not run it: had
// their condition gone the other way, e would have read another value.
// This is a potential dependence, the way an omission shows in a run: a
// separator not appended because `if i > 1` was false at i = 1 leaves no
// write to follow. Only a condition that went the other way in the other
// run counts (aligned, its outcome proven to differ): that run is the
// evidence that the write could happen. One that went the same way
// explains no difference, and one the other run never evaluated (new
// code) says nothing of what that run wrote.
func (c *Comparison) untakenWrites(s Side, e int, rd read) []int {
	r := c.runs[s]
	tr := r.tr
	if rd.def < 0 || rd.text == "" || rd.call || tr.Event(rd.def).Frame != tr.Event(e).Frame {
		return nil
	}
	evs := tr.FrameEvents(tr.Event(e).Frame)
	at := sort.SearchInts(evs, e)
	from := sort.SearchInts(evs, rd.def)
	// No event between the two wrote the operand (rd.def is the latest
	// write): a condition whose statement holds a write of it skipped
	// that write.
	var out []int
	for k := at - 1; k > from && k >= at-guardWindow; k-- {
		i := evs[k]
		ev := tr.Event(i)
		if ev.Kind != trace.EvBranch || tr.Site(ev.Site).Kind != trace.SiteIf {
			continue
		}
		if sp, ok := r.spans[ev.Site]; ok && len(r.writersIn(sp, rd.text)) > 0 && c.Counterpart(s, i) >= 0 && c.provenDifferent(s, i) {
			out = append(out, i)
		}
	}
	return out
}

// writesOperand reports whether site writes an operand of source text t.
func writesOperand(site *trace.Site, t string) bool {
	for _, op := range site.Operands {
		if op.Write && op.Text == t {
			return true
		}
	}
	return false
}

// writersKey names a statement and an operand's source text.
type writersKey struct {
	sp span
	t  string
}

// writersIn lists the sites inside sp that write an operand of source
// text t, memoised by the statement and text.
func (r *run) writersIn(sp span, t string) []trace.SiteID {
	if r.writers == nil {
		r.writers = map[writersKey][]trace.SiteID{}
		r.fileSites = map[string][]trace.SiteID{}
		for id := 1; id < len(r.tr.Sites); id++ {
			f := r.tr.Sites[id].Pos.File
			r.fileSites[f] = append(r.fileSites[f], trace.SiteID(id))
		}
		for _, ids := range r.fileSites {
			slices.SortFunc(ids, func(a, b trace.SiteID) int { return r.tr.Sites[a].Pos.Line - r.tr.Sites[b].Pos.Line })
		}
	}
	k := writersKey{sp, t}
	if w, ok := r.writers[k]; ok {
		return w
	}
	ids := r.fileSites[sp.file]
	at, _ := slices.BinarySearchFunc(ids, sp.start[0], func(id trace.SiteID, line int) int { return r.tr.Sites[id].Pos.Line - line })
	var out []trace.SiteID
	for _, id := range ids[at:] {
		site := &r.tr.Sites[id]
		if site.Pos.Line > sp.end[0] {
			break
		}
		if sp.holds(site.Pos) && writesOperand(site, t) {
			out = append(out, id)
		}
	}
	r.writers[k] = out
	return out
}

// maxCrossedHops bounds how far up its control crossedCause looks.
const maxCrossedHops = 16

// crossedCause explains a write d that a read of run s saw where its
// counterpart read saw another write, although d itself may be alike in
// both runs (a cache entry that both runs filled, read by code that, in
// the other run, computes its own): d's value differs from the other
// read's for the reason d ran. It lists d and its control ancestry (the
// branches and calls it ran under), nearest first, up to the nearest one
// in a hunk the proof keeps, which both runs ran; that one is noted
// (outsideHunk) and shown as the change's all the same. nil when the
// ancestry reaches a hunk the proof reverts first, whose steps the
// comparison of the runs judges, or none within maxCrossedHops: the path
// is left as it was.
func (c *Comparison) crossedCause(s Side, d int) []int {
	r := c.runs[s]
	var out []int
	for a, n := d, 0; a >= 0 && n < maxCrossedHops; a, n = r.ctl[a], n+1 {
		out = append(out, a)
		site := r.tr.Event(a).Site
		if r.hunkOf[site] != 0 {
			return nil // the proof's hunk: the runs' comparison speaks for it
		}
		if h := r.anyHunk(site); h != 0 {
			if c.outside == nil {
				c.outside = map[item]diffhunks.ID{}
			}
			c.outside[item{side: s, event: a}] = h
			return out
		}
	}
	return nil
}

// outsideHunk is the hunk, outside the proof, that holds event e of run
// s when crossedCause reached it; 0 otherwise.
func (c *Comparison) outsideHunk(s Side, e int) diffhunks.ID {
	return c.outside[item{side: s, event: e}]
}

// anyHunk is the hunk of the change whose head lines hold site id, when
// the proof does not revert it (those are hunkOf's); 0 if none. The site's
// line is mapped to head as headLine maps it.
func (r *run) anyHunk(id trace.SiteID) diffhunks.ID {
	sd := r.side
	pos := r.tr.Sites[id].Pos
	file := sd.repoPath(pos.File)
	head, inProof := sd.headLine(file, pos.Line)
	if inProof != 0 {
		return 0
	}
	if h := diffhunks.HeadAt(sd.hunks, file, head); !slices.Contains(sd.proof, h) {
		return h
	}
	return 0
}

// readBase is the latest write, in event e's frame, of the variable at
// the base of rd's operand (`old` in `old.key`, `s` in `s[i].v`), when the
// operand reaches memory through it: a read that saw another write than
// its counterpart may have gone through a pointer to another object, and
// that difference lies in where the pointer came from. -1 when the
// operand is the variable itself, or the latest write of it in the frame
// (a parameter's is its entry) is not proven to differ from its
// counterpart: a copy that only may differ (a struct too large to
// compare) is left to the read's own definition.
func (c *Comparison) readBase(s Side, e int, rd read) int {
	base := rd.text
	if k := strings.IndexAny(base, ".["); k > 0 {
		base = base[:k]
	}
	if base == rd.text || !token.IsIdentifier(base) {
		return -1
	}
	if d := latestWrite(c.runs[s].tr, e, base); d >= 0 && c.provenDifferent(s, d) {
		return d
	}
	return -1
}
