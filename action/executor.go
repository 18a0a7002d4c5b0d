package action

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/culprit-dev/culprit/analyzer/trial"
	"github.com/culprit-dev/culprit/internal/ghclient"
	"github.com/culprit-dev/culprit/internal/proc"
)

// executor is where the analyses' trials run: nil for this job's own
// worktrees, or the trials workflow when the executor input says actions.
func (ru *run) executor(ctx context.Context, t *Target) (trial.Executor, error) {
	if ru.cfg.Executor != "actions" {
		return nil, nil
	}
	gh, err := ghclient.New(ru.HTTPClient, ru.gc.APIURL, ru.cfg.Token, ru.Sleep)
	if err != nil {
		return nil, err
	}
	repo, _ := ru.gc.Event["repository"].(map[string]any)
	ref, _ := repo["default_branch"].(string)
	if ref == "" {
		return nil, errors.New("executor actions: the event names no default branch to dispatch the trials workflow on")
	}
	// The shards check out the commit itself: a branch may move.
	out, err := proc.Git(ctx, ru.cfg.Dir, "rev-parse", "--verify", t.Head+"^{commit}")
	if err != nil {
		return nil, err
	}
	owner, name := ru.gc.Repo()
	infof(ru.a, "culprit: trials run on up to %d runners a round through %s", ru.cfg.MaxRunners, TrialsWorkflow)
	return &Trials{
		Client: gh, Blobs: &http.Client{Timeout: 5 * time.Minute}, Owner: owner, Repo: name,
		Ref: ref, Head: strings.TrimSpace(string(out)), RunID: ru.gc.RunID,
		Runners: ru.cfg.MaxRunners, Budget: time.Duration(ru.cfg.RunnerMinutes) * time.Minute,
		Poll: 10 * time.Second, MaxPoll: time.Minute,
	}, nil
}
