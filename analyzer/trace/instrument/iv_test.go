package instrument

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/culprit-dev/culprit/analyzer/trace"
)

// ivModule is a module whose tests the intervention hooks act on: a lost
// update (Add's critical section is split in two around a yield), a branch
// to force, a recursive function, calls to delay and yield, two activations
// of one function that wait for each other, and one that panics.
var ivModule = map[string][]byte{
	"go.mod": []byte("module example.com/iv\n\ngo 1.22\n"),
	"p/p.go": []byte(`package p

import (
	"runtime"
	"sync"
)

type Counter struct {
	mu sync.Mutex
	n  int
}

func (c *Counter) Add() {
	c.mu.Lock()
	next := c.n + 1
	c.mu.Unlock()
	runtime.Gosched()
	c.mu.Lock()
	c.n = next
	c.mu.Unlock()
}

func (c *Counter) Value() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

func Positive(x int) bool {
	if x > 0 {
		return true
	}
	return false
}

func Depth(n int) int {
	if n == 0 {
		return 0
	}
	return 1 + Depth(n-1)
}

func Noop() {}

// Handoff receives from ch if first, else sends on it: the two
// activations wait for each other.
func Handoff(ch chan int, first bool) {
	if first {
		<-ch
	} else {
		ch <- 1
	}
}

func Boom() {
	panic("boom")
}

// Tally's Add splits its critical section with nothing between the two
// halves: only a pause right after the read loses an update.
type Tally struct {
	mu sync.Mutex
	n  int
}

func (c *Tally) Add() {
	c.mu.Lock()
	next := c.n + 1
	c.mu.Unlock()
	c.mu.Lock()
	c.n = next
	c.mu.Unlock()
}
`),
	"p/p_test.go": []byte(`package p

import (
	"sync"
	"testing"
	"time"
)

const perGoroutine = 200

func TestLost(t *testing.T) {
	var c Counter
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range perGoroutine {
				c.Add()
			}
		}()
	}
	wg.Wait()
	if got := c.Value(); got != 2*perGoroutine {
		t.Errorf("Value() = %d, want %d", got, 2*perGoroutine)
	}
}

func TestForce(t *testing.T) {
	t.Logf("positive=%v", Positive(-1))
}

func TestCalls(t *testing.T) {
	start := time.Now()
	for range 3 {
		Noop()
	}
	t.Logf("noop-ms %d", time.Since(start).Milliseconds())
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if d := Depth(5); d != 5 {
				t.Errorf("Depth(5) = %d", d)
			}
		}()
	}
	wg.Wait()
}

func TestHandoff(t *testing.T) {
	ch := make(chan int)
	done := make(chan bool)
	go func() {
		Handoff(ch, true)
		done <- true
	}()
	Handoff(ch, false)
	<-done
}

func TestBoom(t *testing.T) {
	for range 2 {
		done := make(chan bool)
		go func() {
			defer func() { done <- recover() != nil }()
			Boom()
		}()
		if !<-done {
			t.Error("Boom did not panic")
		}
	}
}

func TestSleep(t *testing.T) {
	time.Sleep(time.Hour)
}

func TestTally(t *testing.T) {
	var c Tally
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range perGoroutine {
				c.Add()
			}
		}()
	}
	wg.Wait()
	if c.n != 2*perGoroutine {
		t.Errorf("n = %d, want %d", c.n, 2*perGoroutine)
	}
}
`),
}

// buildIV builds the traced binary of one test of ivModule.
func buildIV(t *testing.T, test string) *Binary {
	t.Helper()
	return buildModule(t, writeTree(t, ivModule), test)
}

func buildModule(t *testing.T, dir, test string) *Binary {
	t.Helper()
	b, err := Build(context.Background(), Config{Dir: dir, Pkg: "./p", Test: test, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// funcSite returns the id of the function site whose name ends in name.
func funcSite(t *testing.T, b *Binary, name string) trace.SiteID {
	t.Helper()
	for _, s := range b.Sites() {
		if s.Kind == trace.SiteFunc && strings.HasSuffix(s.Func, name) {
			return s.ID
		}
	}
	t.Fatalf("no function site %s", name)
	return 0
}

// runIV runs b once with the intervention spec.
func runIV(t *testing.T, b *Binary, spec string) *trace.Trace {
	t.Helper()
	tr, err := b.Run(context.Background(), RunOptions{Intervene: spec})
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func TestBinaryRunsMany(t *testing.T) {
	dir, tmp := writeTree(t, ivModule), t.TempDir()
	t.Setenv("TMPDIR", tmp)
	b := buildModule(t, dir, "TestForce")
	sites := b.Sites()
	if len(sites) < 2 {
		t.Fatalf("build has %d sites", len(sites))
	}
	for i := range 3 {
		tr := runIV(t, b, "")
		if !tr.Result.Passed || tr.Truncated {
			t.Fatalf("run %d: passed %v, truncated %v:\n%s", i, tr.Result.Passed, tr.Truncated, tr.Result.Output)
		}
		if d := cmp.Diff(sites, tr.Sites, cmpopts.IgnoreUnexported(trace.Site{}, trace.Expr{})); d != "" {
			t.Errorf("run %d: sites differ from the build's (-build +run):\n%s", i, d)
		}
		if !hasEvent(tr, "branch x > 0 r:x=-1 v=false") {
			t.Errorf("run %d: no branch event:\n%s", i, dump(tr))
		}
		if tr.Intervention != (trace.Intervened{}) {
			t.Errorf("run %d without a spec: %+v", i, tr.Intervention)
		}
		// Only the build directory is left between runs.
		if ents, err := os.ReadDir(tmp); err != nil || len(ents) != 1 {
			t.Errorf("run %d left %v in the temp dir (%v)", i, ents, err)
		}
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if ents, err := os.ReadDir(tmp); err != nil || len(ents) != 0 {
		t.Errorf("Close left %v in the temp dir (%v)", ents, err)
	}
}

// TestSerialLostUpdate runs a lost-update program: without an intervention
// it fails, and with its Add serialised it never does, and no two Add
// activations overlap in the trace.
func TestSerialLostUpdate(t *testing.T) {
	if runtime.NumCPU() < 2 {
		t.Skip("needs 2 CPUs")
	}
	b := buildIV(t, "TestLost")
	add := funcSite(t, b, ".Counter).Add")
	// Add is short: with a long expiry no wait gives up, so no two
	// activations may overlap.
	spec := fmt.Sprintf("serial:%d;expire=1m", add)

	failed := 0
	for i := 0; i < 40 && failed == 0; i++ {
		tr := runIV(t, b, "")
		if tr.Result.Failed {
			failed++
		}
	}
	if failed == 0 {
		t.Fatalf("the lost update never happened in 40 runs")
	}

	var mu sync.Mutex
	var wg sync.WaitGroup
	fails, applied, expired := 0, uint64(0), uint64(0)
	for w := range 2 { // two runs at a time, each in its own trace directory
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 10 {
				tr, err := b.Run(context.Background(), RunOptions{Intervene: spec})
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				if !tr.Result.Passed {
					fails++
					t.Logf("worker %d: serialised run failed:\n%s", w, tr.Result.Output)
				}
				applied += tr.Intervention.Applied
				expired += tr.Intervention.Expired
				mu.Unlock()
				if a, b := overlap(tr, add); a >= 0 {
					t.Errorf("activations of Add overlap: events %d and %d", a, b)
				}
			}
		}()
	}
	wg.Wait()
	if fails != 0 {
		t.Errorf("%d of 20 serialised runs failed", fails)
	}
	// Each of the 400 activations per run takes the lock.
	if applied != 20*400 || expired != 0 {
		t.Errorf("applied %d, expired %d, want %d and 0", applied, expired, 20*400)
	}
}

// overlap returns two events of different activations of fn, each between
// the other's entry and exit, or -1, -1.
func overlap(tr *trace.Trace, fn trace.SiteID) (int, int) {
	open := trace.FrameID(0)
	for i, e := range tr.Events {
		if tr.Frames[e.Frame].Func != fn {
			continue
		}
		if open != 0 && e.Frame != open {
			return tr.Frames[open].Entry, i
		}
		switch e.Kind {
		case trace.EvEntry:
			open = e.Frame
		case trace.EvReturn, trace.EvPanic:
			open = 0
		}
	}
	return -1, -1
}

func TestForceBranch(t *testing.T) {
	b := buildIV(t, "TestForce")
	var site trace.SiteID
	for _, s := range b.Sites() {
		if s.Kind == trace.SiteIf && s.Text == "x > 0" {
			site = s.ID
		}
	}
	if site == 0 {
		t.Fatal("no site for the if")
	}
	for _, tc := range []struct {
		spec, out, event string
		applied          uint64
	}{
		{"", "positive=false", "branch x > 0 r:x=-1 v=false", 0},
		{fmt.Sprintf("force:%d=1", site), "positive=true", "branch x > 0 r:x=-1 v=true", 1},
		{fmt.Sprintf("force:%d=0", site), "positive=false", "branch x > 0 r:x=-1 v=false", 1},
		// Malformed items count nothing.
		{fmt.Sprintf("force:%d=maybe;force:x=1;bogus:%d;serial:", site, site), "positive=false", "branch x > 0 r:x=-1 v=false", 0},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			tr := runIV(t, b, tc.spec)
			if !tr.Result.Passed || !strings.Contains(tr.Result.Output, tc.out) {
				t.Errorf("output lacks %q:\n%s", tc.out, tr.Result.Output)
			}
			if !hasEvent(tr, tc.event) {
				t.Errorf("no event %q:\n%s", tc.event, dump(tr))
			}
			if tr.Intervention != (trace.Intervened{Applied: tc.applied}) {
				t.Errorf("counters %+v, want %d applied", tr.Intervention, tc.applied)
			}
		})
	}
}

var noopMs = regexp.MustCompile(`noop-ms (\d+)`)

func TestDelayYieldRecursion(t *testing.T) {
	b := buildIV(t, "TestCalls")
	noop, depth := funcSite(t, b, ".Noop"), funcSite(t, b, ".Depth")
	for _, tc := range []struct {
		name, spec string
		want       trace.Intervened
		minMs      int // the three Noop calls take at least this long
	}{
		{"none", "", trace.Intervened{}, 0},
		{"delay", fmt.Sprintf("delay:%d=30ms", noop), trace.Intervened{Applied: 3}, 90},
		{"yield", fmt.Sprintf("yield:%d", noop), trace.Intervened{Applied: 3}, 0},
		{"delay+yield", fmt.Sprintf("yield:%d;delay:%d=30ms", noop, noop), trace.Intervened{Applied: 6}, 90},
		// Each goroutine's outermost Depth takes the lock once; its
		// recursive activations do not wait for it.
		{"serial recursion", fmt.Sprintf("serial:%d;expire=1m", depth), trace.Intervened{Applied: 2}, 0},
		// One lock for both functions: three Noop calls and two
		// outermost Depth activations take it.
		{"serial shared", fmt.Sprintf("serial:%d,%d;expire=1m", noop, depth), trace.Intervened{Applied: 5}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := runIV(t, b, tc.spec)
			if !tr.Result.Passed {
				t.Fatalf("run failed:\n%s", tr.Result.Output)
			}
			// Waited depends on the scheduler: only the counts are exact.
			if got := tr.Intervention; got.Applied != tc.want.Applied || got.Expired != tc.want.Expired {
				t.Errorf("counters %+v, want %+v", got, tc.want)
			}
			m := noopMs.FindStringSubmatch(tr.Result.Output)
			if m == nil {
				t.Fatalf("no timing in:\n%s", tr.Result.Output)
			}
			if ms, _ := strconv.Atoi(m[1]); ms < tc.minMs {
				t.Errorf("three Noop calls took %d ms, want at least %d", ms, tc.minMs)
			}
		})
	}
}

// TestSerialExpiry serialises a function whose two activations wait for
// each other: the second waits out the expiry and proceeds without the
// lock.
func TestSerialExpiry(t *testing.T) {
	b := buildIV(t, "TestHandoff")
	spec := fmt.Sprintf("serial:%d;expire=20ms", funcSite(t, b, ".Handoff"))
	tr := runIV(t, b, spec)
	if !tr.Result.Passed {
		t.Fatalf("run failed:\n%s", tr.Result.Output)
	}
	if iv := tr.Intervention; iv.Applied != 1 || iv.Expired != 1 || iv.Waited < 20*time.Millisecond {
		t.Errorf("counters %+v, want 1 applied, 1 expired, at least the 20ms expiry waited", iv)
	}
}

// TestSerialPanic serialises a function that panics: its Exit releases the
// lock, so the next activation, on another goroutine, takes it at once.
func TestSerialPanic(t *testing.T) {
	b := buildIV(t, "TestBoom")
	spec := fmt.Sprintf("serial:%d;expire=1m", funcSite(t, b, ".Boom"))
	tr, err := b.Run(context.Background(), RunOptions{Intervene: spec, Timeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if !tr.Result.Passed {
		t.Fatalf("run failed:\n%s", tr.Result.Output)
	}
	if tr.Intervention != (trace.Intervened{Applied: 2}) {
		t.Errorf("counters %+v, want 2 applied", tr.Intervention)
	}
}

func TestRunTimeout(t *testing.T) {
	b := buildIV(t, "TestSleep")
	tr, err := b.Run(context.Background(), RunOptions{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if !tr.Result.Failed || !strings.Contains(tr.Result.Output, "test timed out after 1s") {
		t.Errorf("run did not time out after 1s:\n%s", tr.Result.Output)
	}
}

// TestSpecForceableSites checks that force items survive only at sites
// whose condition the program uses; other items pass unchanged.
func TestSpecForceableSites(t *testing.T) {
	b := &Binary{sites: []trace.Site{{}, {ID: 1, Kind: trace.SiteIf}, {ID: 2, Kind: trace.SiteRange}, {ID: 3, Kind: trace.SiteFunc}, {ID: 4, Kind: trace.SiteAndAnd}, {ID: 5, Kind: trace.SiteFor}}}
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"force:1=1", "force:1=1"},
		{"force:2=0;serial:3;force:4=1", "serial:3;force:4=1"},
		{"force:3=1;force:9=1;force:x=1;force:5=0;expire=1s", "force:5=0;expire=1s"},
		{"delay:3=1ms; force: 1 =0", "delay:3=1ms; force: 1 =0"},
	} {
		if got := b.spec(tc.in); got != tc.want {
			t.Errorf("spec(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestPerturbExposesSplitSection runs Tally's split critical section on one
// thread, where goroutines switch only when one blocks or yields: plain
// runs never lose an update, and perturbed runs (a pause at about one in
// four traced points) do in most runs. Malformed perturb items do nothing.
func TestPerturbExposesSplitSection(t *testing.T) {
	b, err := Build(context.Background(), Config{Dir: writeTree(t, ivModule), Pkg: "./p", Test: "TestTally", Timeout: time.Minute, Env: []string{"GOMAXPROCS=1"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	for _, spec := range []string{"", "perturb:7", "perturb:x/4", "perturb:7/1", "perturb:7/-4"} {
		for i := range 5 {
			tr := runIV(t, b, spec)
			if !tr.Result.Passed || tr.Intervention != (trace.Intervened{}) {
				t.Fatalf("spec %q, run %d: passed %v, counters %+v:\n%s", spec, i, tr.Result.Passed, tr.Intervention, tr.Result.Output)
			}
		}
	}
	failed := 0
	for seed := range 10 {
		tr := runIV(t, b, fmt.Sprintf("perturb:%d/4", seed+1))
		if iv := tr.Intervention; iv.Perturbed == 0 || iv.Applied != 0 {
			t.Errorf("seed %d: counters %+v, want pauses counted apart from interventions", seed+1, iv)
		}
		if tr.Result.Failed {
			failed++
		}
	}
	if failed < 5 {
		t.Errorf("%d of 10 perturbed runs lost an update, want most", failed)
	}
}
