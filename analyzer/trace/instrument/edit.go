package instrument

import (
	"bytes"
	"sort"
)

// Edit groups, in the order they apply at one offset.
const (
	grpClose = iota // ")" closing an expression wrapper
	grpPost         // statements appended after a statement
	grpPre          // statements inserted before a statement
	grpOpen         // opening of an expression wrapper
)

// edit is a text replacement of src[off:end] (an insertion when end == off).
// Rewrites only insert text without newlines, so every original line keeps
// its number.
type edit struct {
	off, end int
	text     string
	grp      int
	other    int // the other end of a wrapped span (for nesting order)
	seq      int
}

type edits struct {
	list []edit
	seq  int
}

func (es *edits) add(off, end, grp, other int, text string) {
	es.seq++
	es.list = append(es.list, edit{off: off, end: end, text: text, grp: grp, other: other, seq: es.seq})
}

// wrap surrounds src[start:end] with open and close. Wrappers registered
// later around the same span end up outside earlier ones.
func (es *edits) wrap(start, end int, open, close string) {
	es.add(start, start, grpOpen, end, open)
	es.add(end, end, grpClose, start, close)
}

func (es *edits) pre(off int, text string)  { es.add(off, off, grpPre, 0, text) }
func (es *edits) post(off int, text string) { es.add(off, off, grpPost, 0, text) }

func (es *edits) replace(off, end int, text string) { es.add(off, end, grpPre, 0, text) }

// apply returns src with the edits applied.
func (es *edits) apply(src []byte) []byte {
	l := append([]edit(nil), es.list...)
	sort.SliceStable(l, func(i, j int) bool {
		a, b := l[i], l[j]
		if a.off != b.off {
			return a.off < b.off
		}
		if a.grp != b.grp {
			return a.grp < b.grp
		}
		switch a.grp {
		case grpClose: // innermost first: larger start, then earlier registration
			if a.other != b.other {
				return a.other > b.other
			}
			return a.seq < b.seq
		case grpOpen: // outermost first: larger end, then later registration
			if a.other != b.other {
				return a.other > b.other
			}
			return a.seq > b.seq
		}
		return a.seq < b.seq
	})
	var out bytes.Buffer
	pos := 0
	for _, e := range l {
		if e.off < pos {
			continue // overlaps an earlier replacement; cannot happen for well-formed rewrites
		}
		out.Write(src[pos:e.off])
		out.WriteString(e.text)
		pos = e.end
	}
	out.Write(src[pos:])
	return out.Bytes()
}
