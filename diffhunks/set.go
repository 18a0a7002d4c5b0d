package diffhunks

import (
	"bytes"
	"fmt"
	"io/fs"
	"sort"
)

// Set is the change between a base and a head tree, split into hunks. It
// holds only the files that changed; a Set is immutable and safe for
// concurrent use.
type Set struct {
	base, head map[string]file // changed paths only
	hunks      []Hunk
	edits      []edit // edits[i] belongs to hunks[i]
}

// file is one tree entry. A symlink's data is its target.
type file struct {
	data []byte
	mode fs.FileMode
}

// edit locates a Modify hunk in bytes, so that building a variant is a
// splice rather than a re-diff: head[h0:h1] is replaced by base[b0:b1].
type edit struct {
	b0, b1, h0, h1 int
}

// rename pairs a base path with the head path it moved to.
type rename struct{ old, new string }

// Regular file modes as git records them; other permission bits are not
// tracked by git, so trees read from disk are normalised to these.
const (
	modeFile = fs.FileMode(0o644)
	modeExec = fs.FileMode(0o755)
	modeLink = fs.ModeSymlink | 0o777
)

// FromFiles builds the Set between two in-memory trees keyed by
// slash-separated relative paths. All files get mode 0644. A file that
// disappears from base while a file with identical, non-empty content
// appears in head is taken as a rename.
func FromFiles(base, head map[string][]byte) (*Set, error) {
	b := make(map[string]file, len(base))
	for p, d := range base {
		b[p] = file{data: d, mode: modeFile}
	}
	h := make(map[string]file, len(head))
	for p, d := range head {
		h[p] = file{data: d, mode: modeFile}
	}
	return newSet(b, h, exactRenames(b, h))
}

// exactRenames pairs base-only and head-only paths with identical content.
// Pairing follows sorted paths so that the result is deterministic.
func exactRenames(base, head map[string]file) []rename {
	gone := map[string][]string{} // content → base-only paths, sorted
	for _, p := range sortedKeys(base) {
		if _, ok := head[p]; !ok && len(base[p].data) > 0 {
			k := string(base[p].data)
			gone[k] = append(gone[k], p)
		}
	}
	var rs []rename
	for _, p := range sortedKeys(head) {
		if _, ok := base[p]; ok {
			continue
		}
		k := string(head[p].data)
		if olds := gone[k]; len(olds) > 0 {
			rs = append(rs, rename{old: olds[0], new: p})
			gone[k] = olds[1:]
		}
	}
	return rs
}

func sortedKeys(m map[string]file) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// newSet splits the change between two trees into hunks. base and head may
// be whole trees or only their changed files; renames name paths that moved.
func newSet(base, head map[string]file, renames []rename) (*Set, error) {
	for _, m := range []map[string]file{base, head} {
		for p := range m {
			if !fs.ValidPath(p) || p == "." {
				return nil, fmt.Errorf("invalid path %q: want a clean slash-separated relative path", p)
			}
		}
	}
	movedTo := map[string]string{} // new → old
	movedFrom := map[string]bool{}
	for _, r := range renames {
		if _, ok := base[r.old]; !ok {
			return nil, fmt.Errorf("rename %s → %s: %s is not in base", r.old, r.new, r.old)
		}
		if _, ok := head[r.new]; !ok {
			return nil, fmt.Errorf("rename %s → %s: %s is not in head", r.old, r.new, r.new)
		}
		if _, ok := head[r.old]; ok || movedFrom[r.old] {
			return nil, fmt.Errorf("rename %s → %s: %s is still in head or renamed twice", r.old, r.new, r.old)
		}
		movedTo[r.new] = r.old
		movedFrom[r.old] = true
	}

	s := &Set{base: map[string]file{}, head: map[string]file{}}
	paths := map[string]bool{}
	for p := range base {
		paths[p] = true
	}
	for p := range head {
		paths[p] = true
	}
	sorted := make([]string, 0, len(paths))
	for p := range paths {
		sorted = append(sorted, p)
	}
	sort.Strings(sorted)

	// Paths are visited in order and each emits its hunks in line order, so
	// hunks come out sorted by file then line, and ids follow.
	for _, p := range sorted {
		bf, inBase := base[p]
		hf, inHead := head[p]
		switch old, moved := movedTo[p]; {
		case moved:
			s.base[old], s.head[p] = base[old], hf
			s.addWhole(Rename, p, old, base[old], hf)
		case movedFrom[p]:
			// Emitted with its new path.
		case !inBase:
			s.head[p] = hf
			s.addWhole(Add, p, p, file{}, hf)
		case !inHead:
			s.base[p] = bf
			s.addWhole(Delete, p, p, bf, file{})
		case bf.mode != hf.mode:
			s.base[p], s.head[p] = bf, hf
			s.addWhole(Mode, p, p, bf, hf)
		case bytes.Equal(bf.data, hf.data):
			// Unchanged.
		case isBinary(bf.data) || isBinary(hf.data):
			s.base[p], s.head[p] = bf, hf
			s.addWhole(Binary, p, p, bf, hf)
		default:
			s.base[p], s.head[p] = bf, hf
			s.addLines(p, bf.data, hf.data)
		}
	}
	for i := range s.hunks {
		s.hunks[i].ID = ID(i + 1)
	}
	s.assignFuncs()
	return s, nil
}

// addLines adds one Modify hunk per maximal run of changed lines.
func (s *Set) addLines(path string, base, head []byte) {
	bo, ho := lineStarts(base), lineStarts(head)
	for _, c := range diffLines(base, head) {
		var sb bytes.Buffer
		appendLines(&sb, '-', base, bo, c.b0, c.b1)
		appendLines(&sb, '+', head, ho, c.h0, c.h1)
		s.hunks = append(s.hunks, Hunk{
			File:    path,
			OldFile: path,
			Base:    LineRange{Start: c.b0 + 1, End: c.b1},
			Head:    LineRange{Start: c.h0 + 1, End: c.h1},
			Kind:    Modify,
			Diff:    sb.String(),
		})
		s.edits = append(s.edits, edit{b0: bo[c.b0], b1: bo[c.b1], h0: ho[c.h0], h1: ho[c.h1]})
	}
}

// addWhole adds a hunk that replaces a whole file. An absent side is the
// zero file.
func (s *Set) addWhole(kind Kind, path, oldPath string, bf, hf file) {
	h := Hunk{File: path, OldFile: oldPath, Kind: kind, Base: LineRange{1, 0}, Head: LineRange{1, 0}}
	var sb bytes.Buffer
	if kind == Mode {
		fmt.Fprintf(&sb, "mode %s → %s\n", gitMode(bf.mode), gitMode(hf.mode))
	}
	switch {
	case isBinary(bf.data) || isBinary(hf.data):
		switch kind {
		case Add:
			fmt.Fprintf(&sb, "binary file added (%d bytes)\n", len(hf.data))
		case Delete:
			fmt.Fprintf(&sb, "binary file deleted (%d bytes)\n", len(bf.data))
		default:
			fmt.Fprintf(&sb, "binary file changed (%d → %d bytes)\n", len(bf.data), len(hf.data))
		}
	case kind == Mode && bytes.Equal(bf.data, hf.data):
		// Only the mode changed; the content needs no lines.
	default:
		bo, ho := lineStarts(bf.data), lineStarts(hf.data)
		nb, nh := len(bo)-1, len(ho)-1
		h.Base.End, h.Head.End = nb, nh
		appendLines(&sb, '-', bf.data, bo, 0, nb)
		appendLines(&sb, '+', hf.data, ho, 0, nh)
	}
	h.Diff = sb.String()
	s.hunks = append(s.hunks, h)
	s.edits = append(s.edits, edit{})
}

// gitMode spells a mode the way git does, which is what reviewers know.
func gitMode(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "120000"
	case m == 0:
		return "000000"
	case m&0o111 != 0:
		return "100755"
	default:
		return "100644"
	}
}

// Hunks returns all hunks in id order. The slice is a copy.
func (s *Set) Hunks() []Hunk {
	return append([]Hunk(nil), s.hunks...)
}

// Hunk returns the hunk with the given id.
func (s *Set) Hunk(id ID) (Hunk, bool) {
	if id < 1 || int(id) > len(s.hunks) {
		return Hunk{}, false
	}
	return s.hunks[id-1], true
}

// BaseFile returns the base content of a changed path. Unchanged paths are
// not kept and report false. The slice must not be modified.
func (s *Set) BaseFile(path string) ([]byte, bool) {
	f, ok := s.base[path]
	return f.data, ok
}

// HeadFile returns the head content of a changed path, like BaseFile.
func (s *Set) HeadFile(path string) ([]byte, bool) {
	f, ok := s.head[path]
	return f.data, ok
}

// Mode returns the head mode of a changed path: 0644, 0755, or
// fs.ModeSymlink|0777; 0 if the path is absent from head or unchanged.
func (s *Set) Mode(path string) fs.FileMode { return s.head[path].mode }

// BaseMode returns the base mode of a changed path, like Mode.
func (s *Set) BaseMode(path string) fs.FileMode { return s.base[path].mode }
