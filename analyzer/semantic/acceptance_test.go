package semantic

import "testing"

// TestAfterExample traces TestF on the head of the AFTER running example
// and checks the causes and critical predicates of SEMANTIC.md §3–§4.
func TestAfterExample(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a traced test binary")
	}
	dir := afterHead(t)
	checkAfter(t, traceFailing(t, dir, "./calc", "TestF"), dir)
}
