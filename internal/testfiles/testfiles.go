// Package testfiles writes the small file trees that tests build their
// modules and repositories from.
package testfiles

import (
	"os"
	"path/filepath"
	"testing"
)

// Write writes files, named by slash-separated paths relative to dir,
// under dir, making the directories they need. It fails tb on any error.
func Write[T ~string | ~[]byte](tb testing.TB, dir string, files map[string]T) {
	tb.Helper()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}
