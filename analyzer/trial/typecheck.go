package trial

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/scanner"
	"go/token"
	"go/types"
	"io"
	"maps"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
)

// A variant whose reverted hunks no longer fit together (a use of a
// variable whose declaration was not reverted, a test calling a method
// the revert removed) is common in the searches: most of the variants
// they try that do not compile fail this way. The go command takes a
// second or more to say so; go/types says it in milliseconds, in process.
//
// typeChecker answers only "does not compile": it type-checks the
// changed packages of a variant against the export data of head's
// unchanged packages, and only where that is exactly what the compiler
// would see. Whenever it cannot be sure (a package outside the test's
// build, an import of a package the build does not hold or of one of the
// repository's own, build constraints, cgo, another changed package among
// the dependencies) it says nothing and the go command decides.

// listed is one package of the test's build as go list describes it.
type listed struct {
	ImportPath   string
	Name         string
	Dir          string
	ForTest      string
	Export       string
	GoFiles      []string
	CgoFiles     []string
	TestGoFiles  []string
	XTestGoFiles []string
	Deps         []string
	ImportMap    map[string]string
	Module       *struct{ GoVersion string }
	// Files the package embeds (//go:embed), relative to Dir.
	EmbedFiles, TestEmbedFiles, XTestEmbedFiles []string
}

// typeChecker is loaded once per runner, on first use.
type typeChecker struct {
	once sync.Once
	off  bool // loading failed: every variant goes to the go command

	mu      sync.Mutex // one check at a time: the importer is not safe for concurrent use
	fset    *token.FileSet
	imp     types.ImporterFrom
	byDir   map[string]*listed // non-test packages by repository-relative directory
	test    *listed            // the test's package compiled with its _test.go files
	xtest   *listed            // its external test package, if any
	goVer   string
	parsed  map[string]*ast.File // head files by repository-relative path
	exports map[string]string    // import path → export data file
	deps    map[string][]string  // the build's packages outside the repository, by import path: their dependencies
	embeds  []string             // repository-relative directories of the build's packages that embed files
	// recompiled: a package of the build other than the tests imports
	// the package under test (the build compiles it again for the test,
	// "q [p.test]", or takes head's), so the external test cannot be
	// checked against export data.
	recompiled bool
}

// load lists the test's build in the head worktree.
func (tc *typeChecker) load(ctx context.Context, r *Runner) {
	tc.off = true
	cwd := filepath.Join(r.wtHead, filepath.FromSlash(r.prefix))
	out, err := r.goCommand(ctx, cwd, false, "list", "-deps", "-test", "-export",
		"-json=ImportPath,Name,Dir,ForTest,Export,GoFiles,CgoFiles,TestGoFiles,XTestGoFiles,Deps,ImportMap,Module,EmbedFiles,TestEmbedFiles,XTestEmbedFiles", r.cfg.Pkg)
	if err != nil || out.exitCode != 0 || out.timedOut {
		return
	}
	tc.fset = token.NewFileSet()
	tc.byDir = map[string]*listed{}
	tc.exports = map[string]string{}
	tc.deps = map[string][]string{}
	tc.parsed = map[string]*ast.File{}
	dec := json.NewDecoder(bytes.NewReader(out.stdout))
	for {
		p := new(listed)
		if err := dec.Decode(p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return
		}
		rel, err := filepath.Rel(r.wtHead, p.Dir)
		if err != nil || strings.HasPrefix(rel, "..") {
			rel = "" // outside the repository: never changed by a variant
		}
		rel = filepath.ToSlash(rel)
		if rel != "" && len(p.EmbedFiles)+len(p.TestEmbedFiles)+len(p.XTestEmbedFiles) > 0 {
			tc.embeds = append(tc.embeds, rel)
		}
		switch {
		case p.Name == "main" && strings.HasSuffix(p.ImportPath, ".test"):
			// the generated test main
		case p.ForTest == "" && !strings.Contains(p.ImportPath, " "):
			tc.exports[p.ImportPath] = p.Export
			if rel != "" {
				tc.byDir[rel] = p
			} else {
				tc.deps[p.ImportPath] = p.Deps
			}
		case rel == r.pkgDir && strings.HasSuffix(p.ImportPath, "_test ["+p.ForTest+".test]"):
			tc.xtest = p
		case rel == r.pkgDir && p.ImportPath == p.ForTest+" ["+p.ForTest+".test]":
			tc.test = p
		case p.ForTest != "":
			// A package the external test imports that imports the
			// package under test, compiled again for the test.
			tc.recompiled = true
		}
	}
	switch {
	case tc.test == nil && tc.byDir[r.pkgDir] == nil:
		return
	case tc.test == nil:
		tc.test = tc.byDir[r.pkgDir] // no internal test files: the package as it is
	case tc.byDir[r.pkgDir] == nil:
		tc.byDir[r.pkgDir] = tc.test
	}
	// Without internal test files the build does not compile the
	// importers again: they import the package under test as head's
	// export data has it, another package than the one checked from
	// source.
	underTest := importPathOf(tc.test)
	for _, pkg := range tc.byDir {
		tc.recompiled = tc.recompiled || slices.Contains(pkg.Deps, underTest)
	}
	for _, deps := range tc.deps {
		tc.recompiled = tc.recompiled || slices.Contains(deps, underTest)
	}
	if m := tc.test.Module; m != nil && m.GoVersion != "" {
		tc.goVer = "go" + m.GoVersion
	}
	tc.imp = importer.ForCompiler(tc.fset, "gc", func(p string) (io.ReadCloser, error) {
		f, ok := tc.exports[p]
		if !ok || f == "" {
			return nil, fmt.Errorf("no export data for %s", p)
		}
		return os.Open(f)
	}).(types.ImporterFrom)
	tc.off = false
}

// inProcess type-checks the variant and answers for the go command when
// it can: a BuildError result when the variant certainly does not compile,
// and, for a compile-only request (build), a Pass when it certainly does.
// ok is false when the go command must decide.
func (r *Runner) inProcess(ctx context.Context, v variant, build bool) (res Result, ok bool) {
	if r.cfg.Mode != ModeGo || len(v.files)+len(v.deleted) == 0 {
		return Result{}, false
	}
	tc := &r.checker
	tc.once.Do(func() { tc.load(ctx, r) })
	if tc.off || !tc.onlyGoMatters(v) {
		return Result{}, false
	}
	tc.mu.Lock()
	defer tc.mu.Unlock()
	start := time.Now()
	changed, dirs, ok := tc.changed(v)
	if !ok {
		return Result{}, false
	}
	msgs := tc.check(v, r.pkgDir, changed, dirs)
	compiles := false
	if len(msgs) == 0 {
		msgs, compiles = tc.judge(v, r.pkgDir, changed)
	}
	switch {
	case len(msgs) > 0:
		text := strings.Join(msgs, "\n")
		return Result{Outcome: BuildError, Message: tail(text, maxMessage), Output: tail(text, maxOutput),
			Duration: time.Since(start), TypeChecked: true}, true
	case build && compiles:
		return Result{Outcome: Pass, Duration: time.Since(start), TypeChecked: true}, true
	}
	return Result{}, false
}

// check returns the type errors of the variant's changed packages (as
// changed gives them) that can be checked exactly, as compiler messages
// with repository-relative paths; none when it cannot tell.
func (tc *typeChecker) check(v variant, pkgDir string, changed map[string]bool, dirs map[string]*listed) []string {
	for _, dir := range slices.Sorted(maps.Keys(dirs)) {
		pkg := dirs[dir]
		if dir == pkgDir {
			pkg = tc.test
		}
		if dependsOnChanged(pkg, changed, "") {
			continue
		}
		// The test's package as go list gives it holds its _test.go files
		// among its GoFiles.
		files, msgs, ok := tc.files(v, dir, tc.compiled(v, dir, pkg.GoFiles))
		if !ok || len(msgs) > 0 {
			return msgs
		}
		checked, msgs, sure := tc.typeCheck(pkg, files, nil)
		if !sure {
			return nil
		}
		if len(msgs) > 0 {
			return msgs
		}
		if dir != pkgDir || tc.xtest == nil || tc.recompiled || dependsOnChanged(tc.xtest, changed, checked.Path()) {
			continue
		}
		if files, msgs, ok = tc.files(v, dir, tc.xtest.GoFiles); !ok || len(msgs) > 0 {
			return msgs
		}
		if _, msgs, sure = tc.typeCheck(tc.xtest, files, map[string]*types.Package{checked.Path(): checked}); !sure {
			return nil
		}
		if len(msgs) > 0 {
			return msgs
		}
	}
	return nil
}

// judge checks from the variant's source every package of the test's
// build that the variant changes, or that imports one it changes,
// dependencies first, each against those already checked and head's
// export data for the rest. It stops at the first package with an error,
// whose dependencies have then all been checked, so its messages are the
// compiler's (msgs); compiles is true when none has one. Both are empty
// when it cannot check all of them exactly: a package of the build that imports the package under test (compiled
// again for the test, or taken from head's export data beside the one
// checked here), a package of another module that imports the changed
// code.
func (tc *typeChecker) judge(v variant, pkgDir string, changed map[string]bool) (msgs []string, compiles bool) {
	if len(changed) == 0 || tc.recompiled {
		return nil, false
	}
	for _, deps := range tc.deps {
		if slices.ContainsFunc(deps, func(d string) bool { return changed[d] }) {
			return nil, false
		}
	}
	var order []string // directories of the non-test packages to check
	for dir, pkg := range tc.byDir {
		if dir != pkgDir && (changed[importPathOf(pkg)] || dependsOnChanged(pkg, changed, "")) {
			order = append(order, dir)
		}
	}
	// A package's dependencies are a subset of those of any package that
	// imports it: fewer dependencies first is an order in which every
	// package comes after what it imports.
	slices.SortFunc(order, func(a, b string) int {
		return cmp.Or(cmp.Compare(len(tc.byDir[a].Deps), len(tc.byDir[b].Deps)), cmp.Compare(a, b))
	})
	local := map[string]*types.Package{}
	check := func(pkg *listed, dir string, names []string) (msgs []string, ok bool) {
		files, msgs, ok := tc.files(v, dir, names)
		if !ok || len(msgs) > 0 {
			return msgs, false
		}
		checked, msgs, sure := tc.typeCheck(pkg, files, local)
		if !sure || len(msgs) > 0 {
			return msgs, false
		}
		local[checked.Path()] = checked
		return nil, true
	}
	for _, dir := range order {
		if msgs, ok := check(tc.byDir[dir], dir, tc.compiled(v, dir, tc.byDir[dir].GoFiles)); !ok {
			return msgs, false
		}
	}
	// The package under test, with its _test.go files (a directory of
	// external tests only has none), then its external test, which
	// imports it under its own path.
	if names := tc.compiled(v, pkgDir, tc.test.GoFiles); len(names) > 0 {
		if msgs, ok := check(tc.test, pkgDir, names); !ok {
			return msgs, false
		}
	}
	if tc.xtest == nil {
		return nil, true
	}
	return check(tc.xtest, pkgDir, tc.xtest.GoFiles)
}

// importPathOf is the package's import path without go list's "[p.test]".
func importPathOf(pkg *listed) string {
	p, _, _ := strings.Cut(pkg.ImportPath, " [")
	return p
}

// dependsOnChanged reports whether a dependency of pkg is a changed
// package or depends on one: its export data would then be head's, not the
// variant's. self is the package an external test tests: its variant is
// checked first and given to the test, but no other dependency may import
// it (those are the dependencies go list names "q [p.test]").
func dependsOnChanged(pkg *listed, changed map[string]bool, self string) bool {
	for _, d := range pkg.Deps {
		base, _, forTest := strings.Cut(d, " [")
		if base == self {
			continue
		}
		if changed[base] || self != "" && forTest {
			return true
		}
	}
	return false
}

// compiled returns names, a package's compiled files at head, with the
// non-test Go files of dir that the variant restores (changed accepted
// them): the files the go command compiles for that package.
func (tc *typeChecker) compiled(v variant, dir string, names []string) []string {
	var out []string
	for p := range v.files {
		if path.Dir(p) == dir && strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") && !slices.Contains(names, path.Base(p)) {
			out = append(out, path.Base(p))
		}
	}
	if len(out) == 0 {
		return names
	}
	slices.Sort(out)
	return append(slices.Clone(names), out...)
}

// files parses the package's files in the variant: the variant's content
// where it differs from head, head's parse elsewhere. syntax holds the
// variant's syntax errors; ok is false when a head file cannot be read.
func (tc *typeChecker) files(v variant, dir string, names []string) (files []*ast.File, syntax []string, ok bool) {
	for _, n := range names {
		p := path.Join(dir, n)
		if slices.Contains(v.deleted, p) {
			continue
		}
		if data, ok := v.files[p]; ok {
			f, err := parser.ParseFile(tc.fset, p, data, parser.SkipObjectResolution)
			var list scanner.ErrorList
			if errors.As(err, &list) {
				for _, e := range list {
					syntax = append(syntax, e.Error())
				}
				continue
			} else if err != nil {
				return nil, nil, false
			}
			files = append(files, f)
			continue
		}
		f, ok := tc.head(p)
		if !ok {
			return nil, nil, false
		}
		files = append(files, f)
	}
	if len(syntax) > 0 {
		syntax = append([]string{"# syntax errors (parsed in process)"}, syntax[:min(len(syntax), 10)]...)
	}
	return files, syntax, true
}

// typeCheck checks one package. An import found in local (by import path)
// is that package as checked from the variant's source; any other comes
// from head's export data. sure is false when an import could not be
// resolved.
func (tc *typeChecker) typeCheck(pkg *listed, files []*ast.File, local map[string]*types.Package) (checked *types.Package, msgs []string, sure bool) {
	importPath, _, _ := strings.Cut(pkg.ImportPath, " [")
	sure = true
	var errs []error
	conf := types.Config{
		GoVersion: tc.goVer,
		Sizes:     types.SizesFor("gc", runtime.GOARCH),
		Importer: importerFunc(func(p, dir string, mode types.ImportMode) (*types.Package, error) {
			if m, ok := pkg.ImportMap[p]; ok {
				p, _, _ = strings.Cut(m, " [") // "p [p.test]": the package under test
			}
			if lp, ok := local[p]; ok {
				return lp, nil
			}
			if p == "unsafe" {
				return types.Unsafe, nil
			}
			ip, err := tc.imp.ImportFrom(p, dir, mode)
			if err != nil {
				sure = false
			}
			return ip, err
		}),
		Error: func(err error) { errs = append(errs, err) },
	}
	checked, _ = conf.Check(importPath, tc.fset, files, nil)
	for _, err := range errs {
		var te types.Error
		if !errors.As(err, &te) {
			sure = false // not about the code: the checker's own trouble
		}
	}
	if !sure {
		return nil, nil, false
	}
	msgs = compilerMessages(tc.fset, errs)
	if len(msgs) > 0 {
		msgs = append([]string{"# " + pkg.ImportPath + " (type-checked in process)"}, msgs...)
	}
	return checked, msgs, true
}

type importerFunc func(path, dir string, mode types.ImportMode) (*types.Package, error)

func (f importerFunc) Import(p string) (*types.Package, error) { return f(p, "", 0) }
func (f importerFunc) ImportFrom(p, dir string, mode types.ImportMode) (*types.Package, error) {
	return f(p, dir, mode)
}

// compilerMessages words type errors as the compiler prints them: in
// position order, the first error of a line only, at most ten.
func compilerMessages(fset *token.FileSet, errs []error) []string {
	type at struct {
		pos token.Position
		msg string
	}
	var list []at
	for _, err := range errs {
		var te types.Error
		if errors.As(err, &te) {
			list = append(list, at{fset.Position(te.Pos), te.Msg})
		}
	}
	slices.SortStableFunc(list, func(a, b at) int {
		return cmp.Or(cmp.Compare(a.pos.Filename, b.pos.Filename), cmp.Compare(a.pos.Line, b.pos.Line), cmp.Compare(a.pos.Column, b.pos.Column))
	})
	var msgs []string
	for i, e := range list {
		if i > 0 && e.pos.IsValid() && e.pos.Filename == list[i-1].pos.Filename && e.pos.Line == list[i-1].pos.Line {
			continue
		}
		if len(msgs) == 10 {
			msgs = append(msgs, "too many errors")
			break
		}
		if e.pos.IsValid() {
			msgs = append(msgs, e.pos.String()+": "+e.msg)
		} else {
			msgs = append(msgs, e.msg)
		}
	}
	return msgs
}
