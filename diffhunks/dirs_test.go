package diffhunks

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFromDirsModes(t *testing.T) {
	base, head := t.TempDir(), t.TempDir()
	write := func(dir, name, data string, mode os.FileMode) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
	}
	write(base, "run.sh", "echo 1\n", 0o644)
	write(head, "run.sh", "echo 1\n", 0o700) // only the mode changes
	write(base, "tool", "v1\n", 0o755)
	write(head, "tool", "v2\n", 0o644) // mode and content change
	write(base, "same", "s\n", 0o600)  // 0600 and 0644 are the same to git
	write(head, "same", "s\n", 0o644)
	if err := os.Symlink("run.sh", filepath.Join(head, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(head, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(head, ".git/config", "ignored\n", 0o644)

	s, err := FromDirs(base, head)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, h := range s.Hunks() {
		got = append(got, string(h.Kind)+" "+h.File+": "+h.Diff)
	}
	want := []string{
		"add link: +run.sh\n",
		"mode run.sh: mode 100644 → 100755\n",
		"mode tool: mode 100755 → 100644\n-v1\n+v2\n",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("hunks (-want +got):\n%s", diff)
	}
	if s.Mode("link") != modeLink {
		t.Errorf("Mode(link) = %v, want a symlink", s.Mode("link"))
	}

	files, deleted, err := s.Variant([]ID{1, 2, 3})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{"tool": "v1\n"}, normalize(files)); diff != "" {
		t.Errorf("variant files (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"link"}, deleted); diff != "" {
		t.Errorf("variant deleted (-want +got):\n%s", diff)
	}
	modes, err := s.VariantModes([]ID{2, 3})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]os.FileMode{"run.sh": 0o644, "tool": 0o755}, modes); diff != "" {
		t.Errorf("variant modes (-want +got):\n%s", diff)
	}
}

func TestFromDirsMissing(t *testing.T) {
	if _, err := FromDirs(filepath.Join(t.TempDir(), "nope"), t.TempDir()); err == nil {
		t.Error("FromDirs on a missing directory: no error")
	}
}
