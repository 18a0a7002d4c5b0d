package diffhunks

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// FromDirs builds the Set between two directory trees on disk, such as two
// checkouts. ".git" directories are skipped. Files are recorded with the
// modes git would give them (0644, 0755, or a symlink holding its target);
// renames are detected only when the content is identical.
func FromDirs(baseDir, headDir string) (*Set, error) {
	base, err := readTree(baseDir)
	if err != nil {
		return nil, err
	}
	head, err := readTree(headDir)
	if err != nil {
		return nil, err
	}
	return newSet(base, head, exactRenames(base, head))
}

// readTree loads every regular file and symlink under root.
func readTree(root string) (map[string]file, error) {
	tree := map[string]file{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Name() == ".git" && p != root {
			// A repository's own data, or a worktree's pointer to it.
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		switch t := d.Type(); {
		case t&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			tree[rel] = file{data: []byte(target), mode: modeLink}
		case t.IsRegular():
			info, err := d.Info()
			if err != nil {
				return err
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			mode := modeFile
			if info.Mode()&0o111 != 0 {
				mode = modeExec
			}
			tree[rel] = file{data: data, mode: mode}
		}
		// Sockets, devices and pipes have no content git would track.
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading tree %s: %w", root, err)
	}
	return tree, nil
}
