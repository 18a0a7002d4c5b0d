package trace

import (
	"context"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"
)

// benchModule is a module whose TestLoop times a 1e6-iteration integer loop
// (two events per iteration: the condition and the update) from inside
// the test binary, so the plain and the traced run are measured alike.
var benchModule = map[string][]byte{
	"go.mod": []byte("module example.com/bench\n\ngo 1.22\n"),
	"p/p.go": []byte(`package p

func Loop(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		s += i&7 ^ s>>3
	}
	return s
}
`),
	"p/p_test.go": []byte(`package p

import (
	"testing"
	"time"
)

func TestLoop(t *testing.T) {
	start := time.Now()
	s := Loop(1000000)
	t.Logf("loop-ns %d sum %d", time.Since(start).Nanoseconds(), s)
}
`),
}

var loopNs = regexp.MustCompile(`loop-ns (\d+)`)

func loopNanos(b *testing.B, out string) float64 {
	m := loopNs.FindStringSubmatch(out)
	if m == nil {
		b.Fatalf("no loop timing in:\n%s", out)
	}
	f, _ := strconv.ParseFloat(m[1], 64)
	return f
}

// BenchmarkLoop reports the slowdown of the loop under tracing, the trace
// bytes per million events and the traced cost per event.
func BenchmarkLoop(b *testing.B) {
	dir := b.TempDir()
	for name, data := range benchModule {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	bin := filepath.Join(dir, "plain.test")
	build := exec.Command("go", "test", "-c", "-o", bin, "./p")
	build.Dir = dir
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("plain build: %v\n%s", err, out)
	}
	var base, traced, events, used float64
	for range b.N {
		// The plain loop takes about a millisecond: keep the best of a few runs.
		best := 0.0
		for range 5 {
			cmd := exec.Command(bin, "-test.run", "^TestLoop$", "-test.v", "-test.count=1")
			cmd.Dir = filepath.Join(dir, "p")
			out, err := cmd.CombinedOutput()
			if err != nil {
				b.Fatalf("plain run: %v\n%s", err, out)
			}
			if ns := loopNanos(b, string(out)); best == 0 || ns < best {
				best = ns
			}
		}
		base += best
		td := b.TempDir()
		tr, err := Run(context.Background(), Config{Dir: dir, Pkg: "./p", Test: "TestLoop", Timeout: time.Minute, TraceDir: td})
		if err != nil {
			b.Fatal(err)
		}
		if !tr.Result.Passed || tr.Truncated {
			b.Fatalf("traced run failed or truncated:\n%s", tr.Result.Output)
		}
		traced += loopNanos(b, tr.Result.Output)
		raw, err := os.ReadFile(filepath.Join(td, eventsFile))
		if err != nil || len(raw) < 16 {
			b.Fatalf("reading trace: %v", err)
		}
		used += float64(binary.LittleEndian.Uint64(raw[8:]) * 8)
		events += float64(len(tr.Events))
	}
	b.ReportMetric(traced/base, "slowdown")
	b.ReportMetric(used/events*1e6, "bytes/Mevent")
	b.ReportMetric(traced/events, "ns/event")
	b.ReportMetric(events/float64(b.N), "events")
}
