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
// Build instruments and compiles the traced test binary once; Binary.Run
// runs it as often as needed (concurrently too), each run in its own trace
// directory, decoded and removed. Run is Build, one run and Close. A run may
// carry an intervention spec (RunOptions.Intervene, passed as
// CULPRIT_INTERVENE), which the runtime parses once at start into per-site
// tables; without one, each hook costs one test of a package variable.
// Items, separated by ';', name the build's site ids:
//
//	serial:F      activations of function F never overlap: each holds a lock
//	              of the item from entry to exit, also when it panics; a
//	              recursive activation does not wait for itself
//	              (serial:F,G shares one lock between several functions)
//	force:S=0|1   the if, for, tagless case, && or || at S takes that
//	              outcome, and its event records it
//	delay:F=d     sleep d on entering F (a placebo for serial)
//	yield:F       runtime.Gosched() on entering F
//	expire=d      a serial wait proceeds without the lock after d
//	              (default 50ms)
//
// Malformed items are ignored. Trace.Intervention counts what the hooks did
// (locks taken, branches forced, delays and yields made; serial waits that
// expired), so a caller can tell an intervention that never applied.
//
// What cannot be instrumented is left alone and listed in Trace.Skipped: its
// effects become inputs. A file whose rewrite fails to type-check is used
// unmodified.
package trace
