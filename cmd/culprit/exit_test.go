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
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestMain lets a test run the command as its own process: with
// CULPRIT_TEST_AS_MAIN=1 the test binary is culprit (main, its signal
// handling and exit codes included).
func TestMain(m *testing.M) {
	if os.Getenv("CULPRIT_TEST_AS_MAIN") == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

// command is culprit as a child process with args, in dir.
func command(t *testing.T, dir string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CULPRIT_TEST_AS_MAIN=1")
	return cmd
}

// TestHelp: every way of asking for help prints it on standard output and
// exits 0; the top-level usage names every flag of explain that changes
// what it does, the version command and the exit codes.
func TestHelp(t *testing.T) {
	for name, tt := range map[string]struct {
		args []string
		want []string // what stdout must name
	}{
		"top --help": {[]string{"--help"}, []string{"--budget", "--timeout", "--quiet", "--mode", "--fail-on", "--max-trials", "culprit version", "130"}},
		"top -h":     {[]string{"-h"}, []string{"culprit explain"}},
		"help":       {[]string{"help"}, []string{"culprit explain"}},
		"explain":    {[]string{"explain", "--help"}, []string{"-base", "-fail-on", "exit codes", "130"}},
		"explain -h": {[]string{"explain", "-h"}, []string{"-run"}},
		"demo":       {[]string{"demo", "--help"}, []string{"-format"}},
		"bench":      {[]string{"bench", "--help"}, []string{"-strategies"}},
		"trace":      {[]string{"trace", "--help"}, []string{"-skipped"}},
	} {
		t.Run(name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := run(context.Background(), tt.args, &stdout, &stderr)
			if code := exitCode(err, &stderr); code != 0 {
				t.Errorf("exit code %d (err %v), want 0", code, err)
			}
			for _, w := range tt.want {
				if !strings.Contains(stdout.String(), w) {
					t.Errorf("help lacks %q:\n%s", w, stdout.String())
				}
			}
			if stderr.Len() != 0 {
				t.Errorf("help wrote on stderr: %q", stderr.String())
			}
		})
	}
}

// TestStrayArguments: an argument that is no flag's value is a usage
// error, not silently ignored.
func TestStrayArguments(t *testing.T) {
	// Each command line would fail early for another reason too, so that
	// a culprit that ignores the stray argument does no work.
	for name, args := range map[string][]string{
		"explain": {"explain", "--base", "HEAD~1", "--head", "HEAD", "--run", "TestX", "--workers", "0", "TestY"},
		"demo":    {"demo", "--format", "yaml", "now"},
		"trace":   {"trace", "./p"},
		"bench":   {"bench", "--corpus", "/no/such/dir", "fast"},
		"version": {"version", "--short"},
	} {
		t.Run(name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := run(context.Background(), args, &stdout, &stderr)
			if code := exitCode(err, &stderr); code != 2 {
				t.Errorf("exit code %d (err %v), want 2", code, err)
			}
			if stray := strings.TrimLeft(args[len(args)-1], "-"); !strings.Contains(stderr.String(), stray) {
				t.Errorf("stderr %q does not name the stray argument %q", stderr.String(), stray)
			}
			if stdout.Len() != 0 {
				t.Errorf("a usage error printed on stdout: %q", stdout.String())
			}
		})
	}
}

// stderrWatch is a stderr that calls fn once, on the first write that
// contains want.
type stderrWatch struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	want string
	fn   func()
}

func (w *stderrWatch) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if w.fn != nil && strings.Contains(w.buf.String(), w.want) {
		w.fn()
		w.fn = nil
	}
	return len(p), nil
}

func (w *stderrWatch) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// TestInterruptedRun cancels an analysis under way, as main does on
// SIGINT: the exit code is 130 and no report is written, not one whose
// note says the context was cancelled.
func TestInterruptedRun(t *testing.T) {
	sc, repo := materialize(t, "../../testdata/unused-var.txtar")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stderr := &stderrWatch{want: "classify", fn: cancel}
	var stdout bytes.Buffer
	err := run(ctx, []string{"explain", "--repo", repo.Dir, "--base", repo.Base, "--head", repo.Head,
		"--run", sc.Test, "--format", "json"}, &stdout, stderr)
	if code := exitCode(err, stderr); code != 130 {
		t.Errorf("exit code %d (err %v), want 130", code, err)
	}
	if stdout.Len() != 0 {
		t.Errorf("an interrupted analysis printed a report:\n%s", stdout.String())
	}
}

// TestSIGINT sends SIGINT to culprit as a process during an analysis: it
// stops with exit code 130, prints no report and leaves no worktree.
func TestSIGINT(t *testing.T) {
	if testing.Short() {
		t.Skip("runs culprit as a process")
	}
	sc, repo := materialize(t, "../../testdata/unused-var.txtar")
	cmd := command(t, repo.Dir, "explain", "--base", repo.Base, "--head", repo.Head, "--run", sc.Test, "--format", "json")
	var stdout bytes.Buffer
	stderr := &stderrWatch{want: "classify"}
	started := make(chan struct{})
	stderr.fn = func() { close(started) }
	cmd.Stdout, cmd.Stderr = &stdout, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-started:
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		t.Fatalf("no progress within a minute:\n%s", stderr.String())
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Errorf("culprit ended with %v, want exit status 130\n%s", err, stderr.String())
	}
	if stdout.Len() != 0 {
		t.Errorf("an interrupted analysis printed a report:\n%s", stdout.String())
	}
	if wts := worktrees(t, repo.Dir); len(wts) != 1 {
		t.Errorf("worktrees left: %q", wts)
	}
}

// worktrees lists the worktrees git has registered for the repository in
// dir, the main one first.
func worktrees(t *testing.T, dir string) []string {
	t.Helper()
	out, err := exec.Command("git", "-C", dir, "worktree", "list", "--porcelain").Output()
	if err != nil {
		t.Fatal(err)
	}
	var wts []string
	for _, line := range strings.Split(string(out), "\n") {
		if p, ok := strings.CutPrefix(line, "worktree "); ok {
			wts = append(wts, p)
		}
	}
	return wts
}

// TestFailOn: --fail-on makes the verdicts it names exit 3, after the
// report is written; without it every verdict exits 0.
func TestFailOn(t *testing.T) {
	for _, tt := range []struct {
		name, archive, failOn string
		want                  int
	}{
		{"regression, no fail-on", "unused-var", "", 0},
		{"regression, regressions", "unused-var", "regressions", 3},
		{"fails on base, regressions", "pre-existing", "regressions", 0},
		{"fails on base, test-failures", "pre-existing", "test-failures", 3},
		{"fails on base, errors", "pre-existing", "errors", 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sc, repo := materialize(t, "../../testdata/"+tt.archive+".txtar")
			args := []string{"explain", "--repo", repo.Dir, "--base", repo.Base, "--head", repo.Head,
				"--run", sc.Test, "--strategy", "dynamic", "--format", "json", "--quiet"}
			if tt.failOn != "" {
				args = append(args, "--fail-on", tt.failOn)
			}
			var stdout, stderr bytes.Buffer
			err := run(context.Background(), args, &stdout, &stderr)
			if code := exitCode(err, &stderr); code != tt.want {
				t.Errorf("exit code %d (err %v), want %d\n%s", code, err, tt.want, stderr.String())
			}
			var doc struct {
				Status string `json:"status"`
			}
			if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil || doc.Status != sc.Status {
				t.Errorf("report status %q (%v), want %s: the report is written whatever the exit code", doc.Status, err, sc.Status)
			}
		})
	}
	t.Run("unknown value", func(t *testing.T) {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), []string{"explain", "--base", "a", "--head", "b", "--run", "TestX", "--fail-on", "failures"}, &stdout, &stderr)
		if code := exitCode(err, &stderr); code != 2 || !strings.Contains(stderr.String(), "fail-on") {
			t.Errorf("exit code %d, stderr %q; want 2 naming --fail-on", code, stderr.String())
		}
	})
}

// TestOutCheckedFirst: an --out that cannot be written is refused before
// the analysis starts, not after it has run for minutes.
func TestOutCheckedFirst(t *testing.T) {
	sc, repo := materialize(t, "../../testdata/unused-var.txtar")
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	readOnly := filepath.Join(dir, "ro")
	if err := os.Mkdir(readOnly, 0o555); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{
		"a directory":         dir,
		"no such directory":   filepath.Join(dir, "missing", "report.json"),
		"parent is a file":    filepath.Join(file, "report.json"),
		"read-only directory": filepath.Join(readOnly, "report.json"),
	} {
		t.Run(name, func(t *testing.T) {
			if name == "read-only directory" && os.Geteuid() == 0 {
				t.Skip("root writes into read-only directories")
			}
			var stdout, stderr bytes.Buffer
			start := time.Now()
			err := run(context.Background(), []string{"explain", "--repo", repo.Dir, "--base", repo.Base, "--head", repo.Head,
				"--run", sc.Test, "--out", out}, &stdout, &stderr)
			if code := exitCode(err, &stderr); code != 2 {
				t.Errorf("exit code %d (err %v), want 2", code, err)
			}
			if !strings.Contains(stderr.String(), "--out") {
				t.Errorf("stderr %q does not name --out", stderr.String())
			}
			if strings.Contains(stderr.String(), "hunks") || time.Since(start) > 5*time.Second {
				t.Errorf("the analysis started before --out was checked (%v):\n%s", time.Since(start), stderr.String())
			}
		})
	}
	t.Run("writable file is left alone", func(t *testing.T) {
		out := filepath.Join(dir, "new.json")
		var stdout, stderr bytes.Buffer
		// A bad revision fails after the flags are checked: the probe of
		// --out must not leave a file behind.
		err := run(context.Background(), []string{"explain", "--repo", repo.Dir, "--base", "no-such-rev", "--head", repo.Head,
			"--run", sc.Test, "--out", out, "--quiet"}, &stdout, &stderr)
		if code := exitCode(err, &stderr); code != 1 {
			t.Errorf("exit code %d (err %v), want 1", code, err)
		}
		if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("checking --out left %s behind (%v)", out, err)
		}
	})
}
