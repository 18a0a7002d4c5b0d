package diffhunks

import (
	"fmt"
	"io/fs"
	"slices"
)

// Variant builds the head tree with the given hunks reverted, expressed as
// changes to head: files holds the content of every path that differs from
// head (including base paths brought back by reverting a Delete or Rename),
// and deleted lists, sorted, the head paths that the variant lacks. The
// order of revert and repeated ids do not matter; an unknown id is an error.
// Returned slices may share memory with the Set and must not be modified.
//
// The cost is linear in the size of the files touched plus k log k for k
// ids, whatever the number of hunks in the Set.
func (s *Set) Variant(revert []ID) (files map[string][]byte, deleted []string, err error) {
	ids, err := s.normalize(revert)
	if err != nil {
		return nil, nil, err
	}
	files = map[string][]byte{}
	for k := 0; k < len(ids); {
		h := s.hunks[ids[k]-1]
		if h.Kind == Modify {
			// Ids are sorted and hunks ordered by file then line, so one
			// file's reverted hunks are adjacent and in byte order.
			end := k + 1
			for end < len(ids) && s.hunks[ids[end]-1].File == h.File {
				end++
			}
			files[h.File] = s.splice(h.File, ids[k:end])
			k = end
			continue
		}
		k++
		switch h.Kind {
		case Add:
			deleted = append(deleted, h.File)
		case Delete:
			files[h.OldFile] = s.base[h.OldFile].data
		case Rename:
			deleted = append(deleted, h.File)
			files[h.OldFile] = s.base[h.OldFile].data
		case Binary, Mode:
			// A pure mode change leaves the content as in head; the mode
			// comes back through VariantModes.
			if b := s.base[h.File].data; string(b) != string(s.head[h.File].data) {
				files[h.File] = b
			}
		default:
			panic(fmt.Sprintf("diffhunks: hunk %d has unknown kind %q", h.ID, h.Kind))
		}
	}
	slices.Sort(deleted)
	return files, deleted, nil
}

// VariantModes returns, for the variant with the given hunks reverted, the
// mode of every path whose mode differs from head or that the variant
// restores from base. Paths not listed keep their head mode.
func (s *Set) VariantModes(revert []ID) (map[string]fs.FileMode, error) {
	ids, err := s.normalize(revert)
	if err != nil {
		return nil, err
	}
	modes := map[string]fs.FileMode{}
	for _, id := range ids {
		switch h := s.hunks[id-1]; h.Kind {
		case Delete, Rename, Mode:
			modes[h.OldFile] = s.base[h.OldFile].mode
		}
	}
	return modes, nil
}

// normalize checks ids and returns them sorted without repeats.
func (s *Set) normalize(revert []ID) ([]ID, error) {
	ids := slices.Clone(revert)
	for _, id := range ids {
		if id < 1 || int(id) > len(s.hunks) {
			return nil, fmt.Errorf("revert: unknown hunk id %d (have 1..%d)", id, len(s.hunks))
		}
	}
	slices.Sort(ids)
	return slices.Compact(ids), nil
}

// splice builds path's head content with the given Modify hunks (sorted)
// replaced by their base lines.
func (s *Set) splice(path string, ids []ID) []byte {
	head, base := s.head[path].data, s.base[path].data
	size := len(head)
	for _, id := range ids {
		e := s.edits[id-1]
		size += (e.b1 - e.b0) - (e.h1 - e.h0)
	}
	out := make([]byte, 0, size)
	pos := 0
	for _, id := range ids {
		e := s.edits[id-1]
		out = append(out, head[pos:e.h0]...)
		out = append(out, base[e.b0:e.b1]...)
		pos = e.h1
	}
	return append(out, head[pos:]...)
}
