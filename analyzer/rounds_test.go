package analyzer_test

import (
	"context"
	"slices"
	"testing"

	"github.com/culprit-dev/culprit/analyzer"
	"github.com/culprit-dev/culprit/analyzer/result"
	"github.com/culprit-dev/culprit/analyzer/trial"
	"github.com/culprit-dev/culprit/internal/scenario/request"
)

// TestRounds explains the paper's example with ddmin one variant at a time
// and four at a time, in quarters (with the same two local workers): the
// answer is the same, every executed trial is in the ledger with its
// round, the rounds are stats.rounds, and four at once takes fewer rounds.
func TestRounds(t *testing.T) {
	t.Parallel()
	sc := loadScenario(t, "../testdata/after-example.txtar")
	rounds := map[int]int{}
	var roots [][]result.HunkID
	for _, parallel := range []int{1, 4} {
		repo, err := sc.Materialize(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		req := request.For(sc, repo, analyzer.StrategyDDMin)
		req.Parallel = parallel
		ctx, led := trial.WithLedger(context.Background())
		release := admit()
		res, err := analyzer.Explain(ctx, req)
		release()
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != result.Explained {
			t.Fatalf("parallel %d: status %s", parallel, res.Status)
		}
		roots = append(roots, res.Root)
		entries := led.Entries()
		if len(entries) != res.Cost.Trials+res.Cost.Builds {
			t.Errorf("parallel %d: %d ledger entries, %d trials and %d builds", parallel, len(entries), res.Cost.Trials, res.Cost.Builds)
		}
		deepest := 0
		for _, e := range entries {
			deepest = max(deepest, e.Round)
		}
		if res.Cost.Rounds != led.Rounds() || deepest != res.Cost.Rounds || res.Cost.Rounds > len(entries) {
			t.Errorf("parallel %d: cost %d rounds, ledger %d, deepest entry %d, %d entries",
				parallel, res.Cost.Rounds, led.Rounds(), deepest, len(entries))
		}
		if got := res.Document().Stats.Rounds; got != res.Cost.Rounds {
			t.Errorf("parallel %d: stats.rounds %d, cost %d", parallel, got, res.Cost.Rounds)
		}
		rounds[parallel] = res.Cost.Rounds
	}
	if !slices.Equal(roots[0], roots[1]) {
		t.Errorf("roots differ: %v one at a time, %v four at a time", roots[0], roots[1])
	}
	if rounds[4] >= rounds[1] {
		t.Errorf("%d rounds four at a time, %d one at a time: want fewer", rounds[4], rounds[1])
	}
	t.Logf("rounds: %v", rounds)
}
