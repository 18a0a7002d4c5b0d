package aid

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/culprit-dev/culprit/analyzer/trace"
	"github.com/culprit-dev/culprit/analyzer/trace/instrument"
	"github.com/culprit-dev/culprit/internal/testfiles"
	"github.com/google/go-cmp/cmp"
)

// lostUpdate is a counter whose critical section is split in two (FLAKY.md
// §6): another goroutine's write between a read and the write it feeds
// loses an increment.
var lostUpdate = map[string]string{
	"go.mod": "module example.com/m\n\ngo 1.22\n",
	"counter/counter.go": `package counter

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

func (c *Counter) Value() int { c.mu.Lock(); defer c.mu.Unlock(); return c.n }
`,
	"counter/counter_test.go": `package counter

import (
	"sync"
	"testing"
)

func TestAdd(t *testing.T) {
	c := &Counter{}
	if c != nil {
		var wg sync.WaitGroup
		for g := 0; g < 2; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for k := 0; k < 50; k++ {
					c.Add()
				}
			}()
		}
		wg.Wait()
	}
	if got := c.Value(); got != 100 {
		t.Errorf("got %d", got)
	}
}
`,
}

// traceRunner runs the test under the existing tracer, each run in its
// own trace directory.
type traceRunner struct {
	dir, traces string
	n           atomic.Int32
}

func (r *traceRunner) Run(ctx context.Context, spec string) (Run, error) {
	if spec != "" {
		panic("traceRunner has no hooks") // the observation never intervenes
	}
	td := filepath.Join(r.traces, strconv.Itoa(int(r.n.Add(1))))
	if err := os.MkdirAll(td, 0o755); err != nil {
		return Run{}, err
	}
	tr, err := instrument.Run(ctx, instrument.Config{Dir: r.dir, Pkg: "./counter", Test: "TestAdd", TraceDir: td, Timeout: time.Minute})
	if err != nil {
		return Run{}, err
	}
	os.RemoveAll(td)
	return Run{Trace: tr}, nil
}

// funcSite is the id of the function site whose name ends in name.
func funcSite(t *testing.T, sites []trace.Site, name string) trace.SiteID {
	t.Helper()
	for _, s := range sites {
		if s.Kind == trace.SiteFunc && strings.HasSuffix(s.Func, name) {
			return s.ID
		}
	}
	t.Fatalf("no function site %s", name)
	return 0
}

// TestPredicatesOfLostUpdate traces the lost update until it has failing
// and passing runs and checks that the interleaving of the split section
// is selected as fully discriminative, and that a branch taken in every
// run is not.
func TestPredicatesOfLostUpdate(t *testing.T) {
	if runtime.NumCPU() < 2 {
		t.Skip("needs two CPUs for the goroutines to interleave")
	}
	dir := t.TempDir()
	testfiles.Write(t, dir, lostUpdate)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	r := &traceRunner{dir: dir, traces: t.TempDir()}
	ob, err := Observe(ctx, r, Bounds{Workers: 2, MaxObserve: 30})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("traced: %d of %d failed, rate %.2f–%.2f", ob.Failures, ob.Runs, ob.Rate.Lo, ob.Rate.Hi)
	if ob.Failures < 3 || ob.Runs-ob.Failures < 3 {
		t.Skipf("too few failing (%d) or passing (%d) runs to select predicates", ob.Failures, ob.Runs-ob.Failures)
	}
	cs := ob.selectCandidates(Bounds{MaxCandidates: 1000})
	var split *Candidate
	for _, c := range cs {
		t.Logf("%s full=%v %d/%d", c.Pred.Describe(ob.sites), !c.Approx, c.Failing, c.Passing)
		if c.Pred.Describe(ob.sites) == "interleave(counter/counter.go:15,counter/counter.go:19,counter/counter.go:19)" {
			split = c
		}
		for _, p := range append([]Pred{c.Pred}, c.Merged...) {
			if p.Family == Branch && ob.sites[p.Sites[0]].Text == "c != nil" {
				t.Errorf("the bystander %s was selected", p.Describe(ob.sites))
			}
		}
	}
	if split == nil {
		t.Fatal("interleave of the split section not selected")
	}
	if split.Approx || split.Failing != ob.Failures || split.Passing != 0 {
		t.Errorf("interleave: approx=%v, holds in %d of %d failing and %d passing runs; want fully discriminative",
			split.Approx, split.Failing, ob.Failures, split.Passing)
	}
	if got, want := ob.item(split), fmt.Sprintf("serial:%d", funcSite(t, ob.sites, "Counter).Add")); got != want {
		t.Errorf("intervention = %q, want %q (serial on Add)", got, want)
	}

	// The step as a tree node, from one failing trace: the fact, and its
	// three accesses in the order the report words them (this
	// goroutine's read, the other's write, this goroutine's write).
	tr, w := ob.witnessed(split)
	st := Step{Candidate: split, Link: Confirmed, tr: tr, w: w}
	root := tree(ob, []Step{st})
	if root.Target.File != "counter/counter_test.go" || root.Outcome != "failed" || len(root.Children) != 1 {
		t.Fatalf("root = %+v, want the failed assertion in counter_test.go with one child", root)
	}
	n := root.Children[0]
	t.Logf("F: %+v", root.Target)
	for _, s := range n.Statements {
		t.Logf("step statement: %+v", s)
	}
	if n.Fact != "interleave" {
		t.Errorf("fact %q, want interleave", n.Fact)
	}
	var lines []int
	var texts []string
	for _, s := range n.Statements {
		lines = append(lines, s.Line)
		texts = append(texts, s.Text)
		if s.Values["c.n"] == "" && s.Values["next"] == "" {
			t.Errorf("statement %s:%d has no values: %v", s.File, s.Line, s.Values)
		}
	}
	if diff := cmp.Diff([]string{"next := c.n + 1", "c.n = next", "c.n = next"}, texts); diff != "" {
		t.Errorf("step texts (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int{15, 19, 19}, lines); diff != "" || n.Target.Line != 19 || n.Link != Confirmed {
		t.Errorf("step: target line %d, link %q, statement lines (-want +got):\n%s", n.Target.Line, n.Link, diff)
	}
}
