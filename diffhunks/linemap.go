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

// HeadAt is the one rule for which hunk holds line of file at head (file
// relative to the repository): a Modify hunk whose head lines hold it, or
// the file's whole-file hunk when head's file is new (Add) or renamed
// (Rename), as every line of it then comes from the change. It returns
// 0 when no hunk holds the line: code head shares with base. Lines of a
// variant are mapped to head with VariantLine first.
func HeadAt(hunks []Hunk, file string, line int) ID {
	for _, h := range hunks {
		if h.File != file {
			continue
		}
		if h.Kind == Modify && h.Head.Contains(line) || h.Kind == Add || h.Kind == Rename {
			return h.ID
		}
	}
	return 0
}
