// Package search finds which hunks of a change must be reverted for a failing
// test to pass. It works over an abstract Tester (build and run head with a
// set of hunks reverted), so the strategies do not know how trials run and
// can be tested against an oracle.
//
// The main strategy is Asymmetric, the dynamic analysis of AFTER (Yi et al.,
// ICSE'15, Algorithm 2): a ddmin-like recursive partitioning in which only
// passing runs decide. A failing run never removes hunks from consideration,
// so a failure that needs two changes reverted together (neither alone
// helps) is not missed.
//
// Whenever a variant does not compile, the strategies look for auxiliary
// hunks (AuxFor, AFTER Algorithm 4) whose revert makes it compile again, and
// run that variant instead. In Go this is the common case: reverting the only
// use of a variable or an import leaves it unused, and reverting a rename
// breaks the call sites in other files.
//
// DDMin (Zeller's delta debugging on the set of reverted hunks) and OneByOne
// are baselines kept for comparison and as fallbacks.
//
// Every root a strategy reports has been proven: the variant with Root and
// Aux reverted is run once more and must pass.
//
// A flaky test is searched by the same strategies through NoisyTester,
// whose Run is a sequential test on the variant's failure rate over
// repeated runs, and whose second Run of a passing variant (the proof) is
// a fresh batch of runs that must all pass.
package search
