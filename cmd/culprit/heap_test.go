package main

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// TestHeapWatch: the peak the bench reports covers what was live during
// the watch, and with a profile path a heap profile is written at the
// peak.
func TestHeapWatch(t *testing.T) {
	prof := filepath.Join(t.TempDir(), "heap.pprof")
	w := watchHeap(prof)
	held := make([]byte, 96<<20)
	for i := range held {
		held[i] = byte(i)
	}
	runtime.GC() // the live heap is what the last collection measured
	time.Sleep(3 * heapSample)
	peak := w.end()
	runtime.KeepAlive(held)
	if peak < 96<<20 {
		t.Errorf("peak %s, want at least the 96 MiB held during the watch", mib(peak))
	}
	if st, err := os.Stat(prof); err != nil || st.Size() == 0 {
		t.Errorf("no heap profile written at the peak: %v", err)
	}
}
