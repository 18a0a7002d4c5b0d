package proc

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// memoryPoll is how often a bounded process group's memory is measured.
const memoryPoll = 100 * time.Millisecond

// TestMemory is the default bound of the resident memory a test run's
// process group may use: a third of the machine's memory (two test runs
// go at once beside the analysis), and 2 GiB where the machine's memory
// cannot be read. A test that needs more under a reverted variant (a loop
// that allocates without end) would otherwise take the machine down with
// it, the analysis included.
var TestMemory = sync.OnceValue(func() int64 {
	if total := memTotal(); total > 0 {
		return total / 3
	}
	return 2 << 30
})

// memTotal is the machine's memory in bytes from /proc/meminfo, 0 if
// unknown.
func memTotal() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 2 && f[0] == "MemTotal:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 0
}

// toolchain are the commands of the Go toolchain and the C compilers it
// calls: a `go test` group builds before it runs the test, and a large
// package's compile may need more memory than its test; the bound is the
// test's.
var toolchain = map[string]bool{
	"go": true, "compile": true, "link": true, "asm": true, "cgo": true, "vet": true, "test2json": true,
	"gcc": true, "cc": true, "cc1": true, "as": true, "ld": true, "collect2": true, "clang": true,
}

// groupRSS is the resident memory, in bytes, of the processes in process
// group pgid other than the toolchain's, from /proc; false where /proc
// cannot be read (not Linux).
func groupRSS(pgid int) (int64, bool) {
	dirs, err := os.ReadDir("/proc")
	if err != nil {
		return 0, false
	}
	page := int64(os.Getpagesize())
	var total int64
	for _, d := range dirs {
		if d.Name()[0] < '0' || d.Name()[0] > '9' {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", d.Name(), "stat"))
		if err != nil {
			continue // the process ended meanwhile
		}
		comm, group, rss, ok := statFields(b)
		if ok && group == pgid && !toolchain[comm] {
			total += rss * page
		}
	}
	return total, true
}

// statFields reads a /proc/PID/stat line's command name, process group
// and resident pages. The name, in parentheses, may hold spaces and
// parentheses itself: the fields are counted from the last ')'.
func statFields(b []byte) (comm string, pgrp int, rss int64, ok bool) {
	open, i := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || i < open {
		return "", 0, 0, false
	}
	comm = string(b[open+1 : i])
	f := strings.Fields(string(b[i+1:]))
	// After the name: state, ppid, pgrp, …; rss is field 24 of the line,
	// the 22nd after the name.
	if len(f) < 22 {
		return "", 0, 0, false
	}
	g, err1 := strconv.Atoi(f[2])
	r, err2 := strconv.ParseInt(f[21], 10, 64)
	if err1 != nil || err2 != nil {
		return "", 0, 0, false
	}
	return comm, g, r, true
}

// watchMemory kills process group pgid once its resident memory passes
// limit, and then sets over; it returns when done is closed.
func watchMemory(pgid int, limit int64, kill func(), over *atomic.Bool, done <-chan struct{}) {
	go func() {
		t := time.NewTicker(memoryPoll)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			rss, ok := groupRSS(pgid)
			if !ok {
				return
			}
			if rss > limit {
				over.Store(true)
				kill()
				return
			}
		}
	}()
}
