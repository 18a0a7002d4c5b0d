package instrument

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

	"github.com/culprit-dev/culprit/internal/testfiles"
)

// benchModule is a module whose TestLoop times a 1e6-iteration integer loop
// (three events per iteration: the condition, the assignment and the
// update) from inside the test binary, so the plain and the traced run are
// measured alike. It runs the loop twice: the first run starts the trace
// file, and under tracing pays for whatever its first pages cost; the
// second finds the pages ahead of it provisioned (rt/mem_linux.go) and
// measures the recording.
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
	start = time.Now()
	s = Loop(1000000)
	t.Logf("warm-ns %d sum %d", time.Since(start).Nanoseconds(), s)
}
`),
}

var loopNs, warmNs = regexp.MustCompile(`loop-ns (\d+)`), regexp.MustCompile(`warm-ns (\d+)`)

func loopNanos(b *testing.B, out string) float64 { return nanos(b, loopNs, out) }

func nanos(b *testing.B, re *regexp.Regexp, out string) float64 {
	m := re.FindStringSubmatch(out)
	if m == nil {
		b.Fatalf("no loop timing in:\n%s", out)
	}
	f, _ := strconv.ParseFloat(m[1], 64)
	return f
}

// BenchmarkLoop reports the slowdown of the loop under tracing (the first
// run of the loop in a fresh process, and "warm", its second run), the
// trace bytes per million events and the traced cost per event of the
// first run. The loop is short and its timing noisy, so each measurement
// is the best of a few runs of the plain and of the traced test binary.
func BenchmarkLoop(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	testfiles.Write(b, dir, benchModule)
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
	best := func(best *float64, ns float64) {
		if *best == 0 || ns < *best {
			*best = ns
		}
	}
	var base, baseWarm, traced, tracedWarm, events, used float64
	for range b.N {
		var first, warm float64
		for range runs {
			cmd := exec.Command(bin, "-test.run", "^TestLoop$", "-test.v", "-test.count=1")
			cmd.Dir = filepath.Join(dir, "p")
			out, err := cmd.CombinedOutput()
			if err != nil {
				b.Fatalf("plain run: %v\n%s", err, out)
			}
			best(&first, loopNanos(b, string(out)))
			best(&warm, nanos(b, warmNs, string(out)))
		}
		base, baseWarm = base+first, baseWarm+warm
		first, warm = 0, 0
		for range runs {
			out, n, w := tracedLoop(b, tbin)
			best(&first, loopNanos(b, out))
			best(&warm, nanos(b, warmNs, out))
			events, used = events+n/runs, used+w/runs
		}
		traced, tracedWarm = traced+first, tracedWarm+warm
	}
	// The run records both loops: half of its events are the first's.
	b.ReportMetric(traced/base, "slowdown")
	b.ReportMetric(tracedWarm/baseWarm, "warm-slowdown")
	b.ReportMetric(used/events*1e6, "bytes/Mevent")
	b.ReportMetric(traced/(events/2), "ns/event")
	b.ReportMetric(events/2/float64(b.N), "events")
}

// tracedLoop runs the traced test binary once into a new trace directory,
// which it removes afterwards, and returns the test's output, the number
// of events and the bytes of trace used.
func tracedLoop(b *testing.B, bin *Binary) (out string, events, used float64) {
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
	// The event file as the runtime names it (rt.FileName); its header's
	// second word is the tail, in words.
	f, err := os.Open(filepath.Join(td, "events.bin"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var hdr [16]byte
	if _, err := f.ReadAt(hdr[:], 0); err != nil {
		b.Fatalf("reading trace: %v", err)
	}
	return res.Output, float64(len(tr.Events)), float64(binary.LittleEndian.Uint64(hdr[8:]) * 8)
}
