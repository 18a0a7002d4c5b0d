package diffhunks

import (
	"bytes"
	"unicode/utf8"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// lineStarts returns the byte offset at which each line of b starts,
// followed by len(b). A line keeps its terminator ("\n", so "\r\n" too), and
// a last line without one still counts, so slicing b between consecutive
// offsets gives back every byte exactly once.
func lineStarts(b []byte) []int {
	offs := make([]int, 0, bytes.Count(b, []byte{'\n'})+2)
	for i := 0; i < len(b); {
		offs = append(offs, i)
		j := bytes.IndexByte(b[i:], '\n')
		if j < 0 {
			i = len(b)
		} else {
			i += j + 1
		}
	}
	return append(offs, len(b))
}

// change is one maximal run of changed lines: base lines [b0, b1) became
// head lines [h0, h1), 0-based and half-open.
type change struct {
	b0, b1, h0, h1 int
}

// diffLines computes the line changes from base to head. Each maximal run of
// deleted and inserted lines is one change, so changes are as small as the
// diff allows and any subset of them can be reverted independently.
func diffLines(base, head []byte) []change {
	dmp := diffmatchpatch.New()
	// No deadline: a timed-out diff is coarser and would make hunk ids
	// depend on machine speed, and ids must be stable between runs.
	dmp.DiffTimeout = 0
	// Each line becomes one rune; go-diff splits lines exactly as
	// lineStarts does (after each "\n", last unterminated line kept), so the
	// rune counts of its diffs are line counts in our offsets. Only counts
	// are used: the hashed texts never have to survive a round trip, which
	// keeps non-UTF-8 bytes out of go-diff's string conversions.
	r1, r2, _ := dmp.DiffLinesToRunes(string(base), string(head))
	diffs := dmp.DiffMainRunes(r1, r2, false)

	var out []change
	var cur *change
	i, j := 0, 0
	for _, d := range diffs {
		n := utf8.RuneCountInString(d.Text)
		if n == 0 {
			continue
		}
		if d.Type == diffmatchpatch.DiffEqual {
			if cur != nil {
				out = append(out, *cur)
				cur = nil
			}
			i += n
			j += n
			continue
		}
		if cur == nil {
			cur = &change{b0: i, b1: i, h0: j, h1: j}
		}
		if d.Type == diffmatchpatch.DiffDelete {
			i += n
			cur.b1 = i
		} else {
			j += n
			cur.h1 = j
		}
	}
	if cur != nil {
		out = append(out, *cur)
	}
	if i != len(r1) || j != len(r2) {
		// go-diff's output always covers both inputs; anything else is a
		// bug there and would corrupt every variant built from it.
		panic("diffhunks: line diff does not cover both files")
	}
	return out
}

// isBinary reports whether data is treated as binary: like git, a NUL byte
// in the first 8000 bytes. Text that is not valid UTF-8 (Latin-1, say) is
// still diffed by lines, since lines are split on bytes and survive intact.
func isBinary(data []byte) bool {
	const sniff = 8000
	if len(data) > sniff {
		data = data[:sniff]
	}
	return bytes.IndexByte(data, 0) >= 0
}

// appendLines writes lines[from:to] of data, each prefixed by sign and ending
// in exactly one "\n" (a "\r" before it is dropped so reports stay clean).
func appendLines(sb *bytes.Buffer, sign byte, data []byte, offs []int, from, to int) {
	for k := from; k < to; k++ {
		line := data[offs[k]:offs[k+1]]
		line = bytes.TrimSuffix(line, []byte{'\n'})
		line = bytes.TrimSuffix(line, []byte{'\r'})
		sb.WriteByte(sign)
		sb.Write(line)
		sb.WriteByte('\n')
	}
}
