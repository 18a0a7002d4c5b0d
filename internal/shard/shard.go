// Package shard is the wire between an analysis and the runners of the
// trials workflow: a round of trial requests as the analyze job hands it
// over, the outcomes one shard answers, and the checks each side makes of
// what it reads. A round is trusted no more than it must be (its paths stay
// inside the repository); outcomes come from jobs that ran pull-request
// code and are checked against the round they answer.
package shard

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/culprit-dev/culprit/analyzer/trial"
	"github.com/culprit-dev/culprit/diffhunks"
	"github.com/culprit-dev/culprit/internal/proc"
)

// Version is the version of the round and outcomes formats.
const Version = 1

// Limits of what either side reads: a round of variants of a pull
// request's files, or the outcomes of a slice of one, is far smaller.
const (
	MaxRoundBytes    = 64 << 20
	MaxOutcomesBytes = 16 << 20
	maxTimeout       = time.Hour
)

// Round is one round of trials: the commit they run on and the requests.
type Round struct {
	Version int `json:"version"`
	// ID names the round, so that outcomes are never taken for those of
	// another round.
	ID       string          `json:"id"`
	Head     string          `json:"head"`
	Requests []trial.Request `json:"requests"`
}

// Outcomes is what one shard answers: the round's id, which slice of the
// round it ran, and one outcome per request of its slice, in order.
type Outcomes struct {
	Version  int       `json:"version"`
	ID       string    `json:"id"`
	Shard    int       `json:"shard"`
	Shards   int       `json:"shards"`
	Outcomes []Outcome `json:"outcomes"`
}

// Outcome is the result of one request, named by its reverted hunks.
type Outcome struct {
	Revert []diffhunks.ID `json:"revert"`
	Result trial.Result   `json:"result"`
}

// Slice is the slice [lo, hi) of n requests that shard i of k runs:
// consecutive, the first ones one longer when k does not divide n.
func Slice(n, i, k int) (lo, hi int) {
	size, extra := n/k, n%k
	lo = i*size + min(i, extra)
	hi = lo + size
	if i < extra {
		hi++
	}
	return lo, hi
}

// ReadRound reads and checks a round: its version, its size, and that
// every request is for one test and names only paths inside the
// repository.
func ReadRound(r io.Reader) (*Round, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxRoundBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading the round: %w", err)
	}
	if len(data) > MaxRoundBytes {
		return nil, fmt.Errorf("the round is over %d bytes", MaxRoundBytes)
	}
	var rd Round
	if err := json.Unmarshal(data, &rd); err != nil {
		return nil, fmt.Errorf("reading the round: %w", err)
	}
	if rd.Version != Version {
		return nil, fmt.Errorf("round version %d, want %d", rd.Version, Version)
	}
	if rd.ID == "" || rd.Head == "" {
		return nil, errors.New("the round has no id or no head")
	}
	for i, q := range rd.Requests {
		if err := checkRequest(q, rd.Requests[0]); err != nil {
			return nil, fmt.Errorf("request %d: %w", i, err)
		}
	}
	return &rd, nil
}

// checkRequest checks that q runs the same test as first, within bounds,
// and writes nothing outside the repository.
func checkRequest(q, first trial.Request) error {
	if q.Package == "" || q.Test == "" || q.Package != first.Package || q.Test != first.Test || q.Dir != first.Dir {
		return errors.New("every request must name the same package, test and directory")
	}
	if q.Timeout != first.Timeout || q.Timeout <= 0 || q.Timeout > maxTimeout {
		return fmt.Errorf("timeout %v: want the first request's, in (0, %v]", q.Timeout, maxTimeout)
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

// Run runs slice i of k of the round on worktrees of the checkout in repo,
// which must be at the round's head, one request at a time, as the
// analysis runs its own trials (trial.Runner.Execute).
func Run(ctx context.Context, repo string, rd *Round, i, k int) (*Outcomes, error) {
	if k < 1 || i < 0 || i >= k {
		return nil, fmt.Errorf("shard %d of %d", i, k)
	}
	out := &Outcomes{Version: Version, ID: rd.ID, Shard: i, Shards: k, Outcomes: []Outcome{}}
	lo, hi := Slice(len(rd.Requests), i, k)
	if lo == hi {
		return out, nil
	}
	got, err := proc.Git(ctx, repo, "rev-parse", "HEAD")
	if err != nil {
		return nil, err
	}
	if h := strings.TrimSpace(string(got)); h != rd.Head {
		return nil, fmt.Errorf("the checkout is at %s, the round is for %s", h, rd.Head)
	}
	q0 := rd.Requests[lo]
	r, err := trial.New(ctx, trial.Config{Dir: filepath.Join(repo, filepath.FromSlash(q0.Dir)), Head: rd.Head,
		Variants: requestsOnly{}, Pkg: q0.Package, Test: q0.Test, Timeout: q0.Timeout, Workers: 1})
	if err != nil {
		return nil, err
	}
	defer r.Close()
	for _, q := range rd.Requests[lo:hi] {
		res, err := r.Execute(ctx, []trial.Request{q})
		if err != nil {
			return nil, fmt.Errorf("trial of %v: %w", q.Revert, err)
		}
		res[0].Reverted = q.Revert
		out.Outcomes = append(out.Outcomes, Outcome{Revert: q.Revert, Result: res[0]})
	}
	return out, nil
}

// requestsOnly is the Variants of a shard's runner: every variant it runs
// comes whole in its request.
type requestsOnly struct{}

func (requestsOnly) Variant([]diffhunks.ID) (map[string][]byte, []string, error) {
	return nil, nil, errors.New("a shard builds variants only from its round's requests")
}
