package instrument

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/tools/go/packages"

	"github.com/culprit-dev/culprit/internal/proc"

	"github.com/culprit-dev/culprit/analyzer/trace"
)

// rtDir is the runtime package's directory below the module root; it exists
// only in the overlay.
const rtDir = "culprit_trace_rt"

// instrumented is the result of rewriting the packages in scope.
type instrumented struct {
	tab     *table
	overlay map[string]string // original path -> rewritten path
	modPath string
	// trim says the build may use -trimpath (trimpath.go).
	trim bool
}

// newInstrumented is an empty rewrite of mod, whose packages in the
// test's build are all.
func newInstrumented(mod *packages.Module, all map[string]*packages.Package) *instrumented {
	return &instrumented{tab: newTable(), overlay: map[string]string{}, modPath: mod.Path, trim: !readsSourcePaths(all)}
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
func instrument(ctx context.Context, dir, pkg, tmp string, env goEnv, only []string, runs func(string) bool, entered prober) (*instrumented, error) {
	roots, mod, target, err := load(ctx, dir, pkg, only, env)
	if err != nil {
		return nil, err
	}
	all := map[string]*packages.Package{}
	for _, p := range roots {
		all[p.ID] = p
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
	in := newInstrumented(mod, all)
	var ran map[funcKey]bool // nil: every function may run
	if entered != nil {
		ran = entered(mod, all, target, selected)
	}
	leave := largeFuncs(all, selected, ran)
	var idle map[string]bool // files built as an empty package
	if runs != nil {
		unrunTests(all, target, runs, leave)
		idle = idleExternalTest(all, target, runs)
	}
	if ran != nil {
		for key, hit := range ran {
			if _, ok := leave[key]; !ok && !hit {
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
				in.tab.Skipped = append(in.tab.Skipped, trace.Skip{Pos: trace.Pos{File: rel(mod.Dir, f)}, Reason: "package has type errors"})
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
			n++
			out := []byte("package " + p.Name + "\n")
			if !idle[name] {
				src, err := os.ReadFile(name)
				if err != nil {
					return nil, fmt.Errorf("reading %s: %w", name, err)
				}
				var ok bool
				if out, ok = rewriteOne(p, f, src, rel(mod.Dir, name), in.tab, inScope, leave, mod.Path+"/"+rtDir, n); !ok {
					continue
				}
				if needsGoUpgrade(mod.GoVersion) {
					out = withGoVersion(out, minInstrumentedGo, name)
				}
			}
			dst := filepath.Join(tmp, fmt.Sprintf("f%d_%s", n, filepath.Base(name)))
			if err := os.WriteFile(dst, out, 0o644); err != nil {
				return nil, fmt.Errorf("writing instrumented %s: %w", name, err)
			}
			in.overlay[name] = dst
		}
	}
	if err := writeRuntime(filepath.Join(mod.Dir, rtDir), tmp, in.overlay, needsRuntimeUpgrade(mod.GoVersion)); err != nil {
		return nil, err
	}
	return in, nil
}

// graphMode is what load asks the go command about the test's build: the
// import graph with each package's files and module, and no export data
// (which would compile every package it lists, the test's own included).
const graphMode = packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles | packages.NeedImports |
	packages.NeedDeps | packages.NeedModule | packages.NeedTypesSizes

// load returns, parsed and type-checked from source, the main module's
// packages in the build of pkg's test binary (pkg's test variants, and the
// packages they import), and the main module and pkg's import path. The
// packages outside only, when only is not empty, are checked without
// their function bodies: they are not instrumented.
//
// The types of every package outside the main module come from export data
// in the build cache. Asking go/packages for types would compile the
// test's own packages too, for export data nobody reads: in a fresh
// worktree that took kong's load from 0.6 s to 1.7 s.
func load(ctx context.Context, dir, pkg string, only []string, env goEnv) ([]*packages.Package, *packages.Module, string, error) {
	graph, err := packages.Load(&packages.Config{Context: ctx, Dir: dir, Env: env.full(), Tests: true, Mode: graphMode}, pkg)
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
	// The test binary's main package imports what its build holds; a
	// package without test files has none, and its build is the package.
	var mains []*packages.Package
	for _, p := range graph {
		if p.Name == "main" && strings.HasSuffix(p.PkgPath, ".test") {
			for _, path := range slices.Sorted(maps.Keys(p.Imports)) {
				mains = append(mains, p.Imports[path])
			}
		}
	}
	if len(mains) == 0 {
		mains = graph
	}
	// Source: the main module's packages, and the test variants of any
	// other (a dependency that imports the package under test is
	// compiled again for the test, and has no export data of its own).
	fromSource := func(p *packages.Package) bool {
		return p.Module != nil && p.Module.Main || strings.Contains(p.ID, " [")
	}
	var order []*packages.Package // dependencies first
	outside := map[string]bool{}  // IDs of the imports whose types come from export data
	seen := map[string]bool{}
	var visit func(p *packages.Package)
	visit = func(p *packages.Package) {
		if p == nil || seen[p.ID] {
			return
		}
		seen[p.ID] = true
		if !fromSource(p) {
			if p.ID != "unsafe" {
				outside[p.ID] = true
			}
			return
		}
		for _, path := range slices.Sorted(maps.Keys(p.Imports)) {
			visit(p.Imports[path])
		}
		order = append(order, p)
	}
	for _, p := range mains {
		visit(p)
	}
	exports, err := exportFiles(ctx, dir, env, slices.Sorted(maps.Keys(outside)))
	if err != nil {
		return nil, nil, "", fmt.Errorf("loading %s: %w", pkg, err)
	}
	fset := token.NewFileSet()
	gc := importer.ForCompiler(fset, "gc", func(id string) (io.ReadCloser, error) {
		f := exports[id]
		if f == "" {
			return nil, fmt.Errorf("no export data for %s", id)
		}
		return os.Open(f)
	})
	checked := map[string]*types.Package{} // by ID
	for _, p := range order {
		full := p.Module != nil && p.Module.Main && selectedPackage(mod.Path, only, strings.TrimSuffix(p.PkgPath, "_test"))
		checkSource(p, fset, full, func(path string) (*types.Package, error) {
			dep := p.Imports[path]
			switch {
			case path == "unsafe":
				return types.Unsafe, nil
			case dep == nil:
				return nil, fmt.Errorf("%s does not import %q", p.PkgPath, path)
			case checked[dep.ID] != nil:
				return checked[dep.ID], nil
			}
			return gc.Import(dep.ID)
		})
		checked[p.ID] = p.Types
	}
	var out []*packages.Package
	for _, p := range order {
		if p.Module != nil && p.Module.Main {
			out = append(out, p)
		}
	}
	return out, mod, target, nil
}

// goEnv is what the go commands of an instrumentation get beyond the
// allow-list: proc.GoEnv's passthrough names and additions.
type goEnv struct{ passthrough, extra []string }

// full is the whole environment, for go/packages, which takes no other.
func (e goEnv) full() []string { return proc.GoEnv(e.passthrough, e.extra, "") }

// exportFiles returns the export data files of the packages ids and of
// their dependencies, by import path, as go list gives them.
func exportFiles(ctx context.Context, dir string, env goEnv, ids []string) (map[string]string, error) {
	files := map[string]string{}
	if len(ids) == 0 {
		return files, nil
	}
	var stdout, stderr bytes.Buffer
	res, err := proc.GoInvocation{
		Verb: "list", BuildFlags: []string{"-deps", "-export", "-json=ImportPath,Export", "--"}, Args: ids,
		Dir: dir, Env: env.extra, Passthrough: env.passthrough, Stdout: &stdout, Stderr: &stderr,
	}.Run(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing export data: %w", err)
	}
	if res.ExitCode != 0 {
		return nil, fmt.Errorf("listing export data: exit status %d\n%s", res.ExitCode, stderr.Bytes())
	}
	dec := json.NewDecoder(&stdout)
	for {
		var p struct{ ImportPath, Export string }
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			return files, nil
		} else if err != nil {
			return nil, fmt.Errorf("listing export data: %w", err)
		}
		files[p.ImportPath] = p.Export
	}
}

// checkSource parses p's compiled files and type-checks them, as
// go/packages would with types requested, filling p's Fset, Syntax, Types,
// TypesInfo and Errors. Without full, function bodies are not checked.
func checkSource(p *packages.Package, fset *token.FileSet, full bool, imp importerFunc) {
	p.Fset = fset
	p.Syntax = make([]*ast.File, 0, len(p.CompiledGoFiles))
	for _, name := range p.CompiledGoFiles {
		f, err := parser.ParseFile(fset, name, nil, parser.AllErrors|parser.ParseComments)
		if f != nil {
			p.Syntax = append(p.Syntax, f)
		}
		if err != nil {
			p.Errors = append(p.Errors, packages.Error{Pos: name, Msg: err.Error(), Kind: packages.ParseError})
		}
	}
	if len(p.Syntax) != len(p.CompiledGoFiles) {
		// Files and syntax must pair up for the rewriter.
		p.Syntax, p.TypesInfo = nil, nil
		return
	}
	p.TypesInfo = &types.Info{
		Types:        map[ast.Expr]types.TypeAndValue{},
		Defs:         map[*ast.Ident]types.Object{},
		Uses:         map[*ast.Ident]types.Object{},
		Implicits:    map[ast.Node]types.Object{},
		Instances:    map[*ast.Ident]types.Instance{},
		Scopes:       map[ast.Node]*types.Scope{},
		Selections:   map[*ast.SelectorExpr]*types.Selection{},
		FileVersions: map[*ast.File]string{},
	}
	conf := types.Config{
		Importer:         imp,
		Sizes:            p.TypesSizes,
		IgnoreFuncBodies: !full,
		Error: func(err error) {
			if te, ok := err.(types.Error); ok {
				p.Errors = append(p.Errors, packages.Error{Pos: te.Fset.Position(te.Pos).String(), Msg: te.Msg, Kind: packages.TypeError})
			}
		},
	}
	if p.Module != nil && p.Module.GoVersion != "" {
		conf.GoVersion = "go" + p.Module.GoVersion
	}
	p.Types = types.NewPackage(p.PkgPath, p.Name)
	_ = types.NewChecker(&conf, fset, p.Types, p.TypesInfo).Files(p.Syntax) // errors went to conf.Error
}

// importerFunc is a types.Importer made of a function.
type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }

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
			tab.Skipped = append(tab.Skipped, trace.Skip{Pos: trace.Pos{File: relName}, Reason: fmt.Sprint("rewriter: ", e)})
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
				if isHarnessFunc(name, "Benchmark") || runByPattern(name) && !runs(name) {
					pos := p.Fset.Position(fd.Name.Pos())
					if _, ok := leave[funcKey{pos.Filename, pos.Line}]; !ok {
						leave[funcKey{pos.Filename, pos.Line}] = ""
					}
				}
			}
		}
	}
}

// idleExternalTest returns the files of target's external test package
// (package x_test), as a set, when the traced run needs nothing of it:
// none of its Test, Fuzz or Example functions is one runs selects, it has
// no TestMain and no init function, its package-level variables are
// initialised without calls or receives, and every package it imports is
// in the build of the package under test too, so no initialisation
// depends on it. The build then compiles it as an empty package. It is
// compiled after the package under test, on the build's critical path,
// and none of it runs: kong's took 0.8 s of a 5 s traced build.
func idleExternalTest(all map[string]*packages.Package, target string, runs func(string) bool) map[string]bool {
	var x *packages.Package
	reach := map[string]bool{} // IDs in the build of the package under test
	var visit func(p *packages.Package)
	visit = func(p *packages.Package) {
		if p == nil || reach[p.ID] {
			return
		}
		reach[p.ID] = true
		for _, dep := range p.Imports {
			visit(dep)
		}
	}
	for _, p := range all {
		switch p.PkgPath {
		case target + "_test":
			x = p
		case target:
			visit(p)
		}
	}
	if x == nil || x.TypesInfo == nil || len(x.Syntax) != len(x.CompiledGoFiles) {
		return nil
	}
	for _, dep := range x.Imports {
		if !reach[dep.ID] {
			return nil
		}
	}
	for _, f := range x.Syntax {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				name := d.Name.Name
				if d.Recv == nil && (name == "init" || name == "TestMain" || runByPattern(name) && runs(name)) {
					return nil
				}
			case *ast.GenDecl:
				if d.Tok == token.VAR && !callFree(x.TypesInfo, d) {
					return nil
				}
			}
		}
	}
	files := map[string]bool{}
	for _, name := range x.CompiledGoFiles {
		files[name] = true
	}
	return files
}

// callFree reports whether n calls nothing (conversions aside) and
// receives nothing outside the function literals it holds.
func callFree(info *types.Info, n ast.Node) bool {
	free := true
	ast.Inspect(n, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			if !info.Types[n.Fun].IsType() {
				free = false
			}
		case *ast.UnaryExpr:
			if n.Op == token.ARROW {
				free = false
			}
		}
		return free
	})
	return free
}

// runByPattern reports whether go test starts a top-level function of this
// name when -run selects it: a Test, Fuzz or Example function.
func runByPattern(name string) bool {
	return isHarnessFunc(name, "Test") || isHarnessFunc(name, "Fuzz") || isHarnessFunc(name, "Example")
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
