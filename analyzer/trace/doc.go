// Package trace is the record of what one run of a Go test executed, and
// its reading: the events of the run in one global order, the static sites
// they happened at, the activations (frames) of the instrumented
// functions, and the queries a formula builder walks backwards with.
//
// Package instrument makes the record: it rewrites the test's module,
// builds and runs it, and hands back a Trace decoded here. This package
// loads, rewrites and runs nothing, so the analyses that read traces
// (semantic, contrast, aid) link neither go/packages nor the rewriter.
//
// The runtime (package instrument/rt) appends events to a memory-mapped
// file, so the trace survives os.Exit, t.Fatal, panics and a timeout kill.
// Each frame appends to a block of the file it reserved with one atomic
// addition, with plain stores as long as no other block was reserved after
// it; the blocks in file order are one global order of the events of all
// goroutines. Operand reads are pushed into a small per-frame buffer while
// an expression evaluates and written with the event that consumes them.
//
// Read decodes a trace directory (the event file plus the site table,
// TableFile, that the build writes next to it) into a Trace: events by
// index, the last definition of a location before an event (Def, LastDef),
// frames and call structure, and per-site expression shapes. Reads the
// runtime left unrecorded (Operand.Elided) are rebuilt from the frame's
// last write of the local.
//
// Trace.Intervention counts what a run's intervention hooks did (locks
// taken, branches forced, delays and yields made; serial waits that
// expired), so a caller can tell an intervention that never applied; the
// spec is described in package instrument.
//
// What could not be instrumented is listed in Trace.Skipped: its effects
// become inputs. Value.Format renders a recorded value for a reader, naming
// pointers by type and first appearance (Objects), never by address.
package trace
