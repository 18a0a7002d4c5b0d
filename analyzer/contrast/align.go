// Package contrast sets the failing run beside the passing run (head with
// the proof's hunks reverted): it aligns their events by execution
// indexing, finds where they differ and walks the differences back from
// the failure to the change (COMPARATIVE.md).
package contrast

import (
	"fmt"
	"strconv"

	"github.com/culprit-dev/culprit/analyzer/result"
	"github.com/culprit-dev/culprit/analyzer/trace"
	"github.com/culprit-dev/culprit/diffhunks"
)

// Runs describes the two traced runs to compare.
type Runs struct {
	Failing, Passing       *trace.Trace
	FailingDir, PassingDir string // the module roots the traces' files are relative to
	// Prefix is the module root relative to the repository ("." at the top).
	Prefix string
	Hunks  []diffhunks.Hunk
	Proof  []diffhunks.ID // reverted in the passing run (root and auxiliary)
	// Failure is the failing run's failure event the path ends at, as
	// the semantic analysis chose it; 0 means the trace's first failure.
	Failure int
}

// Comparison is two aligned runs.
type Comparison struct {
	t    *trie
	runs [2]*run // failing, passing
	in   Runs
	path *Path // set by Path
	// origins names each run's objects by the event that first saw them
	// (memory.go), built on first use.
	origins [2]*origins
	// unlinked lists, by frame, the frames each run entered from it with
	// no call event (unlinkedFrames), built on first use.
	unlinked [2]map[trace.FrameID][]trace.FrameID
	// outside names the hunk outside the proof of each event crossedCause
	// reached there.
	outside map[item]diffhunks.ID
}

// Side names one of the two runs.
type Side int

const (
	Failing Side = iota
	Passing
)

func (s Side) other() Side { return 1 - s }

// Compare indexes both runs and aligns them.
func Compare(in Runs) (*Comparison, error) {
	c := &Comparison{t: newTrie(), in: in}
	sides := [2]side{
		{dir: in.FailingDir, prefix: in.Prefix, hunks: in.Hunks, proof: in.Proof},
		{dir: in.PassingDir, prefix: in.Prefix, hunks: in.Hunks, proof: in.Proof, revert: true},
	}
	for k, tr := range [2]*trace.Trace{in.Failing, in.Passing} {
		r, err := newRun(tr, sides[k], c.t)
		if err != nil {
			return nil, err
		}
		c.runs[k] = r
	}
	return c, nil
}

// Counterpart returns the event of the other run with the same index as
// event i of run s, -1 when there is none.
func (c *Comparison) Counterpart(s Side, i int) int {
	if i < 0 {
		return -1
	}
	if j, ok := c.runs[s.other()].event(c.runs[s].node[i]); ok {
		return j
	}
	return -1
}

// same compares two recorded values as far as they mean the same in two
// runs: scalars and strings exactly, pointers and slices by shape only
// (nil-ness, length), since addresses differ between any two runs, and a
// []byte also by its content's hash. known
// is false for values the trace does not record comparably (structs,
// arrays, non-nil interfaces): they may or may not differ. Comparison's
// sameIn adds what the runs' events say about which object a pointer
// names.
func same(a, b trace.Value) (eq, known bool) {
	if a.Kind != b.Kind {
		return false, true
	}
	switch a.Kind {
	case trace.ValPointer:
		return a.Nil == b.Nil, true
	case trace.ValIface:
		// Two non-nil interfaces may hold different dynamic types or
		// values, which the trace records only as addresses: known to
		// differ when the runtime named two different types (or two
		// messages); a small value held is compared as a struct is.
		if a.Nil || b.Nil {
			return a.Nil == b.Nil, true
		}
		if eq, known := trace.SameBoxed(a, b); known {
			return eq, true
		}
		if a.Prefix != "" && b.Prefix != "" && a.Prefix != b.Prefix {
			return false, true
		}
		if a.Cap != 0 && b.Cap != 0 {
			// Two errors made by errors.New or fmt.Errorf: alike when
			// their messages are, which the runtime hashed.
			return a.Len == b.Len && a.Cap == b.Cap, true
		}
		return false, false
	case trace.ValSlice:
		// The runtime hashes the elements of a slice of bytes, booleans,
		// numbers or strings (sampled when long); other slices compare
		// by shape.
		return a.Nil == b.Nil && a.Len == b.Len && a.Cap == b.Cap && a.Hash == b.Hash, true
	case trace.ValOpaque:
		// A struct recorded by its bytes: alike when every field is a
		// bool or number and they are equal; known to differ when what
		// is shown of them differs.
		return trace.SameStruct(a, b)
	case trace.ValNone:
		return false, false
	}
	return a == b, true
}

// outputs are what an event produced: values written, a branch's outcome,
// results, the arguments of a call or failure, and what an assignment
// that writes nothing evaluated (a range loop's ranged value, read once
// for the iterations, or a blank assignment's value).
func outputs(e *trace.Event) []trace.Value {
	var out []trace.Value
	for _, w := range e.Writes {
		out = append(out, w.Value)
	}
	switch {
	case e.Kind == trace.EvBranch, e.Kind == trace.EvReturn, e.Kind == trace.EvCallExt:
		out = append(out, e.Values...)
	case e.Kind == trace.EvCall, e.Kind == trace.EvFail, e.Kind == trace.EvAssign && len(e.Writes) == 0:
		for _, r := range e.Reads {
			out = append(out, r.Value)
		}
	}
	return out
}

// differs reports whether event i of run s and its counterpart j produced
// different outputs, or outputs that cannot be compared (which may
// differ, so a walk must not stop there).
func (c *Comparison) differs(s Side, i, j int) bool {
	a, b := outputs(c.runs[s].tr.Event(i)), outputs(c.runs[s.other()].tr.Event(j))
	if len(a) != len(b) {
		return true
	}
	if len(a) == 0 && c.runs[s].tr.Event(i).Kind == trace.EvReturn && c.forwardsDifference(s, i) {
		return true
	}
	for k := range a {
		if eq, known := c.sameIn(s, a[k], b[k]); !eq || !known {
			return true
		}
	}
	return c.movedWrite(s, i, j)
}

// relevant reports whether event i of run s is part of the difference
// between the runs: it has no counterpart, or its counterpart produced
// something else (or something not comparable).
func (c *Comparison) relevant(s Side, i int) bool {
	j := c.Counterpart(s, i)
	return j < 0 || c.differs(s, i, j)
}

// Annotate describes the passing run's instance of failing event i, for
// a tree step; false when that is unknown (the passing trace was cut
// short before the step could have run).
func (c *Comparison) Annotate(i int) (*result.Passing, bool) {
	j := c.Counterpart(Failing, i)
	if j < 0 {
		if c.runs[Passing].tr.Truncated {
			return nil, false
		}
		return &result.Passing{Missing: true}, true
	}
	p := &result.Passing{Values: c.values(Passing, j), Outcome: c.outcome(Passing, j)}
	if ft, pt := c.runs[Failing].tr.SiteOf(i).Text, c.runs[Passing].tr.SiteOf(j).Text; ft != pt {
		p.Text = pt
	}
	return p, true
}

// values are event i's operand values by source text, pointers named by
// their object: a passing run's object by the failing run's name of its
// counterpart (asFailing).
func (c *Comparison) values(s Side, i int) map[string]string {
	r := c.runs[s]
	e := r.tr.Event(i)
	site := r.tr.SiteOf(i)
	out := map[string]string{}
	format := func(v trace.Value, t trace.Type) string {
		if s == Passing && v.Kind == trace.ValPointer && !v.Nil {
			v.Bits = c.asFailing(v.Bits)
		}
		return v.Format(t, &c.runs[Failing].objs)
	}
	// A slice is shown by its length; where the other run's slice at the
	// same operand has that length too but another capacity, the
	// capacity is what differs, and is shown; where it has the same
	// capacity too, its elements differ, which is said.
	none := func(int) (trace.Item, bool) { return trace.Item{}, false }
	reads, writes := none, none
	if j := c.Counterpart(s, i); j >= 0 {
		o := c.runs[s.other()].tr.Event(j)
		reads, writes = o.Read, o.Write
	}
	add := func(items []trace.Item, counterpart func(slot int) (trace.Item, bool)) {
		for _, it := range items {
			o, ok := operand(site, it.Slot)
			if !ok || o.Text == "" {
				continue
			}
			text := format(it.Value, o.Type)
			if v, ok := counterpart(it.Slot); ok && capOnly(it.Value, v.Value) {
				text += fmt.Sprintf(" (cap %d)", it.Value.Cap)
			} else if ok && elemsOnly(it.Value, v.Value) {
				text += ", other elements"
			}
			out[o.Text] = text
		}
	}
	add(e.Reads, reads)
	add(e.Writes, writes)
	if e.Kind == trace.EvReturn && len(e.Values) == 1 {
		var t trace.Type
		if len(site.Exprs) == 1 && site.Exprs[0] != nil {
			t = site.Exprs[0].Type
		}
		out["return"] = format(e.Values[0], t)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// elemsOnly reports whether slices a and b, shown by their lengths, have
// the same length and capacity but elements of other values (their
// recorded hashes differ); a []byte shows its content instead.
func elemsOnly(a, b trace.Value) bool {
	return a.Kind == trace.ValSlice && b.Kind == trace.ValSlice && !a.Nil && !b.Nil && a.Prefix == "" && b.Prefix == "" &&
		a.Len == b.Len && a.Cap == b.Cap && a.Hash != 0 && b.Hash != 0 && a.Hash != b.Hash
}

// capOnly reports whether slices a and b differ in their capacity only.
func capOnly(a, b trace.Value) bool {
	return a.Kind == trace.ValSlice && b.Kind == trace.ValSlice && !a.Nil && !b.Nil && a.Len == b.Len && a.Cap != b.Cap
}

// outcome is a branch event's outcome in words, "" for other events.
func (c *Comparison) outcome(s Side, i int) string {
	e := c.runs[s].tr.Event(i)
	if e.Kind != trace.EvBranch || len(e.Values) == 0 {
		return ""
	}
	v := e.Values[0]
	if v.Kind == trace.ValBool {
		return strconv.FormatBool(v.Bool())
	}
	if v.Int() < 0 {
		return "no case"
	}
	return fmt.Sprintf("case %d", v.Int()+1)
}

func operand(s *trace.Site, slot int) (trace.Operand, bool) {
	for _, o := range s.Operands {
		if o.Slot == slot {
			return o, true
		}
	}
	return trace.Operand{}, false
}
