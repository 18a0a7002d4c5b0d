// Package semantic derives causes of a failing test from one traced run
// (SEMANTIC.md §2–§4, after AFTER, ICSE'15): the trace formula over the
// backward dynamic slice of a target, built on demand in SSA form; causes as
// minimal unsatisfiable cores of that formula under the negated target; and
// the critical predicates that extend the explanation upstream.
//
// What the encoder cannot model precisely is encoded point-wise or as an
// input and counted in Effort; when no cause can be derived the error wraps
// ErrNoCause. An Analysis owns one solver context and is not safe for
// concurrent use.
//
// # The bounded slice
//
// A real test's backward slice can hold millions of events; a core search
// over all of them would not end. The slice is therefore encoded in
// windows (window.go), and only where a core asks for more:
//
//   - Window. From the target (the events its negation reads, and the
//     branch that controls it), the slice is walked breadth first along
//     def-use links, the calls that made frames and dynamic control
//     dependence, so the events nearest the target come first. The first
//     window takes Setup.Window events (DefaultWindow, 512). Events at or
//     after the target's horizon (what ran after its predicate was
//     decided) are never encoded.
//   - Pins. A definition that an encoded clause reads but that lies beyond
//     the window enters as a pin: one soft clause saying the variables it
//     defined hold their observed values, labelled by the defining event.
//     Pins come after the window's clauses, which are in trace order, so
//     that QuickXplain's choice among equal cores is deterministic.
//   - Growth. A core that needs no pin is a core of the whole slice: the
//     search stops. Otherwise the window grows only from the pins the last
//     core needed, by twice the previous step, and the core is searched
//     again. A pin that no core needs is never expanded, which is what
//     keeps the encoded part small. If a round adds no event although the
//     core needs pins, the target fails with "the slice cannot grow".
//   - Bound. No target encodes more than Setup.MaxSlice events
//     (DefaultMaxSlice, 8192). A core that still needs pins at the bound is
//     kept: its pinned events are part of the cause, as observed, but what
//     decided their values was not derived. The cause is marked Cut and
//     counted in Effort.Cut; the analyzer reports it as the slice-cut note,
//     with the bound.
//
// Each core search uses a solver of its own, reset when it returns
// (smt.MinimalCore), and Effort.Slice records the largest window reached.
//
// Which causes are derived at all is the analyzer's AFTER loop (package
// analyzer, after.go), not this package: it takes critical predicates
// nearest the failure first, and when four causes in a row touch no hunk
// that earlier causes had not, and the analysis has made a few hundred
// solver calls, it stops deriving and falls back (the causes-idle note); a program
// whose causes are cheap goes on, as a later cause may still reach the
// root.
package semantic
