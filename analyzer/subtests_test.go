package analyzer_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/culprit-dev/culprit/analyzer"
	"github.com/culprit-dev/culprit/internal/scenario/request"
)

// TestSubtestMatchingNothing names a subtest that does not exist. Its
// top-level test still runs under the subtest's -run pattern; whether it
// passes there or fails on a check of its own, the answer is that no
// subtest matches, with the subtests that ran on head, and never a verdict
// about a test that never ran ("new in this change", "not a regression").
func TestSubtestMatchingNothing(t *testing.T) {
	for _, tt := range []struct {
		name, archive, test string
		ran                 []string
	}{
		{
			name:    "parent fails on its own check",
			archive: "testdata/subtest-no-match.txtar",
			test:    "TestHalf/Odd",
			ran:     []string{"TestHalf/even", "TestHalf/odd"},
		},
		{
			name:    "parent passes",
			archive: "../testdata/table-subtest.txtar",
			test:    "TestFormat/nosuch",
			ran:     []string{"TestFormat/plain", "TestFormat/negative", "TestFormat/thousands"},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sc := loadScenario(t, tt.archive)
			repo, err := sc.Materialize(filepath.Join(t.TempDir(), "repo"))
			if err != nil {
				t.Fatal(err)
			}
			req := request.For(sc, repo, analyzer.StrategyDynamic)
			req.Test.Name = tt.test
			res, err := analyzer.Explain(context.Background(), req)
			var ns *analyzer.NoSuchSubtestError
			if !errors.As(err, &ns) {
				if res != nil {
					t.Fatalf("Explain gave status %s, notes %+v, err %v; want a NoSuchSubtestError", res.Status, res.Notes, err)
				}
				t.Fatalf("Explain: %v; want a NoSuchSubtestError", err)
			}
			if !errors.Is(err, analyzer.ErrNoSuchTest) {
				t.Errorf("%v is not an ErrNoSuchTest", err)
			}
			if ns.Name != tt.test {
				t.Errorf("the error names %q, want %q", ns.Name, tt.test)
			}
			if diff := cmp.Diff(tt.ran, ns.Ran); diff != "" {
				t.Errorf("subtests that ran (-want +got):\n%s", diff)
			}
		})
	}
}
