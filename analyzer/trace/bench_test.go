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
// (three events per iteration: the condition, the assignment and the
// update) from inside the test binary, so the plain and the traced run are
// measured alike.
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
// bytes per million events and the traced cost per event. The loop is
// short and its timing noisy, so each measurement is the best of a few runs
// of the plain and of the traced test binary.
func BenchmarkLoop(b *testing.B) {
	ctx := context.Background()
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
	pb := exec.Command("go", "test", "-c", "-o", bin, "./p")
	pb.Dir = dir
	if out, err := pb.CombinedOutput(); err != nil {
		b.Fatalf("plain build: %v\n%s", err, out)
	}
	// The traced binary is built once.
	tbin, err := Build(ctx, Config{Dir: dir, Pkg: "./p", Test: "TestLoop", Timeout: time.Minute})
	if err != nil {
		b.Fatal(err)
	}
	defer tbin.Close()
	const runs = 5
	var base, traced, events, used float64
	for range b.N {
		best := 0.0
		for range runs {
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
		best = 0
		for range runs {
			ns, n, w := tracedLoop(b, tbin)
			if best == 0 || ns < best {
				best = ns
			}
			events, used = events+n/runs, used+w/runs
		}
		traced += best
	}
	b.ReportMetric(traced/base, "slowdown")
	b.ReportMetric(used/events*1e6, "bytes/Mevent")
	b.ReportMetric(traced/events, "ns/event")
	b.ReportMetric(events/float64(b.N), "events")
}

// tracedLoop runs the traced test binary once into a new trace directory,
// which it removes afterwards, and returns the loop's time, the number of
// events and the bytes of trace used.
func tracedLoop(b *testing.B, bin *Binary) (ns, events, used float64) {
	td, err := os.MkdirTemp("", "culprit-bench-")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(td)
	tr, err := bin.runIn(context.Background(), td, RunOptions{})
	if err != nil {
		b.Fatal(err)
	}
	res := tr.Result
	if !res.Passed || tr.Truncated {
		b.Fatalf("traced run failed or truncated:\n%s", res.Output)
	}
	f, err := os.Open(filepath.Join(td, eventsFile))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var hdr [16]byte
	if _, err := f.ReadAt(hdr[:], 0); err != nil {
		b.Fatalf("reading trace: %v", err)
	}
	return loopNanos(b, res.Output), float64(len(tr.Events)), float64(binary.LittleEndian.Uint64(hdr[8:]) * 8)
}
