// Package scenario loads regression scenarios: txtar archives holding a base
// tree, a head tree and the expected explanation, and turns them into real
// git repositories for tests, benchmarks and the demo.
//
// An archive's comment is a list of "key: value" lines:
//
//	test:    TestF               the failing test (required)
//	pkg:     ./calc              its package (default: found from the test)
//	status:  explained           the expected Result status
//	root:    calc.go:10 calc.go:19   expected root hunks
//	aux:     calc.go:3           expected auxiliary hunks
//	timeout: 10s                 per-trial timeout
//	mode:    command             trial mode (default go)
//	command: go test ./...       the test command in command mode
//	reruns:  20                  runs of base and head before a flaky test is measured
//	race:    cache.go:16         where the race detector's reports must place a race ("none": no race)
//	trace-bytes: 16MiB           the trace buffer of each traced run (default: the tracer's)
//
// A hunk reference is "file:line" for a hunk whose head lines contain line,
// "file:-line" for a pure deletion at base line line, or "file" for a
// whole-file hunk. Files named "base/…" form the base tree and "head/…" the
// head tree; a file in neither is ignored.
package scenario

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/culprit-dev/culprit/diffhunks"
	"github.com/culprit-dev/culprit/internal/proc"
	"golang.org/x/tools/txtar"
)

// Scenario is one regression scenario.
type Scenario struct {
	Name    string
	Test    string
	Pkg     string
	Status  string
	Root    []string
	Aux     []string
	Timeout time.Duration
	// Reruns is the classification's first runs of head (0: the default).
	// A flaky scenario asks for enough that head's outcomes are mixed in
	// them on any machine.
	Reruns int
	// TraceBytes bounds each traced run's trace (0: the tracer's default).
	// A scenario whose failing run never ends (a hang) fills any buffer;
	// a small one keeps its decoded trace, and the process, small.
	TraceBytes int64
	Mode       string
	Command    string
	// Keys holds every header key, including ones this package does not
	// interpret, for tests that need their own expectations.
	Keys map[string]string
	Base map[string][]byte
	Head map[string][]byte
}

// Load reads a scenario archive from a file.
func Load(path string) (*Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	name := strings.TrimSuffix(filepath.Base(path), ".txtar")
	return Parse(name, data)
}

// Parse reads a scenario archive.
func Parse(name string, data []byte) (*Scenario, error) {
	ar := txtar.Parse(data)
	s := &Scenario{Name: name, Keys: map[string]string{}, Base: map[string][]byte{}, Head: map[string][]byte{}}
	for i, line := range strings.Split(string(ar.Comment), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			return nil, fmt.Errorf("scenario %s: header line %d: want \"key: value\", got %q", name, i+1, line)
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		s.Keys[k] = v
		switch k {
		case "test":
			s.Test = v
		case "pkg":
			s.Pkg = v
		case "status":
			s.Status = v
		case "root":
			s.Root = strings.Fields(v)
		case "aux":
			s.Aux = strings.Fields(v)
		case "mode":
			s.Mode = v
		case "command":
			s.Command = v
		case "reruns":
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return nil, fmt.Errorf("scenario %s: reruns: want a positive number, got %q", name, v)
			}
			s.Reruns = n
		case "trace-bytes":
			n, err := parseBytes(v)
			if err != nil {
				return nil, fmt.Errorf("scenario %s: trace-bytes: %w", name, err)
			}
			s.TraceBytes = n
		case "timeout":
			d, err := time.ParseDuration(v)
			if err != nil {
				return nil, fmt.Errorf("scenario %s: timeout: %w", name, err)
			}
			s.Timeout = d
		}
	}
	for _, f := range ar.Files {
		switch {
		case strings.HasPrefix(f.Name, "base/"):
			s.Base[strings.TrimPrefix(f.Name, "base/")] = f.Data
		case strings.HasPrefix(f.Name, "head/"):
			s.Head[strings.TrimPrefix(f.Name, "head/")] = f.Data
		}
	}
	if s.Test == "" {
		return nil, fmt.Errorf("scenario %s: no \"test:\" in the header", name)
	}
	if len(s.Base) == 0 || len(s.Head) == 0 {
		return nil, fmt.Errorf("scenario %s: needs both base/ and head/ files", name)
	}
	return s, nil
}

// parseBytes reads a size: a positive number of bytes, KiB, MiB or GiB
// ("16MiB").
func parseBytes(v string) (int64, error) {
	num, unit := v, int64(1)
	for suffix, u := range map[string]int64{"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30} {
		if n, ok := strings.CutSuffix(v, suffix); ok {
			num, unit = n, u
		}
	}
	n, err := strconv.ParseInt(strings.TrimSpace(num), 10, 64)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("want a positive size such as 16MiB, got %q", v)
	}
	return n * unit, nil
}

// Repo is a scenario made into a git repository.
type Repo struct {
	Dir  string
	Base string // commit id of the base tree
	Head string // commit id of the head tree, a child of Base
}

// Materialize creates a git repository in dir (which must be empty or
// absent) with the base tree committed first and the head tree on top.
func (s *Scenario) Materialize(dir string) (*Repo, error) {
	// A few local git commands on a small tree: nothing to cancel.
	ctx := context.Background()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	r := &Repo{Dir: dir}
	if _, err := git(ctx, dir, "init", "-q", "-b", "main"); err != nil {
		return nil, err
	}
	var err error
	if r.Base, err = commitTree(ctx, dir, s.Base, "base"); err != nil {
		return nil, err
	}
	if r.Head, err = commitTree(ctx, dir, s.Head, "head"); err != nil {
		return nil, err
	}
	return r, nil
}

func commitTree(ctx context.Context, dir string, files map[string][]byte, msg string) (string, error) {
	if _, err := git(ctx, dir, "rm", "-rq", "--ignore-unmatch", "."); err != nil {
		return "", err
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p := filepath.Join(dir, filepath.FromSlash(n))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", err
		}
		mode := os.FileMode(0o644)
		if strings.HasSuffix(n, ".sh") {
			mode = 0o755
		}
		if err := os.WriteFile(p, files[n], mode); err != nil {
			return "", err
		}
	}
	if _, err := git(ctx, dir, "add", "-A"); err != nil {
		return "", err
	}
	if _, err := git(ctx, dir, "commit", "-q", "--allow-empty", "-m", msg); err != nil {
		return "", err
	}
	out, err := git(ctx, dir, "rev-parse", "HEAD")
	return strings.TrimSpace(string(out)), err
}

// gitEnv is a fixed identity and date, which make commit ids reproducible,
// and no system or global configuration, which keeps the user's out of
// the way.
var gitEnv = []string{
	"GIT_AUTHOR_NAME=culprit", "GIT_AUTHOR_EMAIL=culprit@example.com",
	"GIT_COMMITTER_NAME=culprit", "GIT_COMMITTER_EMAIL=culprit@example.com",
	"GIT_AUTHOR_DATE=2024-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2024-01-01T00:00:00Z",
	"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
}

func git(ctx context.Context, dir string, args ...string) ([]byte, error) {
	return proc.GitEnv(ctx, dir, gitEnv, args...)
}

// Resolve maps hunk references ("file:line", "file:-line", "file") to the
// ids of the hunks they name, sorted. A reference that names no hunk is an
// error, so an expectation can never pass vacuously.
func Resolve(hunks []diffhunks.Hunk, refs []string) ([]diffhunks.ID, error) {
	var ids []diffhunks.ID
	for _, ref := range refs {
		id, err := resolve(hunks, ref)
		if err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids, nil
}

func resolve(hunks []diffhunks.Hunk, ref string) (diffhunks.ID, error) {
	file, lineStr, hasLine := strings.Cut(ref, ":")
	if !hasLine {
		for _, h := range hunks {
			if h.WholeFile() && (h.File == file || h.OldFile == file) {
				return h.ID, nil
			}
		}
		return 0, fmt.Errorf("no whole-file hunk for %q", ref)
	}
	deletion := strings.HasPrefix(lineStr, "-")
	line, err := strconv.Atoi(strings.TrimPrefix(lineStr, "-"))
	if err != nil {
		return 0, fmt.Errorf("hunk reference %q: %w", ref, err)
	}
	for _, h := range hunks {
		switch {
		case deletion && h.OldFile == file && h.Head.Len() == 0 && h.Base.Contains(line):
			return h.ID, nil
		case !deletion && h.File == file && h.Head.Contains(line):
			return h.ID, nil
		}
	}
	return 0, fmt.Errorf("no hunk at %q", ref)
}
