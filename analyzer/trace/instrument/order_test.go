package instrument

import (
	"testing"

	"github.com/culprit-dev/culprit/analyzer/trace"
)

// TestGlobalOrder checks that the trace's single order of events follows
// synchronisation between goroutines: goroutines increment a counter under
// a mutex, so in a faithful order every increment reads the value the
// previous one wrote. Frames also keep their events between their entry
// and exit.
func TestGlobalOrder(t *testing.T) {
	dir := writeTree(t, map[string][]byte{
		"go.mod": []byte("module example.com/m\n\ngo 1.22\n"),
		"p/p.go": []byte(`package p

import "sync"

var mu sync.Mutex
var c int

func bump(k int) int {
	s := 0
	for j := 0; j < k; j++ {
		s += j
	}
	mu.Lock()
	c++
	mu.Unlock()
	return s
}

func Run(g, n int) int {
	var wg sync.WaitGroup
	ch := make(chan int, 4)
	for i := 0; i < g; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 0; k < n; k++ {
				ch <- bump(k % 7)
			}
		}()
	}
	go func() { wg.Wait(); close(ch) }()
	t := 0
	for v := range ch {
		t += v
	}
	return t
}
`),
		"p/p_test.go": []byte(`package p

import "testing"

func TestX(t *testing.T) {
	Run(8, 1000)
	if c != 8*1000 {
		t.Fatal(c)
	}
}
`),
	})
	tr := runTrace(t, dir, "./p", "TestX")
	if !tr.Result.Passed || tr.Truncated {
		t.Fatalf("traced run failed or truncated:\n%s", tr.Result.Output)
	}
	next, n := uint64(0), 0
	for _, e := range tr.Events {
		if e.Kind != trace.EvAssign || tr.Sites[e.Site].Text != "c++" {
			continue
		}
		if len(e.Reads) != 1 || len(e.Writes) != 1 {
			t.Fatalf("c++ event %d: %d reads, %d writes", e.Index, len(e.Reads), len(e.Writes))
		}
		r, w := e.Reads[0].Value.Bits, e.Writes[0].Value.Bits
		if r != next || w != r+1 {
			t.Fatalf("c++ event %d (increment %d) read %d and wrote %d; the previous increment wrote %d", e.Index, n, r, w, next)
		}
		next, n = w, n+1
	}
	if n != 8*1000 {
		t.Errorf("%d increments traced, want %d", n, 8*1000)
	}
	for _, e := range tr.Events {
		if e.Frame == 0 {
			continue
		}
		fr := tr.Frames[e.Frame]
		if e.Index < fr.Entry || fr.Exit >= 0 && e.Index > fr.Exit {
			t.Fatalf("event %d outside its frame %d [%d, %d]", e.Index, e.Frame, fr.Entry, fr.Exit)
		}
	}
}
