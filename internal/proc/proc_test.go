package proc

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestSecret(t *testing.T) {
	for name, want := range map[string]bool{
		"GITHUB_TOKEN": true, "GH_TOKEN": true, "INPUT_GITHUB-TOKEN": true, "INPUT_TESTS": true,
		"ACTIONS_RUNTIME_TOKEN": true, "ACTIONS_ID_TOKEN_REQUEST_URL": true, "ACTIONS_CACHE_URL": true,
		"CULPRIT_WEBHOOK_SECRET": true, "aws_secret_access_key": true, "AWS_SECRET": true,
		"DB_PASSWORD": true, "SIGNING_KEY": true, "GITHUB_OUTPUT": true, "GITHUB_ENV": true,
		"HOME": false, "PATH": false, "GOPATH": false, "GOCACHE": false, "GITHUB_SHA": false,
		"RUNNER_TEMP": false, "KEYBOARD": false, "GOFLAGS": false,
	} {
		if got := Secret(name); got != want {
			t.Errorf("Secret(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestEnvScrubsAndPassesThrough(t *testing.T) {
	t.Setenv("GITHUB_TOKEN", "x")
	t.Setenv("API_KEY", "y")
	t.Setenv("PLAIN", "z")
	t.Setenv("GOTOOLCHAIN", "go1.99.0")
	SetPassthrough(ParsePassthrough("API_KEY, OTHER\nTHIRD"))
	defer SetPassthrough(nil)
	env := Env()
	for _, kv := range []string{"API_KEY=y", "PLAIN=z", "GOTOOLCHAIN=local"} {
		if !slices.Contains(env, kv) {
			t.Errorf("Env() lacks %s", kv)
		}
	}
	for _, kv := range env {
		if strings.HasPrefix(kv, "GITHUB_TOKEN=") || kv == "GOTOOLCHAIN=go1.99.0" {
			t.Errorf("Env() has %s", kv)
		}
	}
	SetPassthrough(nil)
	if slices.Contains(Env(), "API_KEY=y") {
		t.Error("API_KEY kept after the passthrough list was cleared")
	}
	if got := ParsePassthrough(" A,B  C\n"); !slices.Equal(got, []string{"A", "B", "C"}) {
		t.Errorf("ParsePassthrough = %q", got)
	}
}

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
