// Package instrument records what one run of a Go test executed, as a
// trace.Trace.
//
// Run instruments, by a go/ast-guided source rewrite, every package of the
// main module that the test's package imports (and the test package itself),
// writes the rewritten files to a temporary directory and runs `go test` with
// an -overlay that also adds a small runtime package (rt). The working tree
// is never modified: rewrites are text insertions only, so every line keeps
// its number and test output and panics point at the original source (by
// module path when the build trims its paths, trimpath.go).
//
// The runtime appends events to a memory-mapped file in the directory named
// by the CULPRIT_TRACE environment variable (see package trace for what it
// holds and how it is decoded). The rewrite also fills the site table, a
// trace.Table, which every run writes next to its events so that trace.Read
// decodes the directory on its own.
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
// Malformed items are ignored. trace.Trace.Intervention counts what the
// hooks did.
//
// What cannot be instrumented is left alone and listed in
// trace.Trace.Skipped: its effects become inputs. A file whose rewrite
// fails to type-check is used unmodified.
//
// This package imports trace, never the reverse: reading a trace needs
// none of the loading, rewriting and building here. The table under
// construction embeds trace.Table, so that its JSON is the table Read
// expects, field for field.
//
// The runtime's sources live below this package, in rt, because a package
// embeds files of its own directory tree only: each build copies them into
// its overlay as <module>/culprit_trace_rt, the path instrumented code
// imports. Nothing links rt by its own import path: it reaches into the Go
// runtime by linkname (rt/g_runtime.go), which only the flags of a traced
// build allow (exec.go).
package instrument
