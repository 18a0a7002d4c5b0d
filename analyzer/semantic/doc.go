// Package semantic derives causes of a failing test from one traced run
// (SEMANTIC.md §2–§4, after AFTER, ICSE'15): the trace formula over the
// backward dynamic slice of a target, built on demand in SSA form; causes as
// minimal unsatisfiable cores of that formula under the negated target; and
// the critical predicates that extend the explanation upstream.
//
// A target's slice is encoded in windows, nearest dependences first: the
// definitions beyond the window enter as soft pins (their observed
// values), and the slice grows only where a core needs a pin, up to
// Options.MaxSlice events; a cause whose core still needs pins there is
// marked Cut.
//
// What the encoder cannot model precisely is encoded point-wise or as an
// input and counted in Stats; when no cause can be derived the error wraps
// ErrNoCause. An Analysis owns one solver context and is not safe for
// concurrent use.
package semantic
