package rt

import (
	"sync/atomic"
	"syscall"
	"unsafe"
)

// The event file's pages are provisioned ahead of the tail: blocks are
// allocated on disk (fallocate, so that the first store to a page does not
// have to reserve them) and faulted in, writable, with MADV_POPULATE_WRITE
// (Linux 5.14), which costs less than a page fault per page. This runs in a
// goroutine of its own while the traced program goes on, so on a machine
// with a spare core the kernel's part of recording costs little wall time.
// The goroutine exits whenever it has caught up, so that an idle traced
// program has no extra goroutine.
const (
	madvHugepage      = 14 // MADV_HUGEPAGE
	madvPopulateWrite = 23 // MADV_POPULATE_WRITE
	fallocKeepSize    = 1  // FALLOC_FL_KEEP_SIZE

	// Pages are provisioned as far beyond the tail as the tail itself, at
	// least minAhead and at most maxAhead; provisionStep is how much one
	// system call provisions. All in words.
	minAhead      = 1 << 20 / 8
	maxAhead      = 32 << 20 / 8
	provisionStep = 512 << 10 / 8
	// allocStep bounds how much one fallocate call allocates, in bytes. It
	// locks the file against page faults, so it is called rarely: each call
	// doubles the allocation, up to allocStep at a time.
	allocStep = 32 << 20
)

var (
	provisioned atomic.Uint64 // word offset up to which pages are provisioned
	allocated   int64         // byte offset up to which blocks are allocated
	wanted      atomic.Uint64 // word offset the provisioner is asked to reach
	provRunning atomic.Bool   // a provisioner goroutine is running
	provOff     atomic.Bool   // the kernel does not support it
)

// largePages asks for the mapping b of the event file to be backed by
// page-cache folios of huge-page size from its first page on. A
// filesystem with large folios (XFS; ext4 since Linux 6.16) otherwise
// starts the file with small folios, each 4 KiB page mapped on its own,
// and enlarges them only as the file grows: the stores to the first tens
// of megabytes then ran at a quarter of the speed of the later ones
// (BenchmarkLoop's first loop). Elsewhere it changes nothing, and an error
// (a kernel without transparent huge pages) is ignored.
func largePages(b []byte) {
	syscall.Madvise(b, madvHugepage)
}

// provision synchronously provisions the pages up to upTo (used at start).
func provision(upTo uint64) {
	for p := provisioned.Load(); p < upTo && !provOff.Load(); p = provisioned.Load() {
		provisionRange(p, min(p+provisionStep, nwords))
	}
}

// provisionRange provisions words [lo, hi) and records hi as provisioned.
func provisionRange(lo, hi uint64) {
	lb, hb := lo*8&^4095, hi*8
	if hb <= lb {
		provisioned.Store(hi)
		return
	}
	if fd >= 0 && int64(hb) > allocated {
		n := min(int64(nwords*8)-allocated, max(min(allocStep, allocated), int64(hb)-allocated))
		syscall.Fallocate(fd, fallocKeepSize, allocated, n)
		allocated += n
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), nwords*8)[lb:hb]
	if _, _, e := syscall.Syscall(syscall.SYS_MADVISE, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), madvPopulateWrite); e != 0 {
		provOff.Store(true)
	}
	provisioned.Store(hi)
}

// provide asks for the pages ahead of f's block to be provisioned once less
// than half of the distance ahead is left, starting the provisioner
// goroutine when none is running.
func (f *F) provide() {
	ahead := min(max(f.end, minAhead), maxAhead)
	// A ring's tail runs past the file's end once it wraps, when the
	// whole file is provisioned already.
	if p := provisioned.Load(); p >= nwords || f.end+ahead/2 <= p || provOff.Load() {
		return
	}
	want := min(f.end+ahead, nwords)
	for w := wanted.Load(); w < want && !wanted.CompareAndSwap(w, want); w = wanted.Load() {
	}
	if !provRunning.Load() && provRunning.CompareAndSwap(false, true) {
		go provisioner()
	}
}

// provisioner provisions pages up to the wanted offset and exits once it
// has caught up.
func provisioner() {
	for {
		for p := provisioned.Load(); p < wanted.Load() && !provOff.Load(); p = provisioned.Load() {
			provisionRange(p, min(p+provisionStep, wanted.Load()))
		}
		provRunning.Store(false)
		// A request that came in after the last check but before the flag
		// was cleared found the flag set: take it on unless another
		// provisioner started meanwhile.
		if provisioned.Load() >= wanted.Load() || provOff.Load() || !provRunning.CompareAndSwap(false, true) {
			return
		}
	}
}
