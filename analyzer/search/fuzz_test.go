package search

import (
	"math/bits"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/culprit-dev/culprit/diffhunks"
)

// FuzzAsymmetric checks Asymmetric against random oracles of the form
// "passes iff S ⊆ reverted": the root must pass, be 1-minimal (which for
// such an oracle means it is S itself), and be proven.
func FuzzAsymmetric(f *testing.F) {
	f.Add(uint8(4), uint64(0b0110), uint8(0))
	f.Add(uint8(40), uint64(1<<12|1<<30), uint8(3))
	f.Add(uint8(1), uint64(1), uint8(0))
	f.Add(uint8(63), uint64(1<<62), uint8(8))
	f.Add(uint8(17), uint64(0x1ffff), uint8(2))
	f.Fuzz(func(t *testing.T, size uint8, mask uint64, parallel uint8) {
		n := int(size%63) + 1
		mask &= 1<<n - 1
		if mask == 0 {
			mask = 1 << (n - 1)
		}
		var root []diffhunks.ID
		for i := range n {
			if mask&(1<<i) != 0 {
				root = append(root, diffhunks.ID(i+1))
			}
		}
		rule := subsetRule(root...)
		o := &oracle{passes: rule}
		got, err := Asymmetric(t.Context(), o, hunksIn(n, 5, 2), ids(1, n), Plan{Parallel: int(parallel % 9)})
		if err != nil {
			t.Fatal(err)
		}
		if !rule(setOf(got.Root...), 0) || !got.Proof.Passed() {
			t.Fatalf("root %v does not pass", got.Root)
		}
		for i := range got.Root {
			fewer := append(append([]diffhunks.ID(nil), got.Root[:i]...), got.Root[i+1:]...)
			if rule(setOf(fewer...), 0) {
				t.Fatalf("root %v is not 1-minimal: %v passes", got.Root, fewer)
			}
		}
		if diff := cmp.Diff(root, got.Root); diff != "" {
			t.Fatalf("root (-want +got):\n%s", diff)
		}
		// A loose bound, to catch a search that degenerates into trying
		// everything: ddmin's worst case is quadratic in n; with |S| = k
		// the search needs about 2k·log2(n) partition steps.
		k := bits.OnesCount64(mask)
		limit := 4*k*(bits.Len(uint(n))+1)*max(int(parallel%9), 1) + 2*n + 4
		if got.Trials > limit {
			t.Errorf("%d trials for n=%d, k=%d, want at most %d", got.Trials, n, k, limit)
		}
		o.checkNoRepeats(t, got.Root)
	})
}
