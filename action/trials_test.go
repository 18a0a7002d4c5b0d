package action_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/culprit-dev/culprit/action"
	"github.com/culprit-dev/culprit/analyzer"
	"github.com/culprit-dev/culprit/analyzer/result"
	"github.com/culprit-dev/culprit/analyzer/trial"
	"github.com/culprit-dev/culprit/diffhunks"
	"github.com/culprit-dev/culprit/internal/fakegh"
	"github.com/culprit-dev/culprit/internal/ghclient"
	"github.com/culprit-dev/culprit/internal/scenario"
	"github.com/culprit-dev/culprit/internal/scenario/request"
	"github.com/culprit-dev/culprit/internal/shard"
)

// trialsInputs are the dispatch inputs culprit-trials.yml declares,
// required ones marked "!", as the fake checks them.
func trialsInputs(t *testing.T) []string {
	t.Helper()
	doc := readYAML(t, "../.github/workflows/culprit-trials.yml")
	inputs := doc["on"].(map[string]any)["workflow_dispatch"].(map[string]any)["inputs"].(map[string]any)
	var out []string
	for name, v := range inputs {
		if v.(map[string]any)["required"] == "true" {
			name += "!"
		}
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

// TestTrialsThroughTheWorkflow explains the paper's example twice: with
// the local trials, and with every trial dispatched to the trials
// workflow of a fake GitHub whose runs are shards doing real go test runs
// on a checkout of head, after a queue latency. One run loses its shard,
// one answers for another round, one answers garbage: those trials run
// in the analyze job instead, and the verdict is the local one.
func TestTrialsThroughTheWorkflow(t *testing.T) {
	t.Parallel()
	sc, err := scenario.Load("../testdata/after-example.txtar")
	if err != nil {
		t.Fatal(err)
	}
	repo, err := sc.Materialize(filepath.Join(t.TempDir(), "repo"))
	if err != nil {
		t.Fatal(err)
	}
	headSHA := gitOut(t, repo.Dir, "rev-parse", repo.Head+"^{commit}")
	checkout := filepath.Join(t.TempDir(), "checkout")
	gitOut(t, filepath.Dir(checkout), "clone", "-q", repo.Dir, checkout)
	gitOut(t, checkout, "checkout", "-q", "--detach", headSHA)

	gh := fakegh.New(t, "o", "r", "tok")
	gh.Workflows = map[string][]string{action.TrialsWorkflow: trialsInputs(t)}
	gh.QueueLatency = 20 * time.Millisecond
	var mu sync.Mutex
	runs := 0
	gh.Run = func(d fakegh.Dispatch) (string, func() map[string]map[string][]byte) {
		mu.Lock()
		runs++
		n := runs
		mu.Unlock()
		return "culprit trials " + d.Inputs["round-id"], func() map[string]map[string][]byte {
			return runShards(t, checkout, d, n)
		}
	}
	client, err := ghclient.New(nil, gh.APIURL(), "tok", nil)
	if err != nil {
		t.Fatal(err)
	}
	trials := &action.Trials{Client: client, Blobs: &http.Client{}, Owner: "o", Repo: "r", Ref: "main", Head: headSHA,
		RunID: 77, Runners: 4, Poll: 10 * time.Millisecond, MaxPoll: 50 * time.Millisecond}

	explain := func(edit func(*analyzer.Request)) *analyzer.Result {
		req := request.For(sc, repo, analyzer.StrategyDynamic)
		if edit != nil {
			edit(&req)
		}
		res, err := analyzer.Explain(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	local := explain(nil)
	remote := explain(func(r *analyzer.Request) { r.Executor = trials })
	if local.Status != result.Explained || remote.Status != local.Status || !slices.Equal(remote.Root, local.Root) || !slices.Equal(remote.Aux, local.Aux) {
		t.Errorf("through the workflow: %s root %v aux %v; locally: %s root %v aux %v",
			remote.Status, remote.Root, remote.Aux, local.Status, local.Root, local.Aux)
	}
	dispatched := len(gh.Dispatches())
	if dispatched < 4 {
		t.Fatalf("%d dispatches, want every trial's (at least 4)", dispatched)
	}
	if got := trials.Fallbacks(); got != 3 {
		t.Errorf("%d trials run in the job after a bad shard, want 3 (lost, forged, garbage)", got)
	}
	calls := gh.Calls()
	if calls["GET /_blobs"] != dispatched-1 {
		t.Errorf("%d archives fetched for %d runs with artifacts", calls["GET /_blobs"], dispatched-1)
	}
	t.Logf("%d dispatches, calls %v", dispatched, calls)
}

// runShards is the work of one dispatched run: it unpacks the round from
// the inputs and runs each shard with culprit's shard code on the
// checkout; the second run loses its shard, the third answers for another
// round, the fourth answers garbage.
func runShards(t *testing.T, checkout string, d fakegh.Dispatch, n int) map[string]map[string][]byte {
	zipped, err := base64.StdEncoding.DecodeString(d.Inputs["round"])
	if err != nil {
		t.Errorf("round input: %v", err)
		return nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(zipped))
	if err != nil {
		t.Errorf("round input: %v", err)
		return nil
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		t.Errorf("round input: %v", err)
		return nil
	}
	rd, err := shard.ReadRound(bytes.NewReader(raw))
	if err != nil {
		t.Errorf("round input: %v", err)
		return nil
	}
	for _, q := range rd.Requests {
		if q.Build {
			t.Errorf("round %s dispatches a compile-only check of %v", rd.ID, q.Revert)
		}
	}
	k, err := strconv.Atoi(d.Inputs["shards"])
	if err != nil || d.Inputs["head"] != rd.Head {
		t.Errorf("inputs %v", d.Inputs)
		return nil
	}
	arts := map[string]map[string][]byte{}
	for i := range k {
		name := "culprit-outcomes-" + rd.ID + "-" + strconv.Itoa(i)
		out, err := shard.Run(context.Background(), checkout, rd, i, k)
		if err != nil {
			t.Errorf("shard %d of round %s: %v", i, rd.ID, err)
			continue
		}
		switch n {
		case 2:
			continue // lost
		case 3:
			out.ID = "77-999" // forged: another round's
		}
		data, err := json.Marshal(out)
		if err != nil {
			t.Error(err)
		}
		if n == 4 {
			data = []byte("{\"version\": 1, \"outcomes\": [garbage")
		}
		arts[name] = map[string][]byte{"outcomes.json": data}
	}
	return arts
}

// TestTrialsFallBackWhenDispatchRefused: a token that may not dispatch
// (a fork's), or no trials workflow, leaves the round to the runner, and
// every later one without asking again.
func TestTrialsFallBackWhenDispatchRefused(t *testing.T) {
	gh := fakegh.New(t, "o", "r", "tok")
	gh.ReadOnly = true
	client, err := ghclient.New(nil, gh.APIURL(), "tok", nil)
	if err != nil {
		t.Fatal(err)
	}
	trials := &action.Trials{Client: client, Blobs: &http.Client{}, Owner: "o", Repo: "r", Ref: "main", Head: "abc",
		RunID: 1, Runners: 2, Poll: time.Millisecond, MaxPoll: time.Millisecond}
	round := []trial.Request{{Revert: []diffhunks.ID{1}, Package: "./calc", Test: "TestF", Timeout: time.Minute}}
	for range 2 {
		res, err := trials.Execute(context.Background(), round)
		if err != nil || len(res) != 1 || res[0].Outcome != "" {
			t.Fatalf("Execute = %+v, %v; want the request left unanswered", res, err)
		}
	}
	if n := gh.Calls()["POST /repos/o/r/actions/workflows/culprit-trials.yml/dispatches"]; n != 1 {
		t.Errorf("%d dispatches, want 1", n)
	}
	if got := trials.Fallbacks(); got != 2 {
		t.Errorf("%d fallbacks, want 2", got)
	}
}
