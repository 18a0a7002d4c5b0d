package rt

import (
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Schedule perturbation: the spec item perturb:SEED/N makes about one in N
// of the traced program's function entries and events (each assignment,
// branch, call and return the trace would record) yield the processor, and one in eight of those sleep a few microseconds
// instead, so that a goroutine is more often paused inside a short window
// another goroutine could enter. It exposes rare interleavings; it does
// not explain them. Which points act follows from SEED and the order in
// which the points are reached, so a run is replayed, as far as the
// scheduler lets it, by giving the same seed.

// perturbation is a parsed perturb item.
type perturbation struct {
	seed  uint64
	every uint64 // one point in every acts
	n     atomic.Uint64
}

// maxPause bounds a perturbation's sleep.
const maxPause = 200 * time.Microsecond

// parsePerturb parses the argument of a perturb item, SEED/N with N ≥ 2.
func parsePerturb(arg string) *perturbation {
	s, n, ok := strings.Cut(arg, "/")
	seed, err1 := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
	every, err2 := strconv.ParseUint(strings.TrimSpace(n), 10, 32)
	if !ok || err1 != nil || err2 != nil || every < 2 {
		return nil
	}
	return &perturbation{seed: seed, every: every}
}

// point is one perturbation point reached.
//
//go:noinline
func (p *perturbation) point() {
	h := mix(p.seed ^ p.n.Add(1)*0x9e3779b97f4a7c15)
	if h%p.every != 0 {
		return
	}
	if h>>61 == 0 { // one in eight
		time.Sleep(time.Duration(h>>32%uint64(maxPause/time.Microsecond)+1) * time.Microsecond)
	} else {
		runtime.Gosched()
	}
	count(hPerturbed)
}

// mix is the finaliser of splitmix64: every input bit moves every output
// bit.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}
