package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/culprit-dev/culprit/analyzer/trial"
	"github.com/culprit-dev/culprit/diffhunks"
	"github.com/culprit-dev/culprit/internal/proc"
)

// shardVersion is the version of the round and outcomes files.
const shardVersion = 1

// maxRoundBytes bounds a round file: a round of variants of a pull
// request's files is far smaller, and the shard reads all of it.
const maxRoundBytes = 64 << 20

// maxShardTimeout bounds the timeout a round may ask of one trial.
const maxShardTimeout = time.Hour

// roundFile is one round of trials as the analyze job hands it to the
// shards of the trials workflow: the commit they run on and the requests.
type roundFile struct {
	Version int `json:"version"`
	// ID names the round, so that outcomes are never taken for those of
	// another round.
	ID       string          `json:"id"`
	Head     string          `json:"head"`
	Requests []trial.Request `json:"requests"`
}

// outcomesFile is what one shard answers: the round's id, which slice of
// the round it ran, and one outcome per request of its slice, in order.
type outcomesFile struct {
	Version  int       `json:"version"`
	ID       string    `json:"id"`
	Shard    int       `json:"shard"`
	Shards   int       `json:"shards"`
	Outcomes []outcome `json:"outcomes"`
}

// outcome is the result of one request, named by its reverted hunks.
type outcome struct {
	Revert []diffhunks.ID `json:"revert"`
	Result trial.Result   `json:"result"`
}

// shardCmd runs one shard's slice of a round on the checkout it is in:
// each request's variant is applied to a worktree of head in turn, the
// test run, and the outcomes written.
func shardCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("shard", flag.ContinueOnError)
	roundPath := fs.String("round", "", "the round file (JSON) to run a slice of")
	out := fs.String("out", "", "where to write the outcomes (JSON)")
	repo := fs.String("repo", ".", "the checkout of the round's head commit")
	shard := fs.Int("shard", 0, "which slice of the round to run, from 0")
	shards := fs.Int("shards", 1, "how many slices the round is cut into")
	if err := parseFlags(fs, "shard --round FILE --out FILE [--shard I --shards N] [--repo DIR]\n\nRuns one slice of a round of trials, as a shard of the trials workflow does.", args, stdout, stderr); err != nil {
		return err
	}
	if *roundPath == "" || *out == "" || *shards < 1 || *shard < 0 || *shard >= *shards {
		fmt.Fprintln(stderr, "culprit shard: --round and --out are required, and 0 <= --shard < --shards")
		return errUsage
	}
	round, err := readRound(*roundPath)
	if err != nil {
		return err
	}
	lo, hi := sliceOf(len(round.Requests), *shard, *shards)
	res := outcomesFile{Version: shardVersion, ID: round.ID, Shard: *shard, Shards: *shards, Outcomes: []outcome{}}
	if lo < hi {
		if res.Outcomes, err = runSlice(ctx, *repo, round, round.Requests[lo:hi]); err != nil {
			return err
		}
	}
	data, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(*out, append(data, '\n'), 0o644)
}

// sliceOf is the slice [lo, hi) of n requests that shard i of k runs:
// consecutive, the first ones one longer when k does not divide n.
func sliceOf(n, i, k int) (lo, hi int) {
	size, extra := n/k, n%k
	lo = i*size + min(i, extra)
	hi = lo + size
	if i < extra {
		hi++
	}
	return lo, hi
}

// readRound reads and checks a round file: its version, its size, and
// that every request is for one test and names only paths inside the
// repository.
func readRound(name string) (*roundFile, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxRoundBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading round %s: %w", name, err)
	}
	if len(data) > maxRoundBytes {
		return nil, fmt.Errorf("round %s is over %d bytes", name, maxRoundBytes)
	}
	var r roundFile
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("reading round %s: %w", name, err)
	}
	if r.Version != shardVersion {
		return nil, fmt.Errorf("round %s: version %d, want %d", name, r.Version, shardVersion)
	}
	if r.ID == "" || r.Head == "" {
		return nil, fmt.Errorf("round %s: id and head are required", name)
	}
	for i, q := range r.Requests {
		if err := checkRequest(q, r.Requests[0]); err != nil {
			return nil, fmt.Errorf("round %s, request %d: %w", name, i, err)
		}
	}
	return &r, nil
}

// checkRequest checks that q runs the same test as first, within bounds,
// and writes nothing outside the repository.
func checkRequest(q, first trial.Request) error {
	if q.Package == "" || q.Test == "" || q.Package != first.Package || q.Test != first.Test || q.Dir != first.Dir {
		return errors.New("every request must name the same package, test and directory")
	}
	if q.Timeout != first.Timeout || q.Timeout <= 0 || q.Timeout > maxShardTimeout {
		return fmt.Errorf("timeout %v: want the first request's, in (0, %v]", q.Timeout, maxShardTimeout)
	}
	paths := append([]string{q.Dir}, q.Deleted...)
	for p := range q.Files {
		paths = append(paths, p)
	}
	for p := range q.Modes {
		paths = append(paths, p)
	}
	for _, p := range paths {
		if p != "" && (!filepath.IsLocal(p) || path.Clean(p) != p || strings.Contains(p, "\\") || p == ".git" || strings.HasPrefix(p, ".git/")) {
			return fmt.Errorf("path %q is not a plain path inside the repository", p)
		}
	}
	return nil
}

// runSlice runs the requests on worktrees of the checkout in repo, which
// must be at the round's head, one at a time.
func runSlice(ctx context.Context, repo string, round *roundFile, reqs []trial.Request) ([]outcome, error) {
	out, err := proc.Git(ctx, repo, "rev-parse", "HEAD")
	if err != nil {
		return nil, err
	}
	if got := strings.TrimSpace(string(out)); got != round.Head {
		return nil, fmt.Errorf("the checkout is at %s, the round is for %s", got, round.Head)
	}
	q0 := reqs[0]
	r, err := trial.New(ctx, trial.Config{Dir: filepath.Join(repo, filepath.FromSlash(q0.Dir)), Head: round.Head,
		Variants: requestsOnly{}, Pkg: q0.Package, Test: q0.Test, Timeout: q0.Timeout, Workers: 1})
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var outs []outcome
	for _, q := range reqs {
		res, err := r.Execute(ctx, []trial.Request{q})
		if err != nil {
			return nil, fmt.Errorf("trial of %v: %w", q.Revert, err)
		}
		res[0].Reverted = q.Revert
		outs = append(outs, outcome{Revert: q.Revert, Result: res[0]})
	}
	return outs, nil
}

// requestsOnly is the Variants of a shard's runner: every variant it runs
// comes whole in its request.
type requestsOnly struct{}

func (requestsOnly) Variant([]diffhunks.ID) (map[string][]byte, []string, error) {
	return nil, nil, errors.New("a shard builds variants only from its round's requests")
}
