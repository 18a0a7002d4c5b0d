package trial

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/culprit-dev/culprit/diffhunks"
	"github.com/culprit-dev/culprit/internal/proc"
)

// Variants builds variants of the head tree; *diffhunks.Set implements it.
// files maps slash paths relative to the repository root to their content in
// the variant, for every path that differs from head; deleted lists the head
// paths the variant lacks.
type Variants interface {
	Variant(revert []diffhunks.ID) (files map[string][]byte, deleted []string, err error)
}

// modeVariants is the optional ability to say which paths change mode.
type modeVariants interface {
	VariantModes(revert []diffhunks.ID) (map[string]fs.FileMode, error)
}

var _ Variants = (*diffhunks.Set)(nil)
var _ modeVariants = (*diffhunks.Set)(nil)

// Mode selects how trials build and run the test.
type Mode string

const (
	ModeGo      Mode = "go"      // go test with an overlay, or in a worktree
	ModeCommand Mode = "command" // the user's shell commands in a worktree; exit status decides
)

// DefaultTimeout bounds a trial when Config.Timeout is zero.
const DefaultTimeout = 2 * time.Minute

// Config says what to run and where.
type Config struct {
	// Dir is the repository (or the module directory inside it); Pkg and
	// the commands are relative to it.
	Dir string
	// Head is the revision whose variants are tried.
	Head     string
	Variants Variants
	Mode     Mode // ModeGo (default) or ModeCommand
	// Pkg ("./calc") and Test ("TestF" or "TestF/sub") name the test in Go
	// mode.
	Pkg, Test string
	// BuildCommand (optional) and TestCommand are run by bash in command
	// mode; a non-zero exit is a build error or a failure.
	BuildCommand, TestCommand string
	Timeout                   time.Duration
	// MaxMemory bounds a test run's resident memory, in bytes: its
	// processes are stopped past it and the run is a Crash (default
	// proc.TestMemory, a third of the machine's).
	MaxMemory int64
	// Workers bounds the trials running at once (default: half the CPUs).
	Workers int
	// Env is added to the inherited environment, from which the runner's
	// secrets are removed (internal/proc).
	Env []string
	// Passthrough names the variables beyond the allow-list that the
	// builds and tests get (proc.Env).
	Passthrough []string
	// Executor runs the trials the in-process type checker cannot answer;
	// nil means this runner's own worktrees (Runner.Execute). Repeats of
	// one variant (Repeat, RepeatRace) always run locally. Workers bounds
	// only the trials that run here: the executor bounds its own.
	Executor Executor
}

// Counts are the work a Runner has done.
type Counts struct {
	Trials int // test runs actually executed
	Builds int // compile-only checks actually executed
	// TypeChecks are the requests answered "does not compile" by
	// type-checking the variant in process, without the go command;
	// TypeAccepted the compile-only checks answered "compiles" that way.
	TypeChecks   int
	TypeAccepted int
	CacheHits    int // requests answered from the cache
	// OverMemory counts the test runs stopped for passing their memory
	// bound (Result.OverMemory).
	OverMemory int
}

// Runner runs trials against detached git worktrees of Head; it never
// touches the user's working tree. It is safe for concurrent use.
type Runner struct {
	cfg    Config
	repo   string   // top level of the user's repository
	prefix string   // cfg.Dir relative to repo, slash-separated ("" for the top)
	pkgDir string   // the package directory relative to repo, slash-separated
	head   string   // commit id
	tmp    string   // owns every worktree and overlay of this runner
	owner  *os.File // holds the lock that tells other runners tmp is in use (stale.go)
	wtHead string   // the head worktree, never modified

	sem chan struct{} // one token per running trial

	poolMu sync.Mutex
	pool   []string // idle worktrees for in-place variants
	nwt    int      // worktrees created

	closeOnce sync.Once
	closeErr  error

	mu    sync.Mutex
	cache map[string]*call
	bins  map[string]*binary // test binaries by variant, and test2json
	// kept holds the checkouts of variants -overlay cannot express, by
	// binKey, with their test binaries (kept.go).
	kept map[string]*keptCheckout
	// broken holds the keys of bins whose build failed to compile.
	broken map[string]bool
	// runLimit bounds one run of a prebuilt test binary (SetRunTimeout).
	runLimit time.Duration
	amp      Amplification // SetAmplification
	// alone measures the runs made alone under each amplification
	// (share.go).
	alone   map[Amplification]*alone
	instr   Instrumenter // SetInstrumenter
	counts  Counts
	checker typeChecker
	seq     int
}

// New checks out Head in a fresh detached worktree and returns a Runner.
// Close removes the worktrees.
func New(ctx context.Context, cfg Config) (*Runner, error) {
	if cfg.Mode == "" {
		cfg.Mode = ModeGo
	}
	switch cfg.Mode {
	case ModeGo:
		if cfg.Pkg == "" || cfg.Test == "" {
			return nil, errors.New("trial: go mode needs a package and a test")
		}
	case ModeCommand:
		if cfg.TestCommand == "" {
			return nil, errors.New("trial: command mode needs a test command")
		}
	default:
		return nil, fmt.Errorf("trial: unknown mode %q", cfg.Mode)
	}
	if cfg.Variants == nil {
		return nil, errors.New("trial: no variants")
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Workers <= 0 {
		cfg.Workers = max(1, runtime.NumCPU()/2)
	}
	dir, err := filepath.Abs(cfg.Dir)
	if err != nil {
		return nil, fmt.Errorf("trial: %w", err)
	}
	cfg.Dir = dir
	r := &Runner{cfg: cfg, sem: make(chan struct{}, cfg.Workers), cache: map[string]*call{}}
	out, err := proc.Git(ctx, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, err
	}
	r.repo = strings.TrimSpace(string(out))
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	if rel, err := filepath.Rel(r.repo, dir); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
		r.prefix = filepath.ToSlash(rel)
	}
	r.pkgDir = pathJoin(r.prefix, strings.TrimPrefix(filepath.ToSlash(cfg.Pkg), "./"))
	if out, err = proc.Git(ctx, dir, "rev-parse", "--verify", cfg.Head+"^{commit}"); err != nil {
		return nil, err
	}
	r.head = strings.TrimSpace(string(out))
	if r.tmp, err = os.MkdirTemp("", tmpPattern); err != nil {
		return nil, fmt.Errorf("trial: %w", err)
	}
	if r.owner, err = lockOwner(r.tmp); err != nil {
		_ = os.RemoveAll(r.tmp)
		return nil, err
	}
	// Leftovers of runs that were killed are someone else's mess: failing
	// to remove them must not stop this analysis, and the next run tries
	// again.
	worktreeMu.Lock()
	_ = r.removeStale(ctx)
	_, _ = proc.Git(ctx, r.repo, "worktree", "prune")
	worktreeMu.Unlock()
	// The go command's work directories (go-build*) live under tmp too: a
	// build killed on timeout or interrupt cannot remove its own, Close
	// removes them with the rest.
	gotmp := filepath.Join(r.tmp, "gotmp")
	if err := os.Mkdir(gotmp, 0o700); err != nil {
		_ = os.RemoveAll(r.tmp)
		r.owner.Close()
		return nil, fmt.Errorf("trial: %w", err)
	}
	r.cfg.Env = append(slices.Clip(r.cfg.Env), "GOTMPDIR="+gotmp)
	if r.wtHead, err = r.addWorktree(ctx); err != nil {
		_ = os.RemoveAll(r.tmp)
		r.owner.Close()
		return nil, err
	}
	return r, nil
}

// HeadDir is the directory of Config.Dir inside the head worktree, for
// analyses that need the head tree on disk. It must not be modified.
func (r *Runner) HeadDir() string { return filepath.Join(r.wtHead, filepath.FromSlash(r.prefix)) }

// Counts returns the counts so far.
func (r *Runner) Counts() Counts {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.counts
}

// Close removes the runner's worktrees and temporary files. Calls after the
// first return its result.
func (r *Runner) Close() error {
	r.closeOnce.Do(func() { r.closeErr = r.close() })
	return r.closeErr
}

// worktreeMu serialises the git worktree commands of every runner in the
// process: git reads the metadata of all of a repository's worktrees while
// it adds or removes one, and fails on one being written ("failed to read
// .git/worktrees/wt3/commondir"), as when base's and head's runners start
// together.
var worktreeMu sync.Mutex

func (r *Runner) close() error {
	ctx := context.Background()
	worktreeMu.Lock()
	defer worktreeMu.Unlock()
	var errs []error
	r.poolMu.Lock()
	wts := append([]string{r.wtHead}, r.pool...)
	r.pool = nil
	r.poolMu.Unlock()
	r.mu.Lock()
	for _, k := range r.kept {
		if k.wt != "" {
			wts = append(wts, k.wt)
		}
	}
	r.kept = nil
	r.mu.Unlock()
	for _, wt := range wts {
		if _, err := proc.Git(ctx, r.repo, "worktree", "remove", "--force", wt); err != nil {
			errs = append(errs, err)
		}
	}
	if err := os.RemoveAll(r.tmp); err != nil {
		errs = append(errs, fmt.Errorf("trial: removing %s: %w", r.tmp, err))
	}
	if _, err := proc.Git(ctx, r.repo, "worktree", "prune"); err != nil {
		errs = append(errs, err)
	}
	// Released last: until the worktrees are gone, another runner must
	// not take them for a dead run's.
	r.owner.Close()
	return errors.Join(errs...)
}

// addWorktree checks out head in a new detached worktree under tmp.
func (r *Runner) addWorktree(ctx context.Context) (string, error) {
	worktreeMu.Lock()
	defer worktreeMu.Unlock()
	r.poolMu.Lock()
	r.nwt++
	wt := filepath.Join(r.tmp, fmt.Sprintf("wt%d", r.nwt))
	r.poolMu.Unlock()
	// The user's hooks (post-checkout) have no business running on our
	// private checkouts.
	if _, err := proc.Git(ctx, r.repo, "-c", "core.hooksPath=/dev/null", "worktree", "add", "--quiet", "--detach", wt, r.head); err != nil {
		return "", err
	}
	return wt, nil
}

// takeWorktree returns an idle worktree with head checked out, creating one
// if all are busy. At most Workers trials run at once, so the pool never
// grows beyond that.
func (r *Runner) takeWorktree(ctx context.Context) (string, error) {
	r.poolMu.Lock()
	if n := len(r.pool); n > 0 {
		wt := r.pool[n-1]
		r.pool = r.pool[:n-1]
		r.poolMu.Unlock()
		return wt, nil
	}
	r.poolMu.Unlock()
	return r.addWorktree(ctx)
}

// putWorktree restores wt to head and makes it idle again. A worktree that
// cannot be restored is dropped (Close still removes it with tmp).
func (r *Runner) putWorktree(ctx context.Context, wt string) error {
	if _, err := proc.Git(ctx, wt, "checkout", "--quiet", "--force", r.head, "--", "."); err != nil {
		return err
	}
	if _, err := proc.Git(ctx, wt, "clean", "-fdq"); err != nil {
		return err
	}
	r.poolMu.Lock()
	r.pool = append(r.pool, wt)
	r.poolMu.Unlock()
	return nil
}

// env is the environment of the user's commands and of the test binaries,
// which may run go themselves: the go command's (goCommand).
func (r *Runner) env(modFiles bool) []string {
	return proc.GoEnv(r.cfg.Passthrough, r.cfg.Env, modFlag(modFiles))
}

// linkFlags is the -ldflags of a trial's test binary: proc.LinkFlags with
// the user's GOFLAGS (whose -mod, the only part env varies, plays no part).
func (r *Runner) linkFlags() string { return proc.LinkFlags(proc.GoFlags(r.env(false))) }

// modFlag is the -mod of a variant's build: one with go.mod or go.sum
// reverted may need them updated on the fly; the worktree is ours to
// change.
func modFlag(modFiles bool) string {
	if modFiles {
		return "mod"
	}
	return ""
}

func pathJoin(a, b string) string {
	switch {
	case a == "":
		if b == "" {
			return "."
		}
		return b
	case b == "" || b == ".":
		return a
	}
	return a + "/" + b
}
