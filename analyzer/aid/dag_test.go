package aid

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/culprit-dev/culprit/analyzer/trace"
	"github.com/google/go-cmp/cmp"
)

// TestDAG checks the AC-DAG on hand-made times: edges only where one
// candidate precedes the other in every failing run that has both, cycles
// of approx candidates reaching each other, and candidates that never
// precede F dropped from the order.
func TestDAG(t *testing.T) {
	fail := func(end int) *observed { return &observed{failing: true, x: &extracted{end: end}} }
	ob := &Observation{runs: []*observed{fail(10), fail(10), fail(10), {x: &extracted{end: 10}}}}
	cs := []*Candidate{
		{times: []int{1, 5, 3, 9}}, // 0: before 1 in runs 0 and 2
		{times: []int{2, -1, 4, -1}},
		{times: []int{-1, 6, 1, -1}}, // 2: after 0 in run 1, before it in run 2: no edge either way
		{times: []int{3, 9, 10, 2}},  // 3: at F in run 2: no edge to F
		// 4, 5, 6 form a cycle over runs that each hold two of them.
		{times: []int{4, 8, -1, -1}},
		{times: []int{5, -1, 6, -1}},
		{times: []int{-1, 2, 7, -1}},
	}
	d := buildDAG(ob, cs)
	f := len(cs)
	edges := map[[2]int]bool{}
	for i := range d.reach {
		for j := range d.reach[i] {
			if d.reach[i][j] {
				edges[[2]int{i, j}] = true
			}
		}
	}
	for _, e := range [][2]int{{0, 1}, {0, f}, {1, f}, {2, f}, {4, 5}, {5, 6}, {6, 4}, {4, 4}, {4, f}} {
		if !edges[e] {
			t.Errorf("missing %d ⇝ %d", e[0], e[1])
		}
	}
	for _, e := range [][2]int{{1, 0}, {0, 2}, {2, 0}, {3, f}, {f, 0}} {
		if edges[e] {
			t.Errorf("unexpected %d ⇝ %d", e[0], e[1])
		}
	}
	for _, i := range d.order {
		if i == 3 {
			t.Errorf("candidate 3 has no path to F but is in the order %v", d.order)
		}
	}
	pos := map[int]int{}
	for k, i := range d.order {
		pos[i] = k
	}
	if pos[0] > pos[1] {
		t.Errorf("order %v puts 1 before its ancestor 0", d.order)
	}
	if !d.ancestorOf(0, []int{2, 1}) || d.ancestorOf(1, []int{0, 2}) {
		t.Errorf("ancestorOf disagrees with reach")
	}
	// The cycle folds into its earliest member, items and predicates too.
	for k, c := range cs {
		c.Pred = Pred{Family: Branch, Sites: [3]trace.SiteID{trace.SiteID(k + 1)}, Arg: 1}
		c.Item = fmt.Sprintf("force:%d=0", k+1)
	}
	cs[5].Item = ""
	first := d.order[slices.IndexFunc(d.order, func(i int) bool { return i >= 4 })]
	d.mergeCycles(cs)
	var cycle []int
	for _, i := range d.order {
		if i >= 4 {
			cycle = append(cycle, i)
		}
	}
	if !slices.Equal(cycle, []int{first}) || len(d.order) != 6-2 {
		t.Fatalf("order after merging %v, want the cycle as %d alone", d.order, first)
	}
	if c := cs[first]; len(c.Merged) != 2 || !c.Approx || strings.Count(c.Item, "force:") != 2 {
		t.Errorf("merged candidate %+v, want two merged predicates and the two items", c)
	}
}

// TestSelectionCap checks the cap: preferred candidates first, then the
// nearest to F.
func TestSelectionCap(t *testing.T) {
	ob, err := Observe(context.Background(), newSim(7, 0.3), Bounds{})
	if err != nil {
		t.Fatal(err)
	}
	sitesOf := func(cs []*Candidate) []trace.SiteID {
		var out []trace.SiteID
		for _, c := range cs {
			out = append(out, siteOf(c))
		}
		return out
	}
	got := sitesOf(ob.selectCandidates(Bounds{MaxCandidates: 2}))
	if diff := cmp.Diff([]trace.SiteID{simP3, simX}, got); diff != "" {
		t.Errorf("nearest F (-want +got):\n%s", diff)
	}
	got = sitesOf(ob.selectCandidates(Bounds{MaxCandidates: 2, Prefer: func(s trace.SiteID) bool { return s == simS1 }}))
	if diff := cmp.Diff([]trace.SiteID{simS1, simP3}, got); diff != "" {
		t.Errorf("preferred first (-want +got):\n%s", diff)
	}
}

func TestObservedCallee(t *testing.T) {
	for callee, want := range map[string]bool{
		"time.Now":                    true,
		"(time.Time).Sub":             true,
		"(*math/rand.Rand).Intn":      true,
		"math/rand/v2.IntN":           true,
		"runtime.NumGoroutine":        true,
		"os.Getenv":                   true,
		"strings.Repeat":              false,
		"(*sync.Mutex).Lock":          false,
		"example.com/m/time.Now":      false,
		"(*example.com/os.File).Read": false,
	} {
		if got := observedCallee(callee); got != want {
			t.Errorf("observedCallee(%q) = %v, want %v", callee, got, want)
		}
	}
}
