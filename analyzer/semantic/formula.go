package semantic

import (
	"fmt"

	"github.com/culprit-dev/culprit/analyzer/smt"
	"github.com/culprit-dev/culprit/analyzer/trace"
)

// formula encodes the trace formula (SEMANTIC.md §2) one event at a time,
// on demand: an event's soft clause is built the first time the slice
// reaches it, and records the events it depends on, so the slice grows
// backwards from a target as OFC grows its formula.
type formula struct {
	tr  *trace.Trace
	c   *smt.Context
	idx *index

	clause map[int]*evClause // by labelling event; nil entry: no clause
	// inputs are the hard clauses v = observed, by variable name.
	inputs     map[string]smt.Term
	inputOrder []string
	// callExt result variables, by event and result index.
	extRes map[[2]int]smt.Term
	// opaque counts point-wise encodings.
	pointWise int
	// exact leaves out the premises that make an uninstrumented call
	// depend on reads no expression models (unmodelled, receiverCall).
	exact bool
}

// evClause is the soft clause of one event.
type evClause struct {
	term smt.Term
	deps []int // events whose clauses this one reads
}

func newFormula(tr *trace.Trace, c *smt.Context, idx *index) *formula {
	return &formula{
		tr: tr, c: c, idx: idx,
		clause: map[int]*evClause{},
		inputs: map[string]smt.Term{},
		extRes: map[[2]int]smt.Term{},
	}
}

// sortOf maps a Go type to a solver sort. Types without a precise model
// (strings, floats, pointers, …) are 64-bit codes of their recorded
// values: equality of codes is their equality; anything else about them is
// point-wise.
func sortOf(t trace.Type) (s smt.Sort, precise bool) {
	switch t.Kind {
	case trace.TypeBool:
		return smt.BoolSort, true
	case trace.TypeInt, trace.TypeUint:
		bits := t.Bits
		if bits == 0 {
			bits = 64
		}
		return smt.IntSort(bits, t.Kind == trace.TypeInt), true
	}
	return smt.IntSort(64, false), false
}

// code returns the bits a recorded value is encoded by.
func code(v trace.Value) uint64 {
	switch v.Kind {
	case trace.ValBool, trace.ValInt, trace.ValUint, trace.ValFloat:
		return v.Bits
	case trace.ValString:
		return v.Hash ^ uint64(v.Len)*0x9e3779b97f4a7c15
	case trace.ValPointer, trace.ValSlice, trace.ValIface:
		if v.Nil {
			return 0
		}
		if v.Kind == trace.ValSlice {
			// A slice is its header here: a []byte's content hash
			// changes with writes through its array, which leave the
			// variable's value as it was (Value.Alike).
			v.Hash = 0
		}
		return v.Bits ^ v.Hash*0x9e3779b97f4a7c15 ^ uint64(v.Len)<<1
	}
	return v.Hash
}

func (f *formula) constOf(v trace.Value, t trace.Type) smt.Term {
	s, _ := sortOf(t)
	if t.Kind == trace.TypeOther || t.Kind == 0 && v.Kind != trace.ValNone {
		switch v.Kind {
		case trace.ValBool:
			s = smt.BoolSort
		case trace.ValInt:
			s = smt.IntSort(64, true)
		}
	}
	return f.c.Const(s, code(v))
}

func (f *formula) operand(ev, slot int) (trace.Operand, bool) {
	for _, o := range f.tr.SiteOf(ev).Operands {
		if o.Slot == slot {
			return o, true
		}
	}
	return trace.Operand{}, false
}

// defVar is the SSA variable of the value event d wrote in slot.
func (f *formula) defVar(d, slot int) smt.Term {
	o, _ := f.operand(d, slot)
	s, _ := sortOf(o.Type)
	return f.c.Var(fmt.Sprintf("v%d.%d", d, slot), s)
}

// input returns the variable name with the hard clause name = v.
func (f *formula) input(name string, v trace.Value, t trace.Type) smt.Term {
	s, _ := sortOf(t)
	x := f.c.Var(name, s)
	if _, ok := f.inputs[name]; !ok {
		eq, err := f.c.Eq(x, f.c.Const(s, code(v)))
		if err != nil {
			// Both sides were made with sort s.
			panic(err)
		}
		f.inputs[name] = eq
		f.inputOrder = append(f.inputOrder, name)
	}
	return x
}

// eventClause returns the soft clause of event i, building it on first
// use; nil if the event constrains nothing (calls, failures, branches
// without a boolean condition).
func (f *formula) eventClause(i int) (ec *evClause, err error) {
	if ec, ok := f.clause[i]; ok {
		return ec, nil
	}
	err = f.c.Do(func() { ec = f.build(i) })
	if err != nil {
		return nil, fmt.Errorf("encoding event %d: %w", i, err)
	}
	f.clause[i] = ec
	return ec, nil
}

// resultVar is the variable of result k bound by the return event ret;
// its sort follows the returned expression's type, so that the binding
// and every use of the call's result agree.
func (f *formula) resultVar(ret, k int) smt.Term {
	ev := f.tr.Event(ret)
	site := f.tr.SiteOf(ret)
	var t trace.Type
	if n := f.results(ret); len(site.Exprs) == n && site.Exprs[k] != nil {
		t = site.Exprs[k].Type
	} else if k < len(ev.Values) {
		t = typeOfValue(ev.Values[k])
	}
	s, _ := sortOf(t)
	return f.c.Var(fmt.Sprintf("r%d.%d", ev.Frame, k), s)
}

// results returns the number of results the return event ret binds: its
// recorded values, or one per result expression when trailing constant
// results were not recorded (not for `return f()` forwarding a tuple).
func (f *formula) results(ret int) int {
	ev := f.tr.Event(ret)
	site := f.tr.SiteOf(ret)
	n := len(ev.Values)
	if len(site.Exprs) > n && !(len(site.Exprs) == 1 && site.Exprs[0] != nil && site.Exprs[0].Op == trace.ExprCall && site.Exprs[0].Slot < 0) {
		n = len(site.Exprs)
	}
	return n
}

func typeOfValue(v trace.Value) trace.Type {
	switch v.Kind {
	case trace.ValBool:
		return trace.Type{Kind: trace.TypeBool}
	case trace.ValInt:
		return trace.Type{Kind: trace.TypeInt, Bits: 64}
	case trace.ValUint:
		return trace.Type{Kind: trace.TypeUint, Bits: 64}
	}
	return trace.Type{Kind: trace.TypeOther}
}

func dedup(xs []int) []int {
	seen := map[int]bool{}
	var out []int
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
