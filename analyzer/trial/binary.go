package trial

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/culprit-dev/culprit/analyzer/gotest"
	"github.com/culprit-dev/culprit/diffhunks"
)

// Repeated runs of one variant (a flaky test's measurements) build its
// test binary once (go test -c) and run the binary itself, through
// test2json, in the package directory as go test would: a run then costs
// the test's own time instead of the go command's and the linker's (about
// 40 ms instead of 700 ms for a small package). Only variants that -overlay
// can express take this path; the others run go test each time.

// binary is one build shared by every caller that needs it.
type binary struct {
	done chan struct{}
	path string // "" when the build failed: run go test instead
	err  error
}

// testBinary returns the path of the variant's test binary, built with
// the extra go test flags, building it the first time; "" when the
// variant cannot be built this way.
func (r *Runner) testBinary(ctx context.Context, ids []diffhunks.ID, v variant, flags ...string) (string, error) {
	k := binKey(ids, flags...)
	return r.once(ctx, k, func() (string, error) {
		dir := filepath.Join(r.tmp, fmt.Sprintf("bin%d", r.nextSeq()))
		overlay, err := r.writeOverlay(dir, v)
		if err != nil {
			return "", err
		}
		r.count(func(s *Counts) { s.Builds++ })
		cwd := filepath.Join(r.wtHead, filepath.FromSlash(r.prefix))
		ln := laneOf(ctx)
		start := ln.at()
		bin, out, err := r.compileTest(ctx, cwd, false, k, filepath.Join(dir, "test.bin"), append([]string{"-overlay", overlay}, flags...)...)
		if err != nil {
			return "", err
		}
		// The runs of the binary wait for this build: a round of its own.
		built := Pass
		if out.exitCode != 0 || out.timedOut {
			built = BuildError
		}
		ln.record(start, ids, true, built, out.duration)
		return bin, nil // "": go test, run the usual way, will say why
	})
}

// compileTest builds the test binary bin with go test -c in cwd and the
// extra flags, and returns it with the go command's run: "" when the
// variant does not compile (which marks key k broken), the build timed
// out, or there are no test files (go test -c writes nothing then).
func (r *Runner) compileTest(ctx context.Context, cwd string, modFiles bool, k, bin string, extra ...string) (string, run, error) {
	args := append(append([]string{"-c", "-vet=off", "-o", bin, r.linkFlags()}, extra...), r.cfg.Pkg)
	out, err := r.goCommand(ctx, cwd, modFiles, "test", args...)
	switch {
	case err != nil:
		return "", out, err
	case out.exitCode != 0 && !out.timedOut:
		r.mu.Lock()
		if r.broken == nil {
			r.broken = map[string]bool{}
		}
		r.broken[k] = true
		r.mu.Unlock()
		return "", out, nil
	case out.exitCode != 0:
		return "", out, nil
	}
	if _, err := os.Stat(bin); err != nil {
		return "", out, nil
	}
	return bin, out, nil
}

// brokenBinary reports whether the variant's test binary, built with no
// extra flags, failed to compile.
func (r *Runner) brokenBinary(ids []diffhunks.ID) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.broken[binKey(ids)]
}

// binKey names the variant's test binary built with the extra flags, in
// the build cache and in broken.
func binKey(ids []diffhunks.ID, flags ...string) string {
	return "bin:" + strings.Join(flags, " ") + ":" + key(ids)
}

// test2json returns the path of a test2json for this runner. The go
// command no longer ships it prebuilt, and go tool test2json costs as much
// as the go test it would spare; but go tool -n names the binary it keeps
// in the build cache, built once per machine. A go command that cannot say
// gets one built into the runner's directory.
func (r *Runner) test2json(ctx context.Context) (string, error) {
	return r.once(ctx, "test2json", func() (string, error) {
		out, err := r.goCommand(ctx, r.tmp, false, "tool", "-n", "test2json")
		if err != nil {
			return "", err
		}
		if bin := strings.TrimSpace(string(out.stdout)); out.exitCode == 0 && filepath.IsAbs(bin) && !strings.Contains(bin, "\n") {
			if fi, err := os.Stat(bin); err == nil && fi.Mode().IsRegular() {
				return bin, nil
			}
		}
		bin := filepath.Join(r.tmp, "test2json")
		if out, err = r.goCommand(ctx, r.tmp, false, "build", "-o", bin, "cmd/test2json"); err != nil {
			return "", err
		}
		if out.exitCode != 0 {
			return "", nil
		}
		return bin, nil
	})
}

// once runs build once per key for every concurrent caller. A failed
// build (an error, not an empty path) is forgotten, so a later call
// retries it.
func (r *Runner) once(ctx context.Context, k string, build func() (string, error)) (string, error) {
	r.mu.Lock()
	if r.bins == nil {
		r.bins = map[string]*binary{}
	}
	b, ok := r.bins[k]
	if !ok {
		b = &binary{done: make(chan struct{})}
		r.bins[k] = b
		r.mu.Unlock()
		b.path, b.err = build()
		if b.err != nil {
			r.mu.Lock()
			delete(r.bins, k)
			r.mu.Unlock()
		}
		close(b.done)
		return b.path, b.err
	}
	r.mu.Unlock()
	select {
	case <-b.done:
	case <-ctx.Done():
		return "", ctx.Err()
	}
	return b.path, b.err
}

// runBinary runs the test once with the prebuilt binary, under test2json
// as go test -json does, in the package's directory of worktree wt, and
// classifies it as a go test run.
func (r *Runner) runBinary(ctx context.Context, t2j, bin, wt string, env ...string) (Result, error) {
	cwd := filepath.Join(wt, filepath.FromSlash(r.pkgDir))
	c := classifier{root: wt, cwd: cwd, prefix: r.prefix, pkgDir: r.pkgDir, test: r.cfg.Test}
	amp := r.amplification()
	timeout := amp.scaled(r.runTimeout())
	args := append([]string{"-t", "-p", r.cfg.Pkg, bin, "-test.v=test2json", "-test.run", gotest.RunPattern(r.cfg.Test),
		"-test.timeout", timeout.String()}, amp.flags("-test.")...)
	out, err := r.executeTest(ctx, timeout+hangMargin(timeout), cwd, append(append(r.env(false), amp.env()...), env...), t2j, args...)
	if err != nil {
		return Result{}, err
	}
	res, err := c.result(out)
	// test2json marks a test that the binary's exit cut short (os.Exit in
	// the test) as failed; go test gives it no verdict. Only a test that
	// reported its failure failed.
	if err == nil && res.Outcome == Fail && !reportedFailure(out.stdout, r.cfg.Test) {
		res.Outcome = Crash
	}
	return res, err
}

// reportedFailure reports whether test2json's output (JSON events) holds
// the test's own "--- FAIL" line. The line is looked for as JSON writes it
// inside a string: a subtest name may hold quotes or other characters
// that JSON escapes.
func reportedFailure(events []byte, test string) bool {
	line, err := json.Marshal("--- FAIL: " + gotest.TestName(test))
	if err != nil {
		return false
	}
	return bytes.Contains(events, line[1:len(line)-1])
}

// SetRunTimeout bounds each run of a prebuilt test binary (Repeat) by d
// instead of Config.Timeout, which also covers a build: once a test's
// usual duration is known, a hung run need not cost minutes. d is capped
// by Config.Timeout; zero restores it.
func (r *Runner) SetRunTimeout(d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.runLimit = d
}

func (r *Runner) runTimeout() time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.runLimit > 0 && r.runLimit < r.cfg.Timeout {
		return r.runLimit
	}
	return r.cfg.Timeout
}
