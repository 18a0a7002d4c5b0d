package smt

/*
#cgo LDFLAGS: -lz3
#include <z3.h>
*/
import "C"

// Allocated returns Z3's estimate of the memory it holds, in bytes, for
// the whole process (every Context). Z3 allocates outside the Go heap, so
// this is the figure to watch when solvers are left to Go's collector.
func Allocated() uint64 { return uint64(C.Z3_get_estimated_alloc_size()) }
