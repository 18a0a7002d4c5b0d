package trace

import "slices"

// Span is a range of addresses, [Lo, Hi).
type Span struct{ Lo, Hi uint64 }

// InStatic reports whether address a lies in the binary's static data.
func (t *Trace) InStatic(a uint64) bool {
	_, ok := slices.BinarySearchFunc(t.Static, a, func(s Span, a uint64) int {
		switch {
		case a < s.Lo:
			return 1
		case a >= s.Hi:
			return -1
		}
		return 0
	})
	return ok
}
