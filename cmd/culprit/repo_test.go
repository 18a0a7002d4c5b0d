package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestExplainFromSubdirectory runs culprit in a subdirectory of the
// repository, as a process with no --repo and with --repo naming the
// subdirectory: both find the repository's top level.
func TestExplainFromSubdirectory(t *testing.T) {
	sc, repo := materialize(t, "../../testdata/after-example.txtar")
	sub := filepath.Join(repo.Dir, "calc")
	check := func(t *testing.T, stdout []byte) {
		t.Helper()
		var doc struct {
			Status string `json:"status"`
			Test   struct {
				Package string `json:"package"`
			} `json:"test"`
		}
		if err := json.Unmarshal(stdout, &doc); err != nil {
			t.Fatalf("report is not JSON: %v\n%s", err, stdout)
		}
		if doc.Status != "explained" || doc.Test.Package != "./calc" {
			t.Errorf("status %s, package %s; want explained ./calc", doc.Status, doc.Test.Package)
		}
	}
	args := []string{"explain", "--base", repo.Base, "--head", repo.Head, "--run", sc.Test,
		"--strategy", "dynamic", "--format", "json", "--quiet"}
	t.Run("--repo names a subdirectory", func(t *testing.T) {
		var stdout, stderr bytes.Buffer
		if err := run(context.Background(), append(args, "--repo", sub), &stdout, &stderr); err != nil {
			t.Fatalf("explain: %v\n%s", err, stderr.String())
		}
		check(t, stdout.Bytes())
	})
	t.Run("working directory", func(t *testing.T) {
		if testing.Short() {
			t.Skip("runs culprit as a process")
		}
		cmd := command(t, sub, args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("culprit in %s: %v\n%s", sub, err, stderr.String())
		}
		check(t, out)
	})
}

// TestRepoNotUsable: a --repo that does not exist, is a file or is no git
// repository is a usage error that says so, before any work starts.
func TestRepoNotUsable(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for name, tt := range map[string]struct {
		repo, want string
	}{
		"missing":       {filepath.Join(dir, "nope"), "does not exist"},
		"a file":        {file, "not a directory"},
		"no repository": {dir, "not in a git repository"},
	} {
		t.Run(name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := run(context.Background(), []string{"explain", "--repo", tt.repo, "--base", "HEAD~1", "--head", "HEAD", "--run", "TestX"}, &stdout, &stderr)
			if code := exitCode(err, &stderr); code != 2 {
				t.Errorf("exit code %d (err %v), want 2", code, err)
			}
			if msg := stderr.String(); !strings.Contains(msg, tt.repo) || !strings.Contains(msg, tt.want) || strings.Contains(msg, "fork/exec") {
				t.Errorf("stderr %q; want it to say %s %q", msg, tt.repo, tt.want)
			}
		})
	}
}

// TestKilledRunIsCleanedUp kills culprit with SIGKILL while its trials
// run, which leaves its worktrees registered in the repository; the next
// run on the repository removes them and their directory.
func TestKilledRunIsCleanedUp(t *testing.T) {
	if testing.Short() {
		t.Skip("runs culprit as a process")
	}
	sc, repo := materialize(t, "../../testdata/unused-var.txtar")
	args := []string{"explain", "--base", repo.Base, "--head", repo.Head, "--run", sc.Test, "--format", "json", "--quiet"}
	cmd := command(t, repo.Dir, args...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for len(worktrees(t, repo.Dir)) < 2 {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("no worktree within a minute")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("culprit ended with %v before it was killed", err)
	}
	left := worktrees(t, repo.Dir)[1:]
	if len(left) == 0 {
		t.Fatal("the killed run left no worktree: nothing to test")
	}
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), append(args, "--repo", repo.Dir), &stdout, &stderr); err != nil {
		t.Fatalf("the next run: %v\n%s", err, stderr.String())
	}
	if wts := worktrees(t, repo.Dir); len(wts) != 1 {
		t.Errorf("after the next run, worktrees %q are still registered", wts[1:])
	}
	for _, wt := range left {
		if _, err := os.Stat(filepath.Dir(wt)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the killed run's directory %s is still there (%v)", filepath.Dir(wt), err)
		}
	}
}

// TestSubtestMatchesNothing names a subtest that does not exist while its
// parent regressed: culprit says so and lists the subtests that ran, with
// no report and exit code 1, instead of a verdict on a test that never ran.
func TestSubtestMatchesNothing(t *testing.T) {
	sc, repo := materialize(t, "../../analyzer/testdata/subtest-no-match.txtar")
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"explain", "--repo", repo.Dir, "--base", repo.Base, "--head", repo.Head,
		"--run", sc.Test, "--format", "json", "--quiet"}, &stdout, &stderr)
	if code := exitCode(err, &stderr); code != 1 {
		t.Errorf("exit code %d (err %v), want 1; report:\n%s", code, err, stdout.String())
	}
	for _, want := range append([]string{sc.Test}, strings.Fields(sc.Keys["subtests"])...) {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr %q does not name %s", stderr.String(), want)
		}
	}
	if stdout.Len() != 0 {
		t.Errorf("printed a report:\n%s", stdout.String())
	}
}
