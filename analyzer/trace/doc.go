// Package trace records what one run of a Go test executed.
//
// Run instruments, by a go/ast-guided source rewrite, every package of the
// main module that the test's package imports (and the test package itself),
// writes the rewritten files to a temporary directory and runs `go test` with
// an -overlay that also adds a small runtime package. The working tree is
// never modified: rewrites are text insertions only, so every line keeps its
// number and test output and panics point at the original source.
//
// The runtime appends events to a memory-mapped file named by the
// CULPRIT_TRACE environment variable, so the trace survives os.Exit,
// t.Fatal, panics and a timeout kill. Each frame appends to a block of the
// file it reserved with one atomic addition, with plain stores as long as
// no other block was reserved after it; the blocks in file order are one
// global order of the events of all goroutines (see package rt). Operand
// reads are pushed into a small per-frame buffer while an expression
// evaluates and written with the event that consumes them.
//
// Read decodes a trace directory (the event file plus the site table written
// next to it) into a Trace that a formula builder walks backwards: events by
// index, the last definition of a location before an event (Def, LastDef),
// frames and call structure, and per-site expression shapes.
//
// What cannot be instrumented is left alone and listed in Trace.Skipped: its
// effects become inputs. A file whose rewrite fails to type-check is used
// unmodified.
package trace
