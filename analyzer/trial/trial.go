package trial

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/culprit-dev/culprit/analyzer/gotest"
	"github.com/culprit-dev/culprit/diffhunks"
)

// variant is head with some hunks reverted, as changes to head.
type variant struct {
	files   map[string][]byte
	deleted []string
	modes   map[string]fs.FileMode
}

// paths lists the repository-relative paths the variant writes or
// deletes.
func (v variant) paths() []string {
	return slices.Concat(slices.Collect(maps.Keys(v.files)), v.deleted)
}

// overlayable reports whether go test can see the whole variant through
// -overlay: only Go source is read through it. Test data, go.mod and
// embedded files are read from disk and need a worktree.
func (v variant) overlayable() bool {
	for _, p := range v.paths() {
		if !strings.HasSuffix(p, ".go") || strings.Contains("/"+p, "/testdata/") {
			return false
		}
	}
	return len(v.modes) == 0
}

// modFiles reports whether the variant changes module files.
func (v variant) modFiles() bool {
	return slices.ContainsFunc(v.paths(), func(p string) bool {
		b := path.Base(p)
		return b == "go.mod" || b == "go.sum"
	})
}

// trial runs (or, if build, only compiles) one variant.
func (r *Runner) trial(ctx context.Context, ids []diffhunks.ID, build bool) (Result, error) {
	v, err := r.variant(ids)
	if err != nil {
		return Result{}, err
	}
	return r.trialOf(ctx, v, build)
}

// trialOf is trial for a variant already built from its hunks.
func (r *Runner) trialOf(ctx context.Context, v variant, build bool) (Result, error) {
	if r.cfg.Mode == ModeGo && v.overlayable() {
		return r.overlayTrial(ctx, v, build)
	}
	wt, err := r.takeWorktree(ctx)
	if err != nil {
		return Result{}, err
	}
	res, err := r.inPlaceTrial(ctx, wt, v, build)
	if perr := r.putWorktree(context.WithoutCancel(ctx), wt); perr != nil && err == nil {
		err = perr
	}
	return res, err
}

// variant is head with ids reverted.
func (r *Runner) variant(ids []diffhunks.ID) (variant, error) {
	files, deleted, err := r.cfg.Variants.Variant(ids)
	if err != nil {
		return variant{}, fmt.Errorf("building variant: %w", err)
	}
	v := variant{files: files, deleted: deleted}
	if mv, ok := r.cfg.Variants.(modeVariants); ok {
		if v.modes, err = mv.VariantModes(ids); err != nil {
			return variant{}, fmt.Errorf("building variant modes: %w", err)
		}
	}
	return v, nil
}

// Checkout writes the variant that reverts ids into a worktree of the
// pool and returns Config.Dir's place in it, for tools that need the
// variant's files on disk (the tracer). release gives the worktree back;
// dir must not be used after it.
func (r *Runner) Checkout(ctx context.Context, ids []diffhunks.ID) (dir string, release func() error, err error) {
	v, err := r.variant(ids)
	if err != nil {
		return "", nil, err
	}
	wt, err := r.takeWorktree(ctx)
	if err != nil {
		return "", nil, err
	}
	release = func() error { return r.putWorktree(context.WithoutCancel(ctx), wt) }
	if err := v.writeTo(wt); err != nil {
		return "", nil, errors.Join(err, release())
	}
	return filepath.Join(wt, filepath.FromSlash(r.prefix)), release, nil
}

// overlayTrial runs go test in the head worktree with the variant's files
// given by -overlay, so nothing is copied and the build cache is shared.
func (r *Runner) overlayTrial(ctx context.Context, v variant, build bool) (Result, error) {
	dir := filepath.Join(r.tmp, fmt.Sprintf("ov%d", r.nextSeq()))
	defer os.RemoveAll(dir)
	overlay, err := r.writeOverlay(dir, v)
	if err != nil {
		return Result{}, err
	}
	return r.goTest(ctx, r.wtHead, dir, []string{"-overlay", overlay}, false, build)
}

// writeOverlay writes the variant's files under dir and the overlay file
// that names them, and returns the overlay file's path.
func (r *Runner) writeOverlay(dir string, v variant) (string, error) {
	replace := map[string]string{}
	for p, data := range v.files {
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if err := writeFile(dst, data, 0o644); err != nil {
			return "", err
		}
		replace[filepath.Join(r.wtHead, filepath.FromSlash(p))] = dst
	}
	for _, p := range v.deleted {
		replace[filepath.Join(r.wtHead, filepath.FromSlash(p))] = ""
	}
	overlay := filepath.Join(dir, "overlay.json")
	data, err := json.Marshal(struct{ Replace map[string]string }{replace})
	if err != nil {
		return "", fmt.Errorf("writing overlay: %w", err)
	}
	if err := writeFile(overlay, data, 0o644); err != nil {
		return "", err
	}
	return overlay, nil
}

// inPlaceTrial writes the variant into worktree wt and runs the test there.
func (r *Runner) inPlaceTrial(ctx context.Context, wt string, v variant, build bool) (Result, error) {
	if err := v.writeTo(wt); err != nil {
		return Result{}, err
	}
	if r.cfg.Mode == ModeCommand {
		return r.command(ctx, wt, v.modFiles(), build)
	}
	return r.goTest(ctx, wt, "", nil, v.modFiles(), build)
}

// writeTo writes the variant over worktree wt, which holds head.
func (v variant) writeTo(wt string) error {
	for p, data := range v.files {
		mode := fs.FileMode(0o644)
		if m, ok := v.modes[p]; ok {
			mode = m.Perm()
		} else if fi, err := os.Stat(filepath.Join(wt, filepath.FromSlash(p))); err == nil {
			mode = fi.Mode().Perm()
		}
		if err := writeFile(filepath.Join(wt, filepath.FromSlash(p)), data, mode); err != nil {
			return err
		}
	}
	for p, m := range v.modes {
		if err := os.Chmod(filepath.Join(wt, filepath.FromSlash(p)), m.Perm()); err != nil {
			return fmt.Errorf("writing variant: %w", err)
		}
	}
	for _, p := range v.deleted {
		if err := os.Remove(filepath.Join(wt, filepath.FromSlash(p))); err != nil && !os.IsNotExist(err) {
			return fmt.Errorf("writing variant: %w", err)
		}
	}
	return nil
}

func writeFile(name string, data []byte, mode fs.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return fmt.Errorf("writing variant: %w", err)
	}
	if err := os.WriteFile(name, data, mode); err != nil {
		return fmt.Errorf("writing variant: %w", err)
	}
	return os.Chmod(name, mode) // WriteFile keeps an existing file's mode
}

// goTest runs go test in worktree wt (Config.Dir's place in it), or only
// compiles the test (goList) when build is set, and classifies what
// happened.
// overlayDir, when set, holds the variant's files, named in compiler
// messages instead of their repository paths.
func (r *Runner) goTest(ctx context.Context, wt, overlayDir string, extra []string, modFiles, build bool) (Result, error) {
	// go test's own -timeout comes first, so that a hung test prints where
	// its goroutines wait; ours, a little later (hangMargin), also covers
	// the build and kills the whole process group.
	cwd := filepath.Join(wt, filepath.FromSlash(r.prefix))
	c := classifier{root: wt, cwd: cwd, overlayDir: overlayDir, prefix: r.prefix, pkgDir: r.pkgDir, test: r.cfg.Test}
	if build {
		return r.goList(ctx, cwd, c, extra, modFiles)
	}
	amp := r.amplification()
	limit := amp.scaled(r.cfg.Timeout)
	args := append([]string{"-json", "-vet=off", "-timeout", limit.String(),
		"-run", gotest.RunPattern(r.cfg.Test), r.linkFlags()}, amp.flags("-")...)
	args = append(append(args, extra...), r.cfg.Pkg)
	out, err := r.goTestCommand(ctx, cwd, modFiles, amp, "test", args...)
	if err != nil {
		return Result{}, err
	}
	return c.result(out)
}

// goList compiles the test's package, its test variants and their
// dependencies to export data without linking a test binary (go list
// -export), about three times faster than go test -c, and reports a
// BuildError with the compiler's messages when any of them fails.
func (r *Runner) goList(ctx context.Context, cwd string, c classifier, extra []string, modFiles bool) (Result, error) {
	args := append([]string{"-test", "-export", "-e", "-json=Error,DepsErrors"}, extra...)
	args = append(args, r.cfg.Pkg)
	out, err := r.goCommand(ctx, cwd, modFiles, "list", args...)
	if err != nil {
		return Result{}, err
	}
	res := Result{Duration: out.duration, Outcome: Pass}
	if out.timedOut {
		res.Outcome = Timeout
		return res, nil
	}
	msgs, derr := listErrors(out.stdout)
	if derr != nil || (out.exitCode != 0 && len(msgs) == 0) {
		// The go command failed before listing anything (a broken go.mod,
		// say) and said why on stderr.
		msgs = append(msgs, string(out.stderr))
	}
	if len(msgs) > 0 {
		res.Outcome = BuildError
		text := strings.Join(msgs, "\n")
		res.Message = c.relative(tail(text, maxMessage))
		res.Output = tail(text, maxOutput)
	}
	return c.unrooted(res), nil
}

// listErrors returns the distinct errors in a go list -json stream: each
// package's own and those of its dependencies (the same compile failure is
// reported by every package that imports the broken one).
func listErrors(stream []byte) ([]string, error) {
	type listErr struct{ Err string }
	var msgs []string
	seen := map[string]bool{}
	dec := json.NewDecoder(bytes.NewReader(stream))
	for {
		var p struct {
			Error      *listErr
			DepsErrors []*listErr
		}
		if err := dec.Decode(&p); err == io.EOF {
			return msgs, nil
		} else if err != nil {
			return msgs, fmt.Errorf("reading go list output: %w", err)
		}
		for _, e := range append(p.DepsErrors, p.Error) {
			if e == nil {
				continue
			}
			if m := strings.TrimSpace(e.Err); m != "" && !seen[m] {
				seen[m] = true
				msgs = append(msgs, m)
			}
		}
	}
}

func (r *Runner) nextSeq() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seq++
	return r.seq
}
