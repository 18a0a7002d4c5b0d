package trace

import (
	"context"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/tools/go/packages"
)

// rtDir is the runtime package's directory below the module root; it exists
// only in the overlay.
const rtDir = "culprit_trace_rt"

// instrumented is the result of rewriting the packages in scope.
type instrumented struct {
	tab     *table
	overlay map[string]string // original path -> rewritten path
	modPath string
}

// instrument loads pkg with its tests and rewrites every in-module file in
// scope into tmp.
//
// only, when not empty, lists the package directories (relative to the
// module root, slash-separated, "." for the root) to instrument; calls into
// the module's other packages are then uninstrumented calls whose results
// are observed. A large module traces much faster when only the packages
// the change touches and the test's own are instrumented.
//
// runs, when not nil, tells which top-level test functions the traced run
// calls (by name); the package's other test functions are left as they are,
// since they never execute. A test file of hundreds of tests otherwise costs
// most of the instrumented build.
//
// entered, when not nil, tells which function declarations of the
// packages' non-test files the test enters (probe.go); the others are left
// as they are and counted in the table's Unentered. When it cannot tell,
// every function is instrumented.
func instrument(ctx context.Context, dir, pkg, tmp string, only []string, runs func(string) bool, entered prober) (*instrumented, error) {
	roots, mod, target, err := load(ctx, dir, pkg, only)
	if err != nil {
		return nil, err
	}
	all := map[string]*packages.Package{}
	for _, p := range roots {
		if p.Module != nil && p.Module.Main {
			all[p.ID] = p
		}
	}
	selected := func(path string) bool { return selectedPackage(mod.Path, only, path) }
	inScope := func(tp *types.Package) bool {
		return tp != nil && (tp.Path() == mod.Path || strings.HasPrefix(tp.Path(), mod.Path+"/")) && !strings.HasSuffix(tp.Path(), rtDir) &&
			selected(strings.TrimSuffix(tp.Path(), "_test"))
	}
	// Prefer the test variant of a package: it type-checks all files.
	ids := make([]string, 0, len(all))
	for id := range all {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool {
		a, b := all[ids[i]], all[ids[j]]
		if len(a.Syntax) != len(b.Syntax) {
			return len(a.Syntax) > len(b.Syntax)
		}
		return ids[i] < ids[j]
	})
	in := &instrumented{tab: newTable(), overlay: map[string]string{}, modPath: mod.Path}
	leave := largeFuncs(all, selected)
	if runs != nil {
		unrunTests(all, target, runs, leave)
	}
	if entered != nil {
		for key, ran := range entered(mod, all, target, selected) {
			if _, ok := leave[key]; !ok && !ran {
				leave[key] = ""
				in.tab.Unentered++
			}
		}
	}
	done := map[string]bool{}
	n := 0
	for _, id := range ids {
		p := all[id]
		if strings.HasSuffix(p.PkgPath, ".test") || p.TypesInfo == nil || !selected(strings.TrimSuffix(p.PkgPath, "_test")) {
			continue
		}
		if len(p.Errors) > 0 {
			for _, f := range p.CompiledGoFiles {
				in.tab.Skipped = append(in.tab.Skipped, Skip{Pos: Pos{File: rel(mod.Dir, f)}, Reason: "package has type errors"})
			}
			continue
		}
		for i, f := range p.Syntax {
			name := p.CompiledGoFiles[i]
			if done[name] || !strings.HasSuffix(name, ".go") || !strings.HasPrefix(name, mod.Dir) ||
				strings.HasSuffix(name, "_test.go") && strings.TrimSuffix(p.PkgPath, "_test") != target {
				continue
			}
			done[name] = true
			src, err := os.ReadFile(name)
			if err != nil {
				return nil, fmt.Errorf("reading %s: %w", name, err)
			}
			n++
			out, ok := rewriteOne(p, f, src, rel(mod.Dir, name), in.tab, inScope, leave, mod.Path+"/"+rtDir, n)
			if !ok {
				continue
			}
			if needsGoUpgrade(mod.GoVersion) {
				out = withGoVersion(out, minInstrumentedGo, name)
			}
			dst := filepath.Join(tmp, fmt.Sprintf("f%d_%s", n, filepath.Base(name)))
			if err := os.WriteFile(dst, out, 0o644); err != nil {
				return nil, fmt.Errorf("writing instrumented %s: %w", name, err)
			}
			in.overlay[name] = dst
		}
	}
	if err := writeRuntime(filepath.Join(mod.Dir, rtDir), tmp, in.overlay, needsGoUpgrade(mod.GoVersion)); err != nil {
		return nil, err
	}
	return in, nil
}

// loadMode is what the rewriter needs of a package it instruments.
const loadMode = packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles | packages.NeedImports |
	packages.NeedTypes | packages.NeedSyntax | packages.NeedTypesInfo | packages.NeedModule

// load returns, parsed and type-checked from source, the packages that may
// be instrumented: pkg with its tests, and the main module's other packages
// that pkg's tests import (those in only, when only is not empty). It also
// returns the main module and pkg's import path. The types of every other
// dependency come from export data in the build cache: type-checking the
// whole import graph from source, the standard library included, cost
// several times the time and memory.
func load(ctx context.Context, dir, pkg string, only []string) ([]*packages.Package, *packages.Module, string, error) {
	// The test's packages are loaded with types while the import graph
	// that names the module's other packages is loaded: each is a go
	// command that mostly waits on the build cache.
	var roots []*packages.Package
	var rootsErr error
	var wg sync.WaitGroup
	wg.Go(func() {
		roots, rootsErr = packages.Load(&packages.Config{Context: ctx, Dir: dir, Tests: true, Mode: loadMode}, pkg)
	})
	defer wg.Wait() // also when the graph fails to load
	graph, err := packages.Load(&packages.Config{Context: ctx, Dir: dir, Tests: true,
		Mode: packages.NeedName | packages.NeedImports | packages.NeedDeps | packages.NeedModule}, pkg)
	if err != nil {
		return nil, nil, "", fmt.Errorf("loading %s: %w", pkg, err)
	}
	var mod *packages.Module
	target := ""
	for _, p := range graph {
		if p.Module != nil && p.Module.Main && !strings.HasSuffix(p.PkgPath, ".test") {
			mod, target = p.Module, strings.TrimSuffix(p.PkgPath, "_test")
			break
		}
	}
	if mod == nil {
		return nil, nil, "", fmt.Errorf("loading %s: no package of the main module", pkg)
	}
	var others []string
	seen := map[string]bool{}
	packages.Visit(graph, nil, func(p *packages.Package) {
		path := strings.TrimSuffix(p.PkgPath, "_test")
		if p.Module != nil && p.Module.Path == mod.Path && !strings.HasSuffix(path, ".test") && path != target &&
			!seen[path] && selectedPackage(mod.Path, only, path) {
			seen[path] = true
			others = append(others, path)
		}
	})
	var more []*packages.Package
	if len(others) > 0 {
		sort.Strings(others)
		more, err = packages.Load(&packages.Config{Context: ctx, Dir: dir, Mode: loadMode}, others...)
		if err != nil {
			return nil, nil, "", fmt.Errorf("loading the packages %s imports: %w", pkg, err)
		}
	}
	wg.Wait()
	if rootsErr != nil {
		return nil, nil, "", fmt.Errorf("loading %s: %w", pkg, rootsErr)
	}
	return append(roots, more...), mod, target, nil
}

// selectedPackage reports whether the package at import path is one of
// only (directories relative to the module root, "." for the root); an
// empty only selects every package.
func selectedPackage(modPath string, only []string, path string) bool {
	if len(only) == 0 {
		return true
	}
	rel := "."
	if path != modPath {
		rel = strings.TrimPrefix(path, modPath+"/")
	}
	return slices.Contains(only, rel)
}

// rewriteOne instruments one file; a panic in the rewriter (a construct it
// mishandles) leaves the file unmodified.
func rewriteOne(p *packages.Package, f *ast.File, src []byte, relName string, tab *table,
	scope func(*types.Package) bool, leave map[funcKey]string, rtPath string, n int) (out []byte, ok bool) {
	tf := p.Fset.File(f.Pos())
	if tf == nil || tf.Size() != len(src) {
		return nil, false
	}
	save, saveSkip := len(tab.Sites), len(tab.Skipped)
	defer func() {
		if e := recover(); e != nil {
			tab.Sites, tab.Skipped = tab.Sites[:save], tab.Skipped[:saveSkip]
			tab.Skipped = append(tab.Skipped, Skip{Pos: Pos{File: relName}, Reason: fmt.Sprint("rewriter: ", e)})
			out, ok = nil, false
		}
	}()
	newRewriter := func() *rewriter {
		return &rewriter{fset: p.Fset, info: p.TypesInfo, file: f, src: src, base: tf.Base(), rel: relName,
			tab: tab, scope: scope, leave: leave, gvar: fmt.Sprintf("_ctg%d", n)}
	}
	// The first pass learns which locals have every write recorded; the
	// second leaves their reads unrecorded (see elide.go).
	r := newRewriter()
	r.wrote = map[*types.Var]map[token.Pos]bool{}
	r.rewriteFile(rtPath)
	elide := r.elidable()
	tab.Sites, tab.Skipped = tab.Sites[:save], tab.Skipped[:saveSkip]
	r = newRewriter()
	r.elide = elide
	out = r.rewriteFile(rtPath)
	if len(tab.Sites) == save {
		// Nothing to instrument (only declarations or comments): the
		// runtime import would be unused.
		return nil, false
	}
	return out, true
}

// maxFuncLines bounds the length of a function the tracer instruments.
// The compiler's time on an instrumented function grows much faster than
// its length: a generated interpreter loop of thousands of lines took
// minutes to build. Longer functions run uninstrumented and are observed
// at their calls, like code outside the module.
const maxFuncLines = 1500

// funcKey names a function declaration by file and the line of its name,
// the same in every variant of a package (with or without its tests).
type funcKey struct {
	file string
	line int
}

// largeFuncs returns the function declarations longer than maxFuncLines
// in the packages to instrument, each with the reason it is left alone.
func largeFuncs(all map[string]*packages.Package, selected func(string) bool) map[funcKey]string {
	large := map[funcKey]string{}
	why := fmt.Sprintf("function longer than %d lines", maxFuncLines)
	for _, p := range all {
		if !selected(strings.TrimSuffix(p.PkgPath, "_test")) {
			continue
		}
		for _, f := range p.Syntax {
			for _, d := range f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || fd.Body == nil {
					continue
				}
				from, to := p.Fset.Position(fd.Pos()), p.Fset.Position(fd.End())
				if to.Line-from.Line > maxFuncLines {
					name := p.Fset.Position(fd.Name.Pos())
					large[funcKey{name.Filename, name.Line}] = why
				}
			}
		}
	}
	return large
}

// unrunTests adds to leave, with an empty reason, the test functions of
// target's test files that the traced run never calls: those go test would
// start (Test, Fuzz and Example functions, but not TestMain; Benchmarks,
// which only -bench starts) whose name runs rejects, unless some code of
// the package refers to them.
func unrunTests(all map[string]*packages.Package, target string, runs func(string) bool, leave map[funcKey]string) {
	for _, p := range all {
		if strings.TrimSuffix(p.PkgPath, "_test") != target || p.TypesInfo == nil {
			continue
		}
		used := map[types.Object]bool{}
		for _, o := range p.TypesInfo.Uses {
			used[o] = true
		}
		for i, f := range p.Syntax {
			if !strings.HasSuffix(p.CompiledGoFiles[i], "_test.go") {
				continue
			}
			for _, d := range f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || fd.Recv != nil || fd.Body == nil || used[p.TypesInfo.Defs[fd.Name]] {
					continue
				}
				name := fd.Name.Name
				if name == "TestMain" {
					continue // go test calls it whatever -run says
				}
				if isHarnessFunc(name, "Benchmark") || (isHarnessFunc(name, "Test") || isHarnessFunc(name, "Fuzz") ||
					isHarnessFunc(name, "Example")) && !runs(name) {
					pos := p.Fset.Position(fd.Name.Pos())
					if _, ok := leave[funcKey{pos.Filename, pos.Line}]; !ok {
						leave[funcKey{pos.Filename, pos.Line}] = ""
					}
				}
			}
		}
	}
}

// isHarnessFunc reports whether name is one go test recognises by prefix:
// the prefix alone, or followed by a character that is not a lower-case
// letter (TestX, Test_x, but not Testing).
func isHarnessFunc(name, prefix string) bool {
	rest, ok := strings.CutPrefix(name, prefix)
	if !ok {
		return false
	}
	r, _ := utf8.DecodeRuneInString(rest)
	return rest == "" || !unicode.IsLower(r)
}

// topLevelRuns returns which top-level test names the -test.run pattern
// selects: its part before the first '/'. A pattern that does not compile
// selects every name, which leaves every test instrumented.
func topLevelRuns(pattern string) func(string) bool {
	top, _, _ := strings.Cut(pattern, "/")
	re, err := regexp.Compile(top)
	if err != nil {
		return func(string) bool { return true }
	}
	return re.MatchString
}

func rel(root, name string) string {
	r, err := filepath.Rel(root, name)
	if err != nil {
		return filepath.ToSlash(name)
	}
	return filepath.ToSlash(r)
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
