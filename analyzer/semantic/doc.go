// Package semantic derives causes of a failing test from one traced run
// (SEMANTIC.md §2–§4, after AFTER, ICSE'15): the trace formula over the
// backward dynamic slice of a target, built on demand in SSA form; causes as
// minimal unsatisfiable cores of that formula under the negated target; and
// the critical predicates that extend the explanation upstream.
//
// What the encoder cannot model precisely is encoded point-wise or as an
// input and counted in Stats; when no cause can be derived the error wraps
// ErrNoCause. An Analysis owns one solver context and is not safe for
// concurrent use.
package semantic
