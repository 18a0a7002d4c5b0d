// Package aid explains a flaky failure by intervention (FLAKY.md §1–§4,
// after AID: Fariha, Nath, Meliou). It traces head many times, keeps the
// runtime facts (predicates) that discriminate failing from passing runs,
// orders them by time into an approximate causal DAG ending in the
// failure F, and then re-runs the traced test with interventions that
// make groups of them false: a group whose intervention stops the
// failure holds a cause (group intervention with pruning, GIWP). The
// confirmed causes, in order, are the chain of a result.Node tree.
//
// Decisions worth knowing:
//   - Predicates are keyed by the build's site ids, which every run of one
//     build shares; frame ids, goroutine ids and addresses never enter a
//     key. A goroutine is named by its class: the function site of its
//     outermost instrumented frame.
//   - Shared locations are heap and captured variables, package-level
//     variables and maps; a map is one location whatever the key, since
//     concurrent writes crash on any keys.
//   - order(A,B) means that two goroutines' access spans of one location
//     overlapped (the later starter's first access at A came before the
//     earlier one's last access at B). "A before B" alone holds whenever
//     goroutines take turns, in passing runs too.
//   - value(S) compares a return or time/rand/runtime/os call result with
//     the passing runs' range. A run keeps only the values that set a new
//     running minimum or maximum: the first value outside any range is
//     one of them.
//   - The group test's SPRT is stats.NewSPRT over the traced rate's
//     Wilson lower bound; one valid failing run decides "persists". A run
//     counts only if a hook acted and it passed with the intervened
//     predicates gone or failed with F's signature. A batch of Workers
//     runs is judged as a whole, so verdicts do not depend on which run
//     of a batch ends first.
//   - Concurrency predicates are intervened on with one serial item on the
//     innermost function both witnesses' goroutines run (see commonFunc);
//     values and panics have no intervention here and can only be
//     correlated steps.
//   - A confirmed serial link gets a delay placebo of the mean wait its
//     runs reported (Run.Waited); only placebo runs where the predicate
//     still occurs count. A traced test that reports no wait gets no placebo,
//     and a note says how many links went unchecked.
//   - Not in this version: count predicates and per-instance ordinals,
//     branch pruning at junctions, DAG edges from intervened runs, gate
//     and value interventions, and skipping a placebo whose wait is as
//     long as the witness span (traces carry no times).
package aid
