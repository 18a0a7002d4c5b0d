package gotest

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// ErrTestNotFound is returned by FindPackage when no package declares the
// test.
var ErrTestNotFound = errors.New("test not found")

// FindPackage returns the package ("./dir", or "." for root itself) whose
// _test.go files declare the top-level test of testName (a "Top/sub" path).
// It skips vendor, testdata, hidden and underscore directories and nested
// modules. No match is an error wrapping ErrTestNotFound; several matching
// packages are an error naming them.
func FindPackage(root, testName string) (string, error) {
	top, _, _ := strings.Cut(testName, "/")
	if top == "" {
		return "", fmt.Errorf("finding package of test %q: empty name", testName)
	}
	found := map[string]bool{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p == root {
				return nil
			}
			name := d.Name()
			if name == "vendor" || name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, "_test.go") || !d.Type().IsRegular() {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return fmt.Errorf("parsing %s: %w", p, err)
		}
		for _, decl := range f.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.Name == top {
				found[filepath.Dir(p)] = true
			}
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("finding package of test %s: %w", top, err)
	}
	var pkgs []string
	for dir := range found {
		rel, err := filepath.Rel(root, dir)
		if err != nil {
			return "", fmt.Errorf("finding package of test %s: %w", top, err)
		}
		if rel == "." {
			pkgs = append(pkgs, ".")
		} else {
			pkgs = append(pkgs, "./"+filepath.ToSlash(rel))
		}
	}
	sort.Strings(pkgs)
	switch len(pkgs) {
	case 0:
		return "", fmt.Errorf("finding package of test %s in %s: %w", top, root, ErrTestNotFound)
	case 1:
		return pkgs[0], nil
	}
	return "", fmt.Errorf("finding package of test %s: declared in several packages: %s", top, strings.Join(pkgs, ", "))
}
