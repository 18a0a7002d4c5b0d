package instrument

import (
	"context"
	"fmt"
	"go/ast"
	"go/types"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/tools/go/packages"
)

// Most of a traced build is the compiler's time on instrumented code, and
// most of that code never runs: a test enters a few dozen of a module's
// thousands of functions. With Config.Probe, the test first runs once in a
// probe build, where each function of the packages to instrument only
// marks that it was entered (rt.Hit), which compiles about as fast as the
// plain code. Then only the functions that run entered are instrumented;
// the others are compiled as they are and, should the traced run enter
// one after all, observed at their calls like code outside the module
// (trace.Trace.Unentered counts them). Test files are instrumented whole, as
// without the probe.

// probeMinBytes is how much non-test source, outside the test's own
// package, there must be to instrument for the probe to run. The probe
// build and run cost about as much as compiling the plain code and linking
// once more; what it saves is the instrumented compile of the functions
// the test never enters, most of them in the other packages of a large
// module (hcl: 16.5 s of build became 3.7 s of probe and 5.0 s of build).
// A test of a single package enters a larger share of what it compiles
// (kong: 5.9 s of build became 2.8 s of probe and 3.7 s of build).
var probeMinBytes = 256 << 10

// prober reports which function declarations of the packages to
// instrument the test enters (nil: it cannot tell).
type prober func(mod *packages.Module, all map[string]*packages.Package, target string, selected func(string) bool) map[funcKey]bool

// prober returns cfg's prober: the functions named in cfg.Functions, the
// probe run's when cfg.Probe, both when both are set (a function either
// names is instrumented), or nil.
func (cfg Config) prober(ctx context.Context) prober {
	if cfg.Functions == nil && !cfg.Probe {
		return nil
	}
	return func(mod *packages.Module, all map[string]*packages.Package, target string, selected func(string) bool) map[funcKey]bool {
		if cfg.Functions == nil {
			return probe(ctx, cfg, mod, all, target, selected)
		}
		entered := named(mod, all, selected, cfg.Functions, cfg.NarrowTests)
		if cfg.Probe {
			for k, in := range probe(ctx, cfg, mod, all, target, selected) {
				entered[k] = entered[k] || in
			}
		}
		return entered
	}
}

// named reports, for every function declaration of the non-test files of
// the packages to instrument, whether names holds its qualified name; with
// tests, for those of the test files too, where the functions go test
// calls by name (Test, Fuzz and Example functions, TestMain) count as
// named.
func named(mod *packages.Module, all map[string]*packages.Package, selected func(string) bool, names map[string]bool, tests bool) map[funcKey]bool {
	entered := map[funcKey]bool{}
	for _, p := range all {
		path := strings.TrimSuffix(p.PkgPath, "_test")
		if strings.HasSuffix(path, ".test") || !selected(path) || p.TypesInfo == nil {
			continue
		}
		for i, f := range p.Syntax {
			name := p.CompiledGoFiles[i]
			test := strings.HasSuffix(name, "_test.go")
			if test && !tests || !strings.HasPrefix(name, mod.Dir) {
				continue
			}
			for _, d := range f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || fd.Body == nil {
					continue
				}
				at := p.Fset.Position(fd.Name.Pos())
				fn, ok := p.TypesInfo.Defs[fd.Name].(*types.Func)
				harness := test && fd.Recv == nil && (runByPattern(fd.Name.Name) || fd.Name.Name == "TestMain")
				entered[funcKey{at.Filename, at.Line}] = !ok || harness || names[fn.FullName()]
			}
		}
	}
	return entered
}

// probe builds and runs cfg's test (in package target) once with every function declaration of
// the non-test files of the packages to instrument marking its entry, and
// reports for each whether the run entered it. It returns nil when the
// probe is not worth its cost (less than probeMinBytes of source, and no
// function longer than maxFuncStmts, large.go) or
// cannot tell: the build or the run failed to start, or the run timed out.
// A file that does not compile with the marks is built as it is, and its
// functions count as entered.
func probe(ctx context.Context, cfg Config, mod *packages.Module, all map[string]*packages.Package, target string, selected func(string) bool) map[funcKey]bool {
	tmp, err := os.MkdirTemp("", "culprit-probe-")
	if err != nil {
		return nil
	}
	defer os.RemoveAll(tmp)
	in := newInstrumented(mod, all)
	var keys []funcKey           // by mark number
	byFile := map[string][]int{} // file -> the marks of its functions
	size := 0
	large := false // a function too long to instrument unless it runs
	for _, p := range all {
		path := strings.TrimSuffix(p.PkgPath, "_test")
		if strings.HasSuffix(path, ".test") || !selected(path) {
			continue
		}
		for i, f := range p.Syntax {
			name := p.CompiledGoFiles[i]
			if strings.HasSuffix(name, "_test.go") || !strings.HasPrefix(name, mod.Dir) || byFile[name] != nil {
				continue
			}
			tf := p.Fset.File(f.Pos())
			src, err := os.ReadFile(name)
			if err != nil || tf == nil || tf.Size() != len(src) {
				continue
			}
			if path != target {
				size += len(src)
			}
			byFile[name] = []int{}
			var b strings.Builder
			last := tf.Offset(f.Name.End())
			b.Write(src[:last])
			fmt.Fprintf(&b, "; import %s %q", rtName, mod.Path+"/"+rtDir)
			for _, d := range f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || fd.Body == nil {
					continue
				}
				large = large || countStmts(fd.Body) > maxFuncStmts
				at := p.Fset.Position(fd.Name.Pos())
				n := len(keys)
				keys = append(keys, funcKey{at.Filename, at.Line})
				byFile[name] = append(byFile[name], n)
				off := tf.Offset(fd.Body.Lbrace) + 1
				b.Write(src[last:off])
				fmt.Fprintf(&b, "%s.Hit(%d); ", rtName, n)
				last = off
			}
			if len(byFile[name]) == 0 {
				continue // no function: the import would be unused
			}
			b.Write(src[last:])
			dst := filepath.Join(tmp, fmt.Sprintf("m%d_%s", len(in.overlay), filepath.Base(name)))
			if err := os.WriteFile(dst, []byte(b.String()), 0o644); err != nil {
				return nil
			}
			in.overlay[name] = dst
		}
	}
	if size < probeMinBytes && !large || len(keys) == 0 {
		return nil
	}
	if err := writeRuntime(filepath.Join(mod.Dir, rtDir), tmp, in.overlay, needsRuntimeUpgrade(mod.GoVersion)); err != nil {
		return nil
	}
	bin := filepath.Join(tmp, "probe.bin")
	if err := build(ctx, cfg, in, tmp, bin); err != nil {
		return nil
	}
	marks := filepath.Join(tmp, "marks")
	if err := os.WriteFile(marks, make([]byte, len(keys)), 0o644); err != nil {
		return nil
	}
	res, _, err := runTest(ctx, cfg, bin, "CULPRIT_PROBE="+marks, "CULPRIT_TRACE=") // rt.EnvProbe; no trace
	if err != nil || res.TimedOut {
		return nil
	}
	hit, err := os.ReadFile(marks)
	if err != nil || len(hit) != len(keys) {
		return nil
	}
	entered := map[funcKey]bool{}
	for name, ns := range byFile {
		_, marked := in.overlay[name] // build drops a file that did not compile
		for _, n := range ns {
			entered[keys[n]] = !marked || hit[n] != 0
		}
	}
	return entered
}
