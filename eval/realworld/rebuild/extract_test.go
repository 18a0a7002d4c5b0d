package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestExtract exports a commit of a real repository, and fails loudly on
// a commit the repository does not have, where tar alone would have
// extracted nothing and said nothing.
func TestExtract(t *testing.T) {
	repo := t.TempDir()
	sh := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), fixedIdentity...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	sh("init", "-q", "-b", "main")
	if err := os.WriteFile(filepath.Join(repo, "a.go"), []byte("package a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sh("add", "a.go")
	sh("commit", "-q", "-m", "a")
	commit := sh("rev-parse", "HEAD")
	gitDir := filepath.Join(repo, ".git")

	dir := t.TempDir()
	if err := extract(gitDir, commit, dir); err != nil {
		t.Fatalf("extract %s: %v", commit, err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "a.go")); err != nil || string(b) != "package a\n" {
		t.Errorf("a.go after extract = %q, %v", b, err)
	}
	missing := strings.Repeat("1", 40)
	err := extract(gitDir, missing, t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "git archive") {
		t.Errorf("extract of a missing commit: err = %v, want git archive's error", err)
	}
}
