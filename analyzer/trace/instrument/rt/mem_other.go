//go:build !linux

package rt

// Provisioning the file's pages ahead of the tail is Linux-only (see
// mem_linux.go); elsewhere pages are faulted in on first use.

const provisionStep = 0

func provision(uint64) {}

func largePages([]byte) {}

func (f *F) provide() {}
