package trial

import (
	"context"
	"regexp"
	"strconv"
	"testing"
	"time"
)

// waitRepo's test waits 400 ms doing nothing, as a perturbed run does in
// its pauses, and logs how many of its runs it saw at once: each run
// holds a file in $PEERS while it waits and counts the files there.
var waitRepo = map[string]string{
	"go.mod": "module example.com/wait\n\ngo 1.22\n",
	"wait/wait_test.go": `package wait

import (
	"os"
	"testing"
	"time"
)

func TestWait(t *testing.T) {
	dir := os.Getenv("PEERS")
	f, err := os.CreateTemp(dir, "run")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	defer os.Remove(f.Name())
	most := 0
	for end := time.Now().Add(400 * time.Millisecond); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		es, _ := os.ReadDir(dir)
		most = max(most, len(es))
	}
	t.Logf("peers=%d", most)
}
`,
}

var peersLine = regexp.MustCompile(`peers=(\d+)`)

// TestSharedWorker: under an amplification, the runs of a test that
// leaves its processor idle run alone until minAlone of them are
// measured, then share one worker's place, and do run at the same time;
// plain runs never share.
func TestSharedWorker(t *testing.T) {
	dir, head := gitRepo(t, waitRepo)
	peers := t.TempDir()
	cfg := Config{Dir: dir, Head: head, Variants: fileVariants{}, Pkg: "./wait", Test: "TestWait", Timeout: time.Minute, Workers: 1,
		Env: []string{"PEERS=" + peers}}
	ctx := context.Background()
	seen := func(res Result) int {
		m := peersLine.FindStringSubmatch(res.Output)
		if m == nil {
			t.Fatalf("no peers line in the output:\n%s", res.Output)
		}
		n, _ := strconv.Atoi(m[1])
		return n
	}

	r := newRunner(t, cfg)
	plain, err := r.Repeat(ctx, nil, minAlone+1)
	if err != nil {
		t.Fatal(err)
	}
	for i, res := range plain {
		if res.Outcome != Pass || res.PerWorker != 1 || seen(res) != 1 {
			t.Errorf("plain run %d: %s, %d to a worker, %d seen at once; want a pass alone", i, res.Outcome, res.PerWorker, seen(res))
		}
		if res.CPU <= 0 || res.PeakRSS <= 0 {
			t.Errorf("plain run %d: processor time %v, peak memory %d: not measured", i, res.CPU, res.PeakRSS)
		}
	}
	if n := r.PerWorker(); n != 1 {
		t.Errorf("plain runs: %d to a worker, want 1", n)
	}

	r.SetAmplification(Amplification{Iterations: 1, GoMaxProcs: 2})
	first, err := r.Repeat(ctx, nil, minAlone)
	if err != nil {
		t.Fatal(err)
	}
	for i, res := range first {
		if res.PerWorker != 1 || seen(res) != 1 {
			t.Errorf("amplified run %d before any was measured: %d to a worker, %d seen at once; want alone", i, res.PerWorker, seen(res))
		}
	}
	per := r.PerWorker()
	if per < 2 {
		t.Fatalf("after %d idle runs alone (%v of processor in %v): %d to a worker, want more", minAlone, first[0].CPU, first[0].Duration, per)
	}
	shared, err := r.Repeat(ctx, nil, per)
	if err != nil {
		t.Fatal(err)
	}
	most := 0
	for i, res := range shared {
		if res.Outcome != Pass || res.PerWorker != per {
			t.Errorf("shared run %d: %s, %d to a worker; want a pass, %d to a worker", i, res.Outcome, res.PerWorker, per)
		}
		most = max(most, seen(res))
	}
	if most < 2 {
		t.Errorf("%d runs sharing one worker: none saw another run at the same time", per)
	}
	if got := r.PerWorker(); got != per {
		t.Errorf("after the shared runs: %d to a worker, want it kept at %d", got, per)
	}
	if c := r.Counts().Trials; c != 2*minAlone+1+per {
		t.Errorf("%d trials counted, want one per run: %d", c, 2*minAlone+1+per)
	}
}

// TestPerWorker: how many runs share a worker follows from the runs made
// alone: their processor time against their wall time, and their peak
// memory against one run's bound.
func TestPerWorker(t *testing.T) {
	amp := Amplification{Perturb: 16}
	for _, tc := range []struct {
		name string
		s    alone
		amp  Amplification
		want int
	}{
		{"nothing measured", alone{}, amp, 1},
		{"one run is too few", alone{runs: 1, wall: time.Second, cpu: time.Millisecond, peakRSS: 1 << 20}, amp, 1},
		{"idle runs: the most", alone{runs: 2, wall: 2 * time.Second, cpu: 100 * time.Millisecond, peakRSS: 1 << 20}, amp, maxPerWorker},
		{"a fifth busy: two", alone{runs: 2, wall: 2 * time.Second, cpu: 400 * time.Millisecond, peakRSS: 1 << 20}, amp, 2},
		{"busy runs: alone", alone{runs: 2, wall: 2 * time.Second, cpu: 1500 * time.Millisecond, peakRSS: 1 << 20}, amp, 1},
		{"memory bounds it", alone{runs: 2, wall: 2 * time.Second, cpu: 10 * time.Millisecond, peakRSS: 300 << 20}, amp, 3},
		{"plain runs never share", alone{runs: 2, wall: 2 * time.Second, cpu: 10 * time.Millisecond, peakRSS: 1 << 20}, Amplification{}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &Runner{cfg: Config{MaxMemory: 1 << 30}, alone: map[Amplification]*alone{tc.amp: &tc.s}}
			if got := r.perWorker(tc.amp); got != tc.want {
				t.Errorf("%+v: %d to a worker, want %d", tc.s, got, tc.want)
			}
		})
	}
}
