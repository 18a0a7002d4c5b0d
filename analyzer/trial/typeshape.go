package trial

import (
	"bytes"
	"go/ast"
	"go/build"
	"go/build/constraint"
	"go/parser"
	"go/token"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Which variants the type checker can place exactly: the files it may take
// in (head's files of the build, restored ones the go command would take
// too), the imports it may let a file add, and the files other than Go
// source that cannot change what the compiler sees.

// onlyGoMatters reports whether the variant's files other than Go source
// cannot change what the compiler sees: none is a module file, a file of
// another language the go command compiles, or under the directory of a
// package that embeds files. Test data and documents qualify; a run still
// reads them from a worktree, but whether the variant compiles does not
// depend on them.
func (tc *typeChecker) onlyGoMatters(v variant) bool {
	if v.modFiles() {
		return false
	}
	for _, p := range v.paths() {
		if strings.HasSuffix(p, ".go") {
			continue
		}
		switch path.Base(p) {
		case "go.work", "go.work.sum":
			return false
		}
		switch path.Ext(p) {
		case ".s", ".S", ".sx", ".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".hxx", ".m", ".f", ".F", ".for", ".f90", ".syso", ".swig", ".swigcxx":
			return false
		}
		for _, d := range tc.embeds {
			if d == "." || p == d || strings.HasPrefix(p, d+"/") {
				return false
			}
		}
	}
	return true
}

// changed returns the import paths of the packages the variant changes
// and those packages by repository-relative directory; ok is false when
// the variant touches a file the checker cannot place exactly (a file of
// no package in the build, a new file, cgo, a changed shape).
func (tc *typeChecker) changed(v variant) (changed map[string]bool, dirs map[string]*listed, ok bool) {
	changed, dirs = map[string]bool{}, map[string]*listed{}
	for _, p := range v.paths() {
		if !strings.HasSuffix(p, ".go") {
			continue // onlyGoMatters let it through
		}
		pkg := tc.byDir[path.Dir(p)]
		if pkg == nil || len(pkg.CgoFiles) > 0 {
			return nil, nil, false
		}
		data, ok := v.files[p]
		switch {
		case !tc.knows(pkg, path.Base(p)):
			if !ok || !tc.restored(pkg, p, data) {
				return nil, nil, false
			}
		case ok && !tc.sameShape(pkg, p, data):
			return nil, nil, false
		}
		changed[importPathOf(pkg)] = true
		dirs[path.Dir(p)] = pkg
	}
	return changed, dirs, true
}

// knows reports whether name is one of the package's compiled files.
// The test's own _test.go files count for its package only.
func (tc *typeChecker) knows(pkg *listed, name string) bool {
	if slices.Contains(pkg.GoFiles, name) {
		return true
	}
	return pkg.Dir == tc.test.Dir && (slices.Contains(tc.test.TestGoFiles, name) || slices.Contains(tc.test.XTestGoFiles, name))
}

// sameShape reports whether the variant's file p (data) keeps head's
// package clause and build constraints, and imports nothing that could
// change the build's package graph, so that the build's file lists are
// head's and every import resolves to the export data head's build made.
func (tc *typeChecker) sameShape(pkg *listed, p string, data []byte) bool {
	head, ok := tc.head(p)
	if !ok {
		return false
	}
	f, err := parser.ParseFile(token.NewFileSet(), p, data, parser.ImportsOnly|parser.ParseComments)
	if err != nil {
		return true // a syntax error: the check reports it
	}
	if f.Name.Name != head.Name.Name || constraints(f) != constraints(head) {
		return false
	}
	return tc.importsHeld(pkg, f, importPaths(head))
}

// importsHeld reports whether every import of f that is not in had is
// safe to add to pkg: a package outside the repository (the standard
// library or a dependency), which cannot import the changed code back, or
// one pkg already depends on, so the package graph gains no cycle.
func (tc *typeChecker) importsHeld(pkg *listed, f *ast.File, had []string) bool {
	for _, ip := range importPaths(f) {
		if _, outside := tc.deps[ip]; !slices.Contains(had, ip) && !outside && !slices.Contains(pkg.Deps, ip) {
			return false
		}
	}
	return true
}

// restored reports whether p, a Go file head does not have and the
// variant brings back (head deleted it), joins pkg exactly as the go
// command would take it: not a test file, accepted by the default build
// context (its name and build constraints), of pkg's package, no cgo, no
// import that changes the package graph. A build that names its own tags
// (GOFLAGS) is left to the go command.
func (tc *typeChecker) restored(pkg *listed, p string, data []byte) bool {
	name := path.Base(p)
	if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") || strings.Contains(os.Getenv("GOFLAGS"), "tags") {
		return false
	}
	ctxt := build.Default
	ctxt.OpenFile = func(string) (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
	if ok, err := ctxt.MatchFile(pkg.Dir, name); err != nil || !ok {
		return false
	}
	f, err := parser.ParseFile(token.NewFileSet(), p, data, parser.ImportsOnly)
	if err != nil {
		return true // a syntax error: the check reports it
	}
	return f.Name.Name == pkg.Name && !slices.Contains(importPaths(f), "C") && tc.importsHeld(pkg, f, nil)
}

// head returns head's parse of the repository-relative path p.
func (tc *typeChecker) head(p string) (*ast.File, bool) {
	if f, ok := tc.parsed[p]; ok {
		return f, f != nil
	}
	pkg := tc.byDir[path.Dir(p)]
	data, err := os.ReadFile(filepath.Join(pkg.Dir, path.Base(p)))
	var f *ast.File
	if err == nil {
		f, err = parser.ParseFile(tc.fset, p, data, parser.ParseComments|parser.SkipObjectResolution)
	}
	if err != nil {
		f = nil
	}
	tc.parsed[p] = f
	return f, f != nil
}

// importPaths returns the paths the file imports, unquoted; a path that
// does not unquote is kept as written and so matches no package.
func importPaths(f *ast.File) []string {
	var out []string
	for _, s := range f.Imports {
		p, err := strconv.Unquote(s.Path.Value)
		if err != nil {
			p = s.Path.Value
		}
		out = append(out, p)
	}
	return out
}

// constraints returns the file's build constraint lines.
func constraints(f *ast.File) string {
	var b strings.Builder
	for _, g := range f.Comments {
		if g.Pos() > f.Package {
			break
		}
		for _, c := range g.List {
			if constraint.IsGoBuild(c.Text) || constraint.IsPlusBuild(c.Text) {
				b.WriteString(c.Text + "\n")
			}
		}
	}
	return b.String()
}
