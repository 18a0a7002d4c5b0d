package trace

import (
	"context"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"testing"
	"time"
)

var testTime = regexp.MustCompile(`--- (?:PASS|FAIL): TestLoop \(([0-9.]+)s\)`)

func loopSeconds(b *testing.B, out string) float64 {
	m := testTime.FindStringSubmatch(out)
	if m == nil {
		b.Fatalf("no TestLoop timing in:\n%s", out)
	}
	f, _ := strconv.ParseFloat(m[1], 64)
	return f
}

// BenchmarkLoop compares the in-process time of a 1e6-iteration integer
// loop traced and untraced, and reports trace bytes per million events.
func BenchmarkLoop(b *testing.B) {
	dir := loadTxtar(&testing.T{}, "testdata/constructs.txtar")
	defer os.RemoveAll(dir)
	plain := exec.Command("go", "test", "-count=1", "-v", "-run", "^TestLoop$", "./c")
	plain.Dir = dir
	out, err := plain.CombinedOutput()
	if err != nil {
		b.Fatalf("plain run: %v\n%s", err, out)
	}
	base := loopSeconds(b, string(out))
	td := b.TempDir()
	tr, err := Run(context.Background(), Config{Dir: dir, Pkg: "./c", Test: "TestLoop", Timeout: time.Minute, TraceDir: td})
	if err != nil {
		b.Fatal(err)
	}
	traced := loopSeconds(b, tr.Result.Output)
	fi, _ := os.Stat(td + "/events.bin")
	_ = fi
	used := float64(0)
	for _, e := range tr.Events {
		used += float64(2 + 2*len(e.Reads) + 2*len(e.Writes) + 2*len(e.Values))
	}
	b.ReportMetric(traced/max(base, 1e-4), "slowdown")
	b.ReportMetric(used*8/float64(len(tr.Events)), "bytes/event")
	b.ReportMetric(float64(len(tr.Events)), "events")
}
