package instrument

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"go/version"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/culprit-dev/culprit/analyzer/gotest"
	"github.com/culprit-dev/culprit/internal/proc"

	"github.com/culprit-dev/culprit/analyzer/trace"
)

// Binary is a traced test binary built once, to be run many times.
type Binary struct {
	cfg   Config
	tmp   string // build directory: overlay, rewritten files, the binary
	bin   string
	table []byte // the site table as written next to each run's events
	sites []trace.Site
	skip  []trace.Skip
	// static is where the binary holds its static data (trace.Trace.Static).
	static []trace.Span
}

// Build instruments cfg.Pkg and its in-module dependencies, as Run does, and
// compiles the traced test binary once. cfg.TraceDir is not used: every run
// has its own trace directory.
func Build(ctx context.Context, cfg Config) (*Binary, error) {
	if cfg.Timeout <= 0 {
		cfg.Timeout = 2 * time.Minute
	}
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = defaultMaxBytes
	}
	tmp, err := os.MkdirTemp("", "culprit-trace-build-")
	if err != nil {
		return nil, fmt.Errorf("tracing %s: %w", cfg.Test, err)
	}
	b, err := buildIn(ctx, cfg, tmp)
	if err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	return b, nil
}

func buildIn(ctx context.Context, cfg Config, tmp string) (*Binary, error) {
	in, err := instrument(ctx, cfg.Dir, cfg.Pkg, tmp, goEnv{cfg.Passthrough, cfg.Env}, cfg.Packages, topLevelRuns(cfg.pattern()), cfg.prober(ctx))
	if err != nil {
		return nil, err
	}
	bin := filepath.Join(tmp, "test.bin")
	if err := build(ctx, cfg, in, tmp, bin); err != nil {
		return nil, err
	}
	js, err := json.Marshal(in.tab)
	if err != nil {
		return nil, fmt.Errorf("encoding site table: %w", err)
	}
	// The sites are those every run's trace.Read decodes from the same table.
	var tab trace.Table
	if err := json.Unmarshal(js, &tab); err != nil {
		return nil, fmt.Errorf("decoding site table: %w", err)
	}
	return &Binary{cfg: cfg, tmp: tmp, bin: bin, table: js, sites: tab.SiteList(), skip: tab.Skipped, static: staticSpans(bin)}, nil
}

// RunOptions are the settings of one run of a Binary.
type RunOptions struct {
	// Intervene is the intervention spec passed as CULPRIT_INTERVENE (see
	// the package documentation), "" for none.
	Intervene string
	// Timeout is the run's -test.timeout; 0 means the Config's.
	Timeout time.Duration
}

// Sites is the build's site table, indexed by SiteID: the same for every
// run of the binary.
func (b *Binary) Sites() []trace.Site { return slices.Clone(b.sites) }

// Skipped lists what the build left untraced.
func (b *Binary) Skipped() []trace.Skip { return slices.Clone(b.skip) }

// Run runs the test once in a fresh trace directory, decodes the trace and
// removes the directory. A failing test is not an error: see trace.Trace.Result.
// Runs may go on concurrently, each in its own directory.
func (b *Binary) Run(ctx context.Context, opt RunOptions) (*trace.Trace, error) {
	dir, err := os.MkdirTemp("", "culprit-trace-")
	if err != nil {
		return nil, fmt.Errorf("tracing %s: %w", b.cfg.Test, err)
	}
	defer os.RemoveAll(dir)
	return b.runIn(ctx, dir, opt)
}

// Exec runs the test once as a perturbed trial runs it: no trace is
// recorded, and env is added to the environment (the perturbation as
// CULPRIT_INTERVENE=…, GOMAXPROCS=…). It reports whether the test passed,
// and the run's output.
func (b *Binary) Exec(ctx context.Context, env ...string) (passed bool, output string, err error) {
	pr, out, err := runTest(ctx, b.cfg, b.bin, env...)
	if err != nil {
		return false, out, fmt.Errorf("running traced test: %w", err)
	}
	return passedRun(pr, out, b.cfg.Test), out, nil
}

// passedRun reports whether a run of the test binary passed the test: it
// exited cleanly in time and reported the test's own PASS line.
func passedRun(pr proc.Result, out, test string) bool {
	return pr.ExitCode == 0 && !pr.TimedOut && strings.Contains(out, "--- PASS: "+gotest.TestName(test))
}

// runIn runs the test once with the trace directory dir and decodes it.
func (b *Binary) runIn(ctx context.Context, dir string, opt RunOptions) (*trace.Trace, error) {
	if err := os.WriteFile(filepath.Join(dir, trace.TableFile), b.table, 0o644); err != nil {
		return nil, fmt.Errorf("writing site table: %w", err)
	}
	cfg := b.cfg
	if opt.Timeout > 0 {
		cfg.Timeout = opt.Timeout
	}
	res, err := runBinary(ctx, cfg, b.bin, dir, b.spec(opt.Intervene), b.testSite())
	if err != nil {
		return nil, err
	}
	t, err := trace.Read(dir)
	if err != nil {
		return nil, err
	}
	t.Result, t.Static = res, b.static
	return t, nil
}

// spec drops from an intervention spec the force items whose site is not a
// condition the runtime can force (a range iteration's event, say, would
// record the forced outcome while the loop goes on), so that they count
// nothing, like any other item the runtime ignores.
func (b *Binary) spec(iv string) string {
	items := strings.Split(iv, ";")
	keep := items[:0]
	for _, it := range items {
		if arg, ok := strings.CutPrefix(strings.TrimSpace(it), "force:"); ok {
			s, _, _ := strings.Cut(arg, "=")
			id, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil || id <= 0 || id >= len(b.sites) || !forceable[b.sites[id].Kind] {
				continue
			}
		}
		keep = append(keep, it)
	}
	return strings.Join(keep, ";")
}

// forceable are the kinds of the sites whose condition passes through
// rt.B or rt.SC, whose result the program uses.
var forceable = map[trace.SiteKind]bool{trace.SiteIf: true, trace.SiteFor: true, trace.SiteSwitchCase: true, trace.SiteAndAnd: true, trace.SiteOrOr: true}

// Keep moves the test binary into dir, creating it, and returns its new
// path: a caller that runs the binary itself (as a plain test binary,
// with the interventions of CULPRIT_INTERVENE and no trace) keeps it past
// Close. Runs through b need it where it was.
func (b *Binary) Keep(dir string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("keeping traced binary: %w", err)
	}
	dst := filepath.Join(dir, filepath.Base(b.bin))
	if err := os.Rename(b.bin, dst); err != nil {
		return "", fmt.Errorf("keeping traced binary: %w", err)
	}
	b.bin = dst
	return dst, nil
}

// Close removes the build directory.
func (b *Binary) Close() error {
	if err := os.RemoveAll(b.tmp); err != nil {
		return fmt.Errorf("removing traced build: %w", err)
	}
	return nil
}

// errLine matches a compile error: the whole message, then its file.
var errLine = regexp.MustCompile(`(?m)^(?:# \S+\n)?((\S+\.go):\d+:\d+: .*)$`)

// build compiles the instrumented test binary. A rewritten file that does
// not compile is replaced by its original and listed as skipped.
func build(ctx context.Context, cfg Config, in *instrumented, tmp, bin string) error {
	ov := filepath.Join(tmp, "overlay.json")
	fast := runtimeGoidUsable(ctx, cfg)
	for attempt := 0; ; attempt++ {
		if err := writeOverlay(ov, in.overlay); err != nil {
			return err
		}
		var buf bytes.Buffer
		res, err := proc.GoInvocation{
			Verb:       "test",
			BuildFlags: append([]string{"-c", "-o", bin, "-overlay", ov, "-vet=off"}, buildFlags(fast, in.trim, proc.GoFlags(cfg.environ()), in.modPath)...),
			Args:       []string{cfg.Pkg},
			Env:        cfg.Env, Passthrough: cfg.Passthrough, Dir: cfg.Dir,
			Stdout: &buf, Stderr: &buf,
		}.Run(ctx)
		if err != nil {
			return fmt.Errorf("building traced test binary: %w", err)
		}
		if res.ExitCode == 0 {
			return nil
		}
		out := buf.Bytes()
		err = fmt.Errorf("exit status %d", res.ExitCode)
		if fast && bytes.Contains(out, []byte("exithook.Goid")) {
			// The toolchain's runtime lacks the goroutine id hook.
			fast = false
			continue
		}
		dropped := false
		for _, m := range errLine.FindAllStringSubmatch(string(out), -1) {
			msg, file := m[1], m[2]
			// The go command names files relative to its working directory
			// (cfg.Dir); the compiler relative to the package directory.
			names := []string{filepath.Clean(file)}
			if !filepath.IsAbs(file) {
				names = []string{filepath.Join(cfg.Dir, file), filepath.Join(cfg.Dir, cfg.Pkg, file)}
			}
			for orig, repl := range in.overlay {
				hit := repl == file
				for _, name := range names {
					hit = hit || orig == name || repl == name
				}
				if hit && !strings.Contains(orig, rtDir) {
					delete(in.overlay, orig)
					in.tab.Skipped = append(in.tab.Skipped, trace.Skip{Pos: trace.Pos{File: rel(cfg.Dir, orig)}, Reason: "instrumented file did not compile: " + msg})
					dropped = true
				}
			}
		}
		if !dropped || attempt > 20 {
			return fmt.Errorf("building traced test binary: %w\n%s", err, out)
		}
	}
}

// The tracing runtime reads goroutine ids from a runtime hook that only the
// linker flag -checklinkname=0 lets it refer to (go1.26 on, see
// rt/g_runtime.go); the build tag culprit_stackgoid makes it parse them from
// runtime.Stack instead, which also walks the whole stack on every function
// entry.

// runtimeGoidUsable reports whether the go command in dir is go1.26 or later.
func runtimeGoidUsable(ctx context.Context, cfg Config) bool {
	res, err := proc.GoInvocation{Verb: "env", Args: []string{"GOVERSION"}, Dir: cfg.Dir, Env: cfg.Env, Passthrough: cfg.Passthrough}.Run(ctx)
	if err != nil || res.ExitCode != 0 {
		return false
	}
	v := strings.TrimSpace(string(res.Stdout))
	if strings.HasPrefix(v, "devel ") {
		return true // a development toolchain is newer than any release
	}
	if i := strings.IndexAny(v, " -"); i >= 0 {
		v = v[:i]
	}
	return version.IsValid(v) && version.Compare(v, "go1.26") >= 0
}

// buildFlags returns the go test flags of a traced build. They select how
// the runtime gets goroutine ids, and leave debug information out of the
// binary: neither a trace nor a panic's traceback reads it, and not
// writing it saves a seventh of kong's traced build (4.99 s -> 4.29 s).
// With trim the paths are trimmed too, so that builds share what they
// compile (trimpath.go). Flags given on the command line replace the same
// flag in GOFLAGS, so the values from GOFLAGS are kept in them; a -gcflags
// of GOFLAGS is left alone.
func buildFlags(fast, trim bool, goflags []string, modPath string) []string {
	var tags string
	gcflags := false
	for _, f := range goflags {
		f = strings.TrimLeft(f, "-")
		if v, ok := strings.CutPrefix(f, "tags="); ok {
			tags = v
		}
		gcflags = gcflags || strings.HasPrefix(f, "gcflags=")
	}
	var flags []string
	if trim {
		flags = append(flags, "-trimpath")
	}
	if !gcflags {
		flags = append(flags, "-gcflags="+modPath+"/...=-dwarf=false")
	}
	if fast {
		return append(flags, proc.LinkFlags(goflags, "-checklinkname=0"))
	}
	if tags != "" {
		tags += ","
	}
	return append(flags, proc.LinkFlags(goflags), "-tags="+tags+"culprit_stackgoid")
}

// environ is the environment of the go commands and test runs of a trace:
// the process's, without its secrets, and cfg.Env.
func (cfg Config) environ() []string { return proc.GoEnv(cfg.Passthrough, cfg.Env, "") }

// pattern is the -test.run pattern of the traced runs.
func (cfg Config) pattern() string {
	if cfg.runPattern != "" {
		return cfg.runPattern
	}
	return gotest.RunPattern(cfg.Test)
}

// testSite is the site of the test function the build's runs trace (its
// top-level function for a subtest), 0 if the build did not instrument it.
func (b *Binary) testSite() trace.SiteID {
	top, _, _ := strings.Cut(b.cfg.Test, "/")
	for _, s := range b.sites {
		if s.Kind == trace.SiteFunc && strings.HasSuffix(s.Pos.File, "_test.go") && strings.HasSuffix(s.Func, "."+top) {
			return s.ID
		}
	}
	return 0
}

// runBinary runs the traced test binary once, tracing into dir, with the
// intervention spec iv ("" for none; an inherited one is cleared too);
// test is the site of the test function.
func runBinary(ctx context.Context, cfg Config, bin, dir, iv string, test trace.SiteID) (trace.RunResult, error) {
	ring := ""
	if cfg.KeepTail {
		ring = "1"
	}
	pr, out, err := runTest(ctx, cfg, bin, "CULPRIT_TRACE="+dir,
		"CULPRIT_TRACE_MAX="+strconv.FormatInt(cfg.MaxBytes, 10), "CULPRIT_TRACE_RING="+ring, "CULPRIT_INTERVENE="+iv,
		"CULPRIT_TRACE_TEST="+strconv.Itoa(int(test)), "CULPRIT_TRACE_FROM="+strconv.FormatUint(cfg.From, 10))
	res := trace.RunResult{Output: out, Duration: pr.Duration, ExitCode: pr.ExitCode}
	if err != nil {
		return res, fmt.Errorf("running traced test: %w", err)
	}
	res.Passed = passedRun(pr, res.Output, cfg.Test)
	res.Failed = !res.Passed
	return res, nil
}

// runTest runs cfg's test once in the test binary bin, in the package's
// directory and with env added to the environment, and returns the
// process's result and its combined output.
func runTest(ctx context.Context, cfg Config, bin string, env ...string) (proc.Result, string, error) {
	var out bytes.Buffer
	pr, err := proc.Run(ctx, proc.Cmd{
		Name: bin,
		Args: []string{"-test.run", cfg.pattern(), "-test.count=1", "-test.v", "-test.timeout", cfg.Timeout.String()},
		Dir:  filepath.Join(cfg.Dir, cfg.Pkg), Env: append(cfg.environ(), env...), Stdout: &out, Stderr: &out,
		Timeout: cfg.Timeout + 30*time.Second, MaxMemory: proc.TestMemory(),
	})
	if pr.OverMemory {
		fmt.Fprintf(&out, "\nculprit: %s\n", pr.OverMemoryMessage())
	}
	return pr, out.String(), err
}

func writeOverlay(path string, m map[string]string) error {
	b, err := json.Marshal(struct{ Replace map[string]string }{m})
	if err != nil {
		return fmt.Errorf("encoding overlay: %w", err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("writing overlay: %w", err)
	}
	return nil
}
