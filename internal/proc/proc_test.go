package proc

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestRunExitAndOutput(t *testing.T) {
	dir := t.TempDir()
	res, err := Run(context.Background(), Cmd{Name: "bash", Args: []string{"-c", `pwd; echo err >&2; echo "$FOO"; exit 3`}, Dir: dir, Env: []string{"FOO=bar", "PATH=" + os.Getenv("PATH")}})
	if err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(dir)
	if res.ExitCode != 3 || res.TimedOut || string(res.Stdout) != real+"\nbar\n" || string(res.Stderr) != "err\n" {
		t.Errorf("got exit %d timedOut %v stdout %q stderr %q", res.ExitCode, res.TimedOut, res.Stdout, res.Stderr)
	}
}

func TestRunKillsGroupAtTimeout(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "survived")
	start := time.Now()
	// The grandchild keeps stdout open and would write the marker later.
	res, err := Run(context.Background(), Cmd{Name: "bash", Args: []string{"-c", "(sleep 3; touch " + marker + ") & sleep 30"}, Timeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if !res.TimedOut || res.ExitCode != -1 {
		t.Errorf("timedOut %v exit %d; want a timeout", res.TimedOut, res.ExitCode)
	}
	if d := time.Since(start); d > 2*time.Second+waitDelay {
		t.Errorf("Run took %v after a 300ms timeout", d)
	}
	time.Sleep(3500 * time.Millisecond)
	if _, err := os.Stat(marker); err == nil {
		t.Error("a grandchild survived the timeout")
	}
}

func TestRunKillsLeftoversAfterExit(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "survived")
	res, err := Run(context.Background(), Cmd{Name: "bash", Args: []string{"-c", "(sleep 1; touch " + marker + ") >/dev/null 2>&1 & exit 0"}})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("exit %d err %v", res.ExitCode, err)
	}
	time.Sleep(1500 * time.Millisecond)
	if _, err := os.Stat(marker); err == nil {
		t.Error("a background process outlived its command")
	}
}

func TestRunCancelled(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := Run(ctx, Cmd{Name: "sleep", Args: []string{"30"}})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v; want the context's", err)
	}
	if _, err := Run(context.Background(), Cmd{Name: "/nonexistent/binary"}); err == nil {
		t.Error("starting a missing binary is not an error")
	}
}
