package main

import (
	"fmt"
	"os"
	"runtime/metrics"
	"runtime/pprof"
	"sync"
	"time"
)

// heapWatch samples the live heap (as the last collection measured it)
// while a corpus case runs, for the bench's peak heap column. With a
// profile path it also writes a heap profile whenever the live heap
// passes its previous peak by a quarter, so that the file shows what
// held memory at the worst moment of the run.
type heapWatch struct {
	profile string

	mu       sync.Mutex
	peak     uint64
	profiled uint64 // live heap when the profile was last written
	stop     chan struct{}
	done     chan struct{}
}

// heapSample is the interval between samples: fine enough for a peak that
// lasts a collection cycle, cheap beside a test run.
const heapSample = 200 * time.Millisecond

// watchHeap starts a watch; its end returns the peak seen.
func watchHeap(profile string) *heapWatch {
	w := &heapWatch{profile: profile, stop: make(chan struct{}), done: make(chan struct{})}
	go w.loop()
	return w
}

func (w *heapWatch) loop() {
	defer close(w.done)
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	t := time.NewTicker(heapSample)
	defer t.Stop()
	for {
		metrics.Read(s)
		if s[0].Value.Kind() == metrics.KindUint64 {
			w.observe(s[0].Value.Uint64())
		}
		select {
		case <-w.stop:
			return
		case <-t.C:
		}
	}
}

func (w *heapWatch) observe(live uint64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.peak = max(w.peak, live)
	if w.profile == "" || live < w.profiled+w.profiled/4 || live < 64<<20 {
		return
	}
	w.profiled = live
	f, err := os.Create(w.profile)
	if err != nil {
		return
	}
	defer f.Close()
	pprof.Lookup("heap").WriteTo(f, 0)
}

// end stops the watch and returns the peak live heap.
func (w *heapWatch) end() uint64 {
	close(w.stop)
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.peak
}

// mib formats a byte count in MiB.
func mib(n uint64) string {
	return fmt.Sprintf("%d MiB", n>>20)
}
