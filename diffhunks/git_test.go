package diffhunks

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// gitRepo is a scratch repository whose commits are made from in-memory
// trees.
type gitRepo struct {
	t   *testing.T
	dir string
}

func newGitRepo(t *testing.T) *gitRepo {
	t.Helper()
	// FromGit runs git too, so the isolation must be in the environment.
	for k, v := range map[string]string{
		"GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1",
		"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
		"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com",
	} {
		t.Setenv(k, v)
	}
	r := &gitRepo{t: t, dir: t.TempDir()}
	r.git("init", "-q", "-b", "main")
	return r
}

func (r *gitRepo) git(args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = r.dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// commit replaces the work tree with tree (paths ending in ".sh" or listed
// in exec are executable) and returns the new commit id.
func (r *gitRepo) commit(tree map[string][]byte, exec ...string) string {
	r.t.Helper()
	r.git("rm", "-rqf", "--ignore-unmatch", ".")
	for p, data := range tree {
		full := filepath.Join(r.dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			r.t.Fatal(err)
		}
		mode := os.FileMode(0o644)
		for _, e := range exec {
			if e == p {
				mode = 0o755
			}
		}
		if err := os.WriteFile(full, data, mode); err != nil {
			r.t.Fatal(err)
		}
		if err := os.Chmod(full, mode); err != nil {
			r.t.Fatal(err)
		}
	}
	r.git("add", "-A")
	r.git("commit", "-q", "--allow-empty", "-m", "c")
	return r.git("rev-parse", "HEAD")
}

func TestFromGit(t *testing.T) {
	long := strings.Repeat("a line long enough to make renames similar\n", 20)
	base := files(
		"keep.txt", "same\n",
		"pkg/old.go", "package pkg\n\n"+long,
		"moved.txt", long+"end\n",
		"gone.txt", "bye\n",
		"run.sh", "#!/bin/sh\necho hi\n",
		"crlf.txt", "one\r\ntwo\r\nthree\r\n",
		"noeol.txt", "a\nb",
		"latin1.txt", "caf\xe9\nna\xefve\n",
		"blob.bin", "\x00\x01\x02",
	)
	head := files(
		"keep.txt", "same\n",
		"pkg/new.go", "package pkg\n\n"+long,
		"moved2.txt", long+"END\n",
		"added.txt", "hello\n",
		"run.sh", "#!/bin/sh\necho hi\n",
		"crlf.txt", "one\r\nTWO\r\nthree\r\n",
		"noeol.txt", "a\nc",
		"latin1.txt", "caf\xe9\nna\xefve!\xff\n",
		"blob.bin", "\x00\x01\x03\x04",
	)
	r := newGitRepo(t)
	b := r.commit(base)
	h := r.commit(head, "run.sh")

	s, err := FromGit(context.Background(), r.dir, b, h)
	if err != nil {
		t.Fatal(err)
	}
	type brief struct {
		Kind          Kind
		File, OldFile string
		Diff          string
	}
	var got []brief
	for _, hk := range s.Hunks() {
		d := hk.Diff
		if hk.Kind == Rename {
			d = "" // full contents; checked through Variant below
		}
		got = append(got, brief{hk.Kind, hk.File, hk.OldFile, d})
	}
	want := []brief{
		{Add, "added.txt", "added.txt", "+hello\n"},
		{Binary, "blob.bin", "blob.bin", "binary file changed (3 → 4 bytes)\n"},
		{Modify, "crlf.txt", "crlf.txt", "-two\n+TWO\n"},
		{Delete, "gone.txt", "gone.txt", "-bye\n"},
		{Modify, "latin1.txt", "latin1.txt", "-na\xefve\n+na\xefve!\xff\n"},
		{Rename, "moved2.txt", "moved.txt", ""},
		{Modify, "noeol.txt", "noeol.txt", "-b\n+c\n"},
		{Rename, "pkg/new.go", "pkg/old.go", ""},
		{Mode, "run.sh", "run.sh", "mode 100644 → 100755\n"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("hunks (-want +got):\n%s", diff)
	}
	if m, bm := s.Mode("run.sh"), s.BaseMode("run.sh"); m != 0o755 || bm != 0o644 {
		t.Errorf("run.sh modes: head %v, base %v", m, bm)
	}

	files, deleted, err := s.Variant(allIDs(s))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(normalize(base), normalize(apply(head, files, deleted))); diff != "" {
		t.Errorf("reverting everything does not give base (-want +got):\n%s", diff)
	}
	modes, err := s.VariantModes(allIDs(s))
	if err != nil {
		t.Fatal(err)
	}
	if modes["run.sh"] != 0o644 {
		t.Errorf("VariantModes(all)[run.sh] = %v, want 0644", modes["run.sh"])
	}

	// The same trees on disk give the same hunks, except that a rename
	// with edits is only found by git: on disk it is a delete and an add.
	fromDirs, err := FromDirs(r.checkout(b), r.checkout(h))
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, hk := range fromDirs.Hunks() {
		kinds = append(kinds, string(hk.Kind)+" "+hk.OldFile+" "+hk.File)
	}
	wantKinds := []string{
		"add added.txt added.txt", "binary blob.bin blob.bin", "modify crlf.txt crlf.txt",
		"delete gone.txt gone.txt", "modify latin1.txt latin1.txt", "delete moved.txt moved.txt",
		"add moved2.txt moved2.txt", "modify noeol.txt noeol.txt", "rename pkg/old.go pkg/new.go",
		"mode run.sh run.sh",
	}
	if diff := cmp.Diff(wantKinds, kinds); diff != "" {
		t.Errorf("FromDirs hunks (-want +got):\n%s", diff)
	}
	files, deleted, err = fromDirs.Variant(allIDs(fromDirs))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(normalize(base), normalize(apply(head, files, deleted))); diff != "" {
		t.Errorf("FromDirs: reverting everything does not give base (-want +got):\n%s", diff)
	}
}

// checkout writes the tree of rev into a new directory.
func (r *gitRepo) checkout(rev string) string {
	r.t.Helper()
	dir := r.t.TempDir()
	r.git("worktree", "add", "-q", "--detach", dir, rev)
	return dir
}

func TestFromGitErrors(t *testing.T) {
	r := newGitRepo(t)
	c := r.commit(files("a", "1\n"))
	ctx := context.Background()
	tests := []struct {
		name, dir, base, head, want string
	}{
		{"unknown base", r.dir, "no-such-branch", c, `unknown revision "no-such-branch"`},
		{"unknown head", r.dir, c, "deadbeef", `unknown revision "deadbeef"`},
		{"option-like revision", r.dir, "--all", c, `invalid revision "--all"`},
		{"not a repository", t.TempDir(), "HEAD", "HEAD", "not a git repository"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := FromGit(ctx, tt.dir, tt.base, tt.head)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("FromGit error = %v, want it to mention %s", err, tt.want)
			}
		})
	}
}

func TestFromGitNoChange(t *testing.T) {
	r := newGitRepo(t)
	c := r.commit(files("a", "1\n"))
	s, err := FromGit(context.Background(), r.dir, c, c)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(s.Hunks()); n != 0 {
		t.Errorf("same revision twice gave %d hunks", n)
	}
}
