package diffhunks

import "slices"

// VariantLine maps line of file in the variant that reverts the hunks of
// revert (among hunks) back to head: the head line when it lies outside the
// reverted hunks, and the reverted hunk holding or preceding it (zero when
// none), inside telling whether the line is one of that hunk's restored
// base lines. Only Modify hunks shift lines; a reverted whole-file hunk
// has no head lines to map to.
func VariantLine(hunks []Hunk, revert []ID, file string, line int) (head int, near Hunk, inside bool) {
	var reverted []Hunk
	for _, h := range hunks {
		if h.File == file && h.Kind == Modify && slices.Contains(revert, h.ID) {
			reverted = append(reverted, h)
		}
	}
	slices.SortFunc(reverted, func(x, y Hunk) int { return x.Head.Start - y.Head.Start })
	head = line
	for _, h := range reverted {
		start := h.Head.Start + (line - head) // h's first line in the variant
		if line < start {
			break
		}
		near = h
		if line < start+h.Base.Len() {
			return head, near, true
		}
		head -= h.Base.Len() - h.Head.Len()
	}
	return head, near, false
}
