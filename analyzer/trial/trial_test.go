package trial

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/culprit-dev/culprit/diffhunks"
	"github.com/google/go-cmp/cmp"
)

// calcVariants are the variants of calcRepo the tests try, by id.
var calcVariants = fileVariants{
	"1": {files: map[string]string{"calc/calc.go": "package calc\n\nfunc F(x, y int) int {\n\treturn x + y\n}\n"}},
	"2": {files: map[string]string{"calc/calc.go": "package calc\n\nfunc F(x, y int) int {\n\tz := 1\n\treturn x + y\n}\n"}},
	"3": {files: map[string]string{"calc/calc_test.go": `package calc

import (
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"
)

func TestF(t *testing.T) {
	cmd := exec.Command("sleep", "300")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(os.Getenv("CULPRIT_PIDFILE"), []byte(strconv.Itoa(cmd.Process.Pid)), 0o644)
	time.Sleep(time.Hour)
}
`}},
	"4": {files: map[string]string{"calc/calc.go": "package calc\n\nfunc F(x, y int) int {\n\tvar m map[int]int\n\tm[x] = y\n\treturn x + y\n}\n"}},
	"5": {deleted: []string{"calc/calc_test.go"}},
	"6": {files: map[string]string{"calc/testdata/want.txt": "6\n"}},
	"7": {files: map[string]string{"calc/calc_test.go": "package calc\n\nimport (\"os\"; \"testing\")\n\nfunc TestF(t *testing.T) { os.Exit(3) }\n"}},
	"8": {files: map[string]string{"calc/new/new.go": "package new\n", "calc/calc.go": "package calc\n\nimport _ \"example.com/m/calc/new\"\n\nfunc F(x, y int) int {\n\treturn x + y\n}\n"}},
	// Variants with a file beside the code, which -overlay cannot give.
	"9":  {files: map[string]string{"CHANGELOG.md": "# 1.0\n", "calc/calc.go": "package calc\n\nfunc F(x, y int) int {\n\treturn x + y\n}\n"}},
	"10": {files: map[string]string{"CHANGELOG.md": "# 1.1\n"}},
	"11": {files: map[string]string{"CHANGELOG.md": "# 1.2\n"}},
	"12": {files: map[string]string{"CHANGELOG.md": "# 1.3\n"}},
	"13": {files: map[string]string{"CHANGELOG.md": "# 1.4\n"}},
	"14": {files: map[string]string{"CHANGELOG.md": "# 1.5\n", "calc/calc.go": "package calc\n\nfunc F(x, y int) int {\n\tz := 1\n\treturn x + y\n}\n"}},
}

func TestRun(t *testing.T) {
	dir, head := gitRepo(t, calcRepo)
	pidFile := filepath.Join(t.TempDir(), "pid")
	r := newRunner(t, Config{Dir: dir, Head: head, Variants: calcVariants, Pkg: "./calc", Test: "TestF",
		Timeout: 8 * time.Second, Workers: 2, Env: []string{"CULPRIT_PIDFILE=" + pidFile}})
	sub := newRunner(t, Config{Dir: dir, Head: head, Variants: calcVariants, Pkg: "./calc", Test: "TestSub/two words"})
	type got struct {
		Outcome   Outcome
		Signature string
	}
	tests := []struct {
		name   string
		r      *Runner
		revert []diffhunks.ID
		want   got
		msg    string // substring of Message
	}{
		{name: "head fails", revert: nil, want: got{Fail, "calc/calc_test.go:17"}, msg: "F(2, 3) = 6, want 5"},
		{name: "fix passes", revert: []diffhunks.ID{1}, want: got{Pass, ""}},
		{name: "build error", revert: []diffhunks.ID{2}, want: got{BuildError, ""}, msg: "calc/calc.go:4:2: declared and not used: z"},
		{name: "panic", revert: []diffhunks.ID{4}, want: got{Fail, "calc/calc.go:5"}, msg: "panic: assignment to entry in nil map"},
		{name: "test deleted", revert: []diffhunks.ID{5}, want: got{NoTests, ""}},
		{name: "testdata in a worktree", revert: []diffhunks.ID{6}, want: got{Pass, ""}},
		{name: "exit without verdict", revert: []diffhunks.ID{7}, want: got{Crash, ""}},
		{name: "new package by overlay", revert: []diffhunks.ID{8}, want: got{Pass, ""}},
		{name: "subtest with spaces", r: sub, revert: nil, want: got{Fail, "calc/calc_test.go:24"}, msg: "F(0, 0) != 0"},
		{name: "subtest passes", r: sub, revert: []diffhunks.ID{1}, want: got{Pass, ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rr := tt.r
			if rr == nil {
				rr = r
			}
			res, err := rr.Run(context.Background(), tt.revert)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got{res.Outcome, res.Signature}); diff != "" {
				t.Errorf("Run (-want +got):\n%s\nmessage: %s\noutput:\n%s", diff, res.Message, res.Output)
			}
			if !strings.Contains(res.Message, tt.msg) {
				t.Errorf("message = %q, want it to contain %q", res.Message, tt.msg)
			}
			// A stack trace names files by their place in the
			// repository, never by the trial's private checkout.
			if tmp := rr.tmp; strings.Contains(res.Output, tmp) || strings.Contains(res.Message, tmp) {
				t.Errorf("output names the trial directory %s:\n%s", tmp, res.Output)
			}
		})
	}
	t.Run("timeout kills the process group and says where it hung", func(t *testing.T) {
		start := time.Now()
		res, err := r.Run(context.Background(), []diffhunks.ID{3})
		if err != nil {
			t.Fatal(err)
		}
		if res.Outcome != Timeout || res.Passed() {
			t.Errorf("outcome = %s, want %s", res.Outcome, Timeout)
		}
		// The test's own time limit comes first: it says where it hung.
		if res.Signature != "calc/calc_test.go:17" || !strings.HasPrefix(res.Message, "panic: test timed out after 8s") {
			t.Errorf("a hung run at %q: %q, want calc/calc_test.go:17 and go test's timeout panic", res.Signature, res.Message)
		}
		if d := time.Since(start); d > 20*time.Second {
			t.Errorf("trial took %v with an 8s timeout", d)
		}
		b, err := os.ReadFile(pidFile)
		if err != nil {
			t.Fatalf("the test never started its child: %v", err)
		}
		pid, _ := strconv.Atoi(string(b))
		if !gone(pid, 5*time.Second) {
			t.Errorf("child process %d survived the timeout", pid)
		}
	})
}

// gone waits up to d for process pid to disappear.
func gone(pid int, d time.Duration) bool {
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			return true
		}
	}
	return false
}

func TestCache(t *testing.T) {
	dir, head := gitRepo(t, calcRepo)
	r := newRunner(t, Config{Dir: dir, Head: head, Variants: calcVariants, Pkg: "./calc", Test: "TestF", Workers: 2})
	ctx := context.Background()
	type step struct {
		Outcome Outcome
		Cached  bool
	}
	var got []step
	record := func(res Result, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, step{res.Outcome, res.Cached})
	}
	// Three identical requests at once run one trial.
	results, err := r.RunAll(ctx, [][]diffhunks.ID{{1}, {1}, {1}})
	if err != nil {
		t.Fatal(err)
	}
	cached := 0
	for _, res := range results {
		if res.Outcome != Pass {
			t.Errorf("RunAll outcome = %s, want pass", res.Outcome)
		}
		if res.Cached {
			cached++
		}
	}
	if cached != 2 {
		t.Errorf("%d of 3 identical concurrent results cached, want 2", cached)
	}
	record(r.Build(ctx, []diffhunks.ID{1}))  // answered by the run
	record(r.Build(ctx, []diffhunks.ID{2}))  // answered by type-checking
	record(r.Run(ctx, []diffhunks.ID{2}))    // answered by the build
	record(r.Build(ctx, nil))                // a real build of head
	record(r.Run(ctx, []diffhunks.ID{1, 1})) // same set as {1}
	want := []step{{Pass, true}, {BuildError, false}, {BuildError, true}, {Pass, false}, {Pass, true}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("steps (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(Counts{Trials: 1, Builds: 1, TypeChecks: 1, CacheHits: 5}, r.Counts()); diff != "" {
		t.Errorf("Counts (-want +got):\n%s", diff)
	}
}

func TestCancel(t *testing.T) {
	dir, head := gitRepo(t, calcRepo)
	pidFile := filepath.Join(t.TempDir(), "pid")
	r := newRunner(t, Config{Dir: dir, Head: head, Variants: calcVariants, Pkg: "./calc", Test: "TestF",
		Env: []string{"CULPRIT_PIDFILE=" + pidFile}})
	ctx, cancel := context.WithCancel(context.Background())
	workDirs := make(chan int, 1)
	go func() {
		for {
			// The file is created before the pid is written into it.
			if b, err := os.ReadFile(pidFile); err == nil && len(b) > 0 {
				// The test binary runs: go test's work directory is there.
				entries, _ := os.ReadDir(filepath.Join(r.tmp, "gotmp"))
				workDirs <- len(entries)
				cancel()
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
	}()
	_, err := r.Run(ctx, []diffhunks.ID{3})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run error = %v, want context.Canceled", err)
	}
	if n := <-workDirs; n == 0 {
		t.Errorf("go test kept no work directory under the runner's own GOTMPDIR")
	}
	b, _ := os.ReadFile(pidFile)
	pid, _ := strconv.Atoi(string(b))
	if !gone(pid, 5*time.Second) {
		t.Errorf("child process %d survived cancellation", pid)
	}
	if s := r.Counts(); s.Trials != 1 {
		t.Errorf("Counts = %+v, want one trial", s)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(r.tmp); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the killed build's work directories survived Close: %v", err)
	}
}

func TestCommandMode(t *testing.T) {
	dir, head := gitRepo(t, calcRepo)
	r := newRunner(t, Config{Dir: dir, Head: head, Variants: calcVariants, Mode: ModeCommand,
		BuildCommand: "go vet ./calc", TestCommand: "go test -count=1 -run TestF ./calc"})
	tests := []struct {
		name   string
		revert []diffhunks.ID
		want   Outcome
	}{
		{"head fails", nil, Fail},
		{"fix passes", []diffhunks.ID{1}, Pass},
		{"build error", []diffhunks.ID{2}, BuildError},
		{"testdata", []diffhunks.ID{6}, Pass},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := r.Run(context.Background(), tt.revert)
			if err != nil {
				t.Fatal(err)
			}
			if res.Outcome != tt.want {
				t.Errorf("outcome = %s, want %s\n%s", res.Outcome, tt.want, res.Output)
			}
		})
	}
}
