package proc

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRunKillsGroupOverMemory: a process group whose resident memory
// passes its bound is killed, and the result says why; one within its
// bound runs to its end.
func TestRunKillsGroupOverMemory(t *testing.T) {
	if _, ok := groupRSS(os.Getpid()); !ok {
		t.Skip("no /proc to measure memory with")
	}
	// The child holds about 300 MB in a shell variable, then waits.
	hog := `x=$(head -c 300000000 /dev/zero | tr '\0' a); sleep 20; echo ${#x}`
	start := time.Now()
	res, err := Run(context.Background(), Cmd{Name: "bash", Args: []string{"-c", hog}, MaxMemory: 100 << 20, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if !res.OverMemory || res.TimedOut || res.ExitCode != -1 {
		t.Errorf("over memory %v, timed out %v, exit %d: want killed for memory", res.OverMemory, res.TimedOut, res.ExitCode)
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("killed after %v: want soon after the bound was passed", d)
	}
	// The toolchain's processes are not the test's: a compile may need
	// more than the test's bound.
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatal(err)
	}
	compile := filepath.Join(t.TempDir(), "compile")
	if b, err := os.ReadFile(bash); err != nil || os.WriteFile(compile, b, 0o755) != nil {
		t.Fatalf("copying bash: %v", err)
	}
	res, err = Run(context.Background(), Cmd{Name: compile, Args: []string{"-c", strings.Replace(hog, "sleep 20", "sleep 1", 1)}, MaxMemory: 100 << 20, Timeout: time.Minute})
	if err != nil || res.OverMemory || res.ExitCode != 0 || string(res.Stdout) != "300000000\n" {
		t.Errorf("a compile holding 300 MB: %+v, %v; want it left to finish", res, err)
	}
	res, err = Run(context.Background(), Cmd{Name: "bash", Args: []string{"-c", "echo fine"}, MaxMemory: 100 << 20})
	if err != nil || res.OverMemory || res.ExitCode != 0 || string(res.Stdout) != "fine\n" {
		t.Errorf("a small command: %+v, %v", res, err)
	}
}

func TestStatFields(t *testing.T) {
	line := "4242 (a (b) c) S 1 4240 4240 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 55 1000000 777 18446744073709551615"
	comm, g, rss, ok := statFields([]byte(line))
	if !ok || comm != "a (b) c" || g != 4240 || rss != 777 {
		t.Errorf("statFields = %q, %d, %d, %v; want a (b) c, group 4240, 777 pages", comm, g, rss, ok)
	}
	if _, _, _, ok := statFields([]byte("4242 (short) S 1")); ok {
		t.Error("a short line read as whole")
	}
}
