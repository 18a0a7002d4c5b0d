package result

import (
	"slices"

	"github.com/culprit-dev/culprit/analyzer/note"
)

// Note is one finding with its data; which fields carry data depends on
// the code (package note lists what each code uses).
type Note struct {
	Code    note.Code `json:"code"`
	N       int       `json:"n,omitempty"`
	M       int       `json:"m,omitempty"`
	Hunks   []HunkID  `json:"hunks,omitempty"`
	Outcome string    `json:"outcome,omitempty"`
	Limit   string    `json:"limit,omitempty"`
	// Detail is text from a tool (an error, a compiler line), quoted as data.
	Detail string `json:"detail,omitempty"`
}

// Findings are the notes of one analysis, in the order they arose.
type Findings []Note

// Add appends n unless an equal note is already there.
func (l *Findings) Add(n Note) {
	for _, m := range *l {
		if m.Code == n.Code && m.N == n.N && m.M == n.M && m.Outcome == n.Outcome &&
			m.Limit == n.Limit && m.Detail == n.Detail && slices.Equal(m.Hunks, n.Hunks) {
			return
		}
	}
	*l = append(*l, n)
}

// Has reports whether the list holds a note of code c.
func (l Findings) Has(c note.Code) bool {
	return slices.ContainsFunc(l, func(n Note) bool { return n.Code == c })
}
