package action

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/go-github/v60/github"

	"github.com/culprit-dev/culprit/analyzer/trial"
	"github.com/culprit-dev/culprit/internal/shard"
)

// TrialsWorkflow is the file name of the trials workflow the executor
// dispatches (.github/workflows/culprit-trials.yml).
const TrialsWorkflow = "culprit-trials.yml"

// maxInlineRound bounds the round handed to the workflow as a dispatch
// input, gzipped and base64-encoded: GitHub takes 65,535 characters for
// all inputs together, and the other inputs are short.
const maxInlineRound = 60_000

// Trials runs rounds of trials on the repository's own runners: each
// round is one dispatch of the trials workflow, whose matrix runs a slice
// of the round per shard, and whose outcomes come back as artifacts. What
// no shard answers well (a lost shard, a forged or garbled answer) is left
// unanswered, and the trial runner runs it in this job instead: a shard
// costs at worst a retry, never a verdict. A round too large to hand over,
// or one past the runner-minute budget, is left to the runner whole, and
// so are compile-only checks.
type Trials struct {
	Client *github.Client
	// Blobs fetches the artifacts' archives from the signed URLs GitHub
	// redirects to; it must not send the token.
	Blobs       *http.Client
	Owner, Repo string
	// Ref is the branch the workflow is dispatched on (the default
	// branch); Head the commit every trial runs on.
	Ref, Head string
	// RunID is this job's run, which names the rounds.
	RunID int64
	// Runners bounds the shards of one round.
	Runners int
	// Budget bounds the runner time the shards may use (0: no bound).
	Budget time.Duration
	// Poll is the first wait between two looks at the run; each wait
	// doubles, up to MaxPoll.
	Poll, MaxPoll time.Duration

	seq       atomic.Int64
	nonceOnce sync.Once
	nonce     string
	off       atomic.Bool // a dispatch failed: the rest runs locally
	mu        sync.Mutex
	used      time.Duration
	// fallbacks counts the rounds and shards left unanswered.
	fallbacks int
}

var _ trial.Executor = (*Trials)(nil)

// Fallbacks is how many rounds and shards were left to the runner.
func (t *Trials) Fallbacks() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.fallbacks
}

// Execute runs the round on at most Runners shards and returns the
// results in the round's order.
func (t *Trials) Execute(ctx context.Context, round []trial.Request) ([]trial.Result, error) {
	// Compile-only checks stay in the job: they take seconds, a dispatch
	// takes a queue's latency.
	var runs []int
	for i, q := range round {
		if !q.Build {
			runs = append(runs, i)
		}
	}
	out := make([]trial.Result, len(round))
	if len(runs) == 0 {
		return out, nil
	}
	sub := make([]trial.Request, len(runs))
	for j, i := range runs {
		sub[j] = round[i]
	}
	res, err := t.dispatched(ctx, sub)
	if err != nil {
		return nil, err
	}
	for j, i := range runs {
		out[i] = res[j]
	}
	return out, nil
}

// dispatched runs a round of test runs through the workflow.
func (t *Trials) dispatched(ctx context.Context, round []trial.Request) ([]trial.Result, error) {
	rd := &shard.Round{Version: shard.Version, ID: t.roundID(), Head: t.Head, Requests: round}
	inline, err := encodeRound(rd)
	if err != nil || len(inline) > maxInlineRound || t.spent() || t.off.Load() {
		t.fellBack()
		return make([]trial.Result, len(round)), nil
	}
	k := min(max(t.Runners, 1), len(round))
	start := time.Now()
	results := make([]trial.Result, len(round))
	answered := make([]bool, k)
	if err := t.dispatch(ctx, rd, inline, k); err != nil {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		// No workflow to dispatch, or a token that may not (a fork's):
		// every trial runs in the job from now on.
		t.off.Store(true)
		t.fellBack()
		return make([]trial.Result, len(round)), nil
	}
	run, err := t.await(ctx, rd.ID)
	if err != nil {
		return nil, err
	}
	t.charge(time.Duration(k) * time.Since(start))
	if err := t.collect(ctx, run, rd, k, results, answered); err != nil {
		return nil, err
	}
	for _, ok := range answered {
		if !ok {
			t.fellBack()
		}
	}
	return results, nil
}

func (t *Trials) fellBack() {
	t.mu.Lock()
	t.fallbacks++
	t.mu.Unlock()
}

// roundID names the next round: this run, a nonce drawn once (a rerun
// of the job has the same run id, and must not take the runs of its
// first attempt for its own), and a sequence number.
func (t *Trials) roundID() string {
	t.nonceOnce.Do(func() {
		b := make([]byte, 4)
		if _, err := rand.Read(b); err != nil {
			// crypto/rand does not fail on the runners' systems.
			panic(err)
		}
		t.nonce = hex.EncodeToString(b)
	})
	return fmt.Sprintf("%d-%s-%d", t.RunID, t.nonce, t.seq.Add(1))
}

func (t *Trials) spent() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.Budget > 0 && t.used >= t.Budget
}

func (t *Trials) charge(d time.Duration) {
	t.mu.Lock()
	t.used += d
	t.mu.Unlock()
}

// encodeRound is the round as the workflow's round input: JSON, gzipped,
// base64.
func encodeRound(rd *shard.Round) (string, error) {
	data, err := json.Marshal(rd)
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := zw.Write(data); err != nil {
		return "", err
	}
	if err := zw.Close(); err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(b.Bytes()), nil
}

// dispatch starts the trials workflow for the round, cut into k shards.
func (t *Trials) dispatch(ctx context.Context, rd *shard.Round, inline string, k int) error {
	list := make([]int, k)
	for i := range list {
		list[i] = i
	}
	shards, err := json.Marshal(list)
	if err != nil {
		return err
	}
	_, err = t.Client.Actions.CreateWorkflowDispatchEventByFileName(ctx, t.Owner, t.Repo, TrialsWorkflow, github.CreateWorkflowDispatchEventRequest{
		Ref: t.Ref,
		Inputs: map[string]any{
			"round-id": rd.ID, "round-run-id": strconv.FormatInt(t.RunID, 10), "head": rd.Head,
			"shards": strconv.Itoa(k), "shard-list": string(shards), "round": inline,
		},
	})
	if err != nil {
		return fmt.Errorf("dispatching %s for round %s: %w", TrialsWorkflow, rd.ID, err)
	}
	return nil
}

// await finds the run of the round by its name and waits, with back-off,
// until it completes or ctx ends.
func (t *Trials) await(ctx context.Context, id string) (*github.WorkflowRun, error) {
	title := "culprit trials " + id
	wait := t.Poll
	var run *github.WorkflowRun
	for {
		if run == nil {
			runs, _, err := t.Client.Actions.ListWorkflowRunsByFileName(ctx, t.Owner, t.Repo, TrialsWorkflow,
				&github.ListWorkflowRunsOptions{Event: "workflow_dispatch", Branch: t.Ref})
			if err != nil {
				return nil, fmt.Errorf("looking for the run of round %s: %w", id, err)
			}
			for _, r := range runs.WorkflowRuns {
				if r.GetDisplayTitle() == title {
					run = r
					break
				}
			}
		} else {
			r, _, err := t.Client.Actions.GetWorkflowRunByID(ctx, t.Owner, t.Repo, run.GetID())
			if err != nil {
				return nil, fmt.Errorf("following run %d of round %s: %w", run.GetID(), id, err)
			}
			run = r
		}
		if run != nil && run.GetStatus() == "completed" {
			return run, nil
		}
		select {
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		case <-time.After(wait):
		}
		wait = min(2*wait, t.MaxPoll)
	}
}

// collect fetches each shard's outcomes from the run's artifacts and
// fills results for the shards whose answer passes the checks.
func (t *Trials) collect(ctx context.Context, run *github.WorkflowRun, rd *shard.Round, k int, results []trial.Result, answered []bool) error {
	arts, _, err := t.Client.Actions.ListWorkflowRunArtifacts(ctx, t.Owner, t.Repo, run.GetID(), &github.ListOptions{PerPage: 100})
	if err != nil {
		return fmt.Errorf("listing the outcomes of round %s: %w", rd.ID, err)
	}
	byName := map[string][]*github.Artifact{}
	for _, a := range arts.Artifacts {
		byName[a.GetName()] = append(byName[a.GetName()], a)
	}
	for i := range k {
		found := byName[fmt.Sprintf("culprit-outcomes-%s-%d", rd.ID, i)]
		if len(found) != 1 || found[0].GetExpired() || found[0].GetSizeInBytes() > shard.MaxOutcomesBytes {
			continue // lost, twice, or too large: run it here
		}
		res, err := t.outcomes(ctx, found[0], rd, i, k)
		if err != nil {
			if ctx.Err() != nil {
				return context.Cause(ctx)
			}
			continue // garbled or forged: run it here
		}
		lo, _ := shard.Slice(len(rd.Requests), i, k)
		copy(results[lo:], res)
		answered[i] = true
	}
	return nil
}

// outcomes downloads one shard's artifact and reads its outcomes.
func (t *Trials) outcomes(ctx context.Context, a *github.Artifact, rd *shard.Round, i, k int) ([]trial.Result, error) {
	u, _, err := t.Client.Actions.DownloadArtifact(ctx, t.Owner, t.Repo, a.GetID(), 3)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	resp, err := t.Blobs.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("artifact %d: %s", a.GetID(), resp.Status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, shard.MaxOutcomesBytes+1))
	if err != nil || len(data) > shard.MaxOutcomesBytes {
		return nil, errors.Join(err, errors.New("artifact too large"))
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, err
	}
	if len(zr.File) != 1 || zr.File[0].Name != "outcomes.json" {
		return nil, fmt.Errorf("artifact %d: want outcomes.json alone", a.GetID())
	}
	f, err := zr.File[0].Open()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return shard.ReadOutcomes(f, rd, i, k)
}
