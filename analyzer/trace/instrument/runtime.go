package instrument

import (
	"embed"
	"fmt"
	"os"
	"path/filepath"
)

//go:embed rt/*.go
var rtFS embed.FS

// writeRuntime copies the runtime package's sources to tmp and maps them
// into the overlay at dir (a directory that need not exist). upgrade raises
// the files' language version above an old module's.
func writeRuntime(dir, tmp string, overlay map[string]string, upgrade bool) error {
	ents, err := rtFS.ReadDir("rt")
	if err != nil {
		return fmt.Errorf("reading embedded runtime: %w", err)
	}
	for _, e := range ents {
		if filepath.Ext(e.Name()) == ".go" && len(e.Name()) > 8 && e.Name()[len(e.Name())-8:] == "_test.go" {
			continue
		}
		b, err := rtFS.ReadFile("rt/" + e.Name())
		if err != nil {
			return fmt.Errorf("reading embedded runtime: %w", err)
		}
		if upgrade {
			b = withGoVersion(b, runtimeGo, filepath.Join(dir, e.Name()))
		}
		dst := filepath.Join(tmp, "rt_"+e.Name())
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			return fmt.Errorf("writing runtime: %w", err)
		}
		overlay[filepath.Join(dir, e.Name())] = dst
	}
	return nil
}
