package diffhunks

import (
	"fmt"

	"github.com/culprit-dev/culprit/analyzer/result"
)

// ID identifies a hunk within one Set. IDs start at 1 and follow the order of
// files (sorted by path) and then of lines. It is the report's hunk id under
// the name the engine uses: one type from the diff to the report, so that an
// id is never converted on its way.
type ID = result.HunkID

// LineRange is a 1-based inclusive range of lines. An empty range (an
// insertion or deletion point) has End == Start-1: it sits just before line
// Start.
type LineRange struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// Len is the number of lines in the range.
func (r LineRange) Len() int { return r.End - r.Start + 1 }

// Contains reports whether line lies in the range.
func (r LineRange) Contains(line int) bool { return line >= r.Start && line <= r.End }

func (r LineRange) String() string { return fmt.Sprintf("%d-%d", r.Start, r.End) }

// Kind says what a hunk changes.
type Kind string

const (
	Modify Kind = "modify" // a run of changed lines inside a text file
	Add    Kind = "add"    // a whole file added in head
	Delete Kind = "delete" // a whole file deleted in head
	Rename Kind = "rename" // a whole file renamed (with or without edits)
	Binary Kind = "binary" // a whole binary file changed
	Mode   Kind = "mode"   // a file's mode changed (content may also change)
)

// Hunk is one revertible unit of change.
type Hunk struct {
	ID      ID
	File    string // path in head; for Delete, the path in base
	OldFile string // path in base; for Add, the path in head
	Base    LineRange
	Head    LineRange
	Kind    Kind
	// Func is the Go function or method (e.g. "F", "(*T).M") enclosing the
	// hunk in head (in base for deletions), or "" outside any function or in
	// a non-Go file. File and Func together are the partition key used by
	// the auxiliary-change search.
	Func string
	// Diff shows the hunk as removed ("-") and added ("+") lines, each line
	// terminated by "\n" (a "\r" before it is dropped). Whole-file text
	// hunks show the whole content; binary content is a one-line summary;
	// a Mode hunk starts with a "mode 100644 → 100755" line.
	Diff string
}

// WholeFile reports whether the hunk replaces a whole file.
func (h Hunk) WholeFile() bool { return h.Kind != Modify }

// DeletesOnly reports whether h removes code and puts nothing in its
// place: a file deleted, or lines deleted from a file.
func (h Hunk) DeletesOnly() bool {
	return h.Kind == Delete || h.Kind == Modify && h.Head.Len() <= 0
}
