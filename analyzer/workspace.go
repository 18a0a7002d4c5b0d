package analyzer

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/culprit-dev/culprit/internal/proc"
)

// checkWorkspace refuses a module that builds in a Go workspace (go.work)
// the trials cannot reproduce. Each trial checks out the repository alone,
// in a directory of its own: a go.work inside the repository comes with
// it, and its relative `use` lines name that checkout's modules. A go.work
// above the repository is not there, so the module builds alone ("missing
// go.sum entry"); one named by GOWORK is found by its path, so a trial
// would build the user's checkout instead of its variant. Refusing says so
// once, instead of failing every trial alike.
func checkWorkspace(ctx context.Context, repo string, mod module) error {
	if v := os.Getenv("GOWORK"); v != "" && v != "off" {
		return fmt.Errorf("GOWORK names the Go workspace %s by its path, which every trial would build instead of its own checkout: unset GOWORK (a go.work inside the repository is found from the module) or set GOWORK=off", v)
	}
	dir := filepath.Join(repo, filepath.FromSlash(mod.dir))
	res, err := proc.GoInvocation{Verb: "env", Args: []string{"GOWORK"}, Dir: dir, Timeout: time.Minute}.Run(ctx)
	if err != nil || res.ExitCode != 0 {
		return nil // the go command says what is wrong when the trials run it
	}
	work := strings.TrimSpace(string(res.Stdout))
	if work == "" || work == "off" {
		return nil
	}
	if top, err := filepath.Abs(repo); err == nil {
		if rel, err := filepath.Rel(top, work); err == nil && !strings.HasPrefix(rel, "..") {
			return nil // the repository's own go.work
		}
	}
	return fmt.Errorf("the module %s builds in the Go workspace %s, outside the repository, which no trial's checkout of the repository has: run culprit with GOWORK=off if the module builds on its own, or keep the go.work inside the repository", mod.dir, work)
}
