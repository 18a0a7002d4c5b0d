package instrument

import (
	"go/ast"
	"path"
	"slices"
	"strconv"

	"golang.org/x/tools/go/packages"
)

// Instrumented builds use -trimpath when the module lets them. Without it
// the go command keys every compiled package by its directory, and each
// checkout (base, head, a variant, every temporary module) has its own:
// the tracing runtime and the unchanged packages are compiled again for
// each build and pile up in the build cache, never to be used again. With
// it they are compiled once and shared by every build of the same module
// path and flags.
//
// The price is the source paths the binary records: module-relative
// instead of absolute. A test that finds its files through them (a
// runtime.Caller(0) beside its testdata) or prints them would run
// otherwise when traced, so a module whose code can read them is built as
// it is.

// pathReaders are the functions through which code reads the source paths
// of the running binary, by package path.
var pathReaders = map[string]map[string]bool{
	"runtime":       {"Caller": true, "Callers": true, "CallersFrames": true, "FuncForPC": true, "Stack": true},
	"runtime/debug": {"Stack": true, "PrintStack": true},
	"log":           {"Llongfile": true},
}

// readsSourcePaths reports whether a file of the module's packages refers
// to one of pathReaders (or dot-imports their package).
func readsSourcePaths(pkgs map[string]*packages.Package) bool {
	for _, p := range pkgs {
		if p.Module == nil || !p.Module.Main {
			continue
		}
		if slices.ContainsFunc(p.Syntax, fileReadsPaths) {
			return true
		}
	}
	return false
}

// fileReadsPaths reports whether f refers to one of pathReaders through
// its imports. A name shadowed by a local is still counted: the check
// only decides whether a build may trim its paths, and a false alarm
// costs a slower build, not a wrong trace.
func fileReadsPaths(f *ast.File) bool {
	local := map[string]map[string]bool{} // local package name -> readers
	for _, im := range f.Imports {
		ip, err := strconv.Unquote(im.Path.Value)
		names, ok := pathReaders[ip]
		if err != nil || !ok {
			continue
		}
		name := path.Base(ip)
		if im.Name != nil {
			name = im.Name.Name
		}
		switch name {
		case ".":
			return true
		case "_":
			continue
		}
		local[name] = names
	}
	if len(local) == 0 {
		return false
	}
	found := false
	ast.Inspect(f, func(n ast.Node) bool {
		if found {
			return false
		}
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok && local[id.Name][sel.Sel.Name] {
				found = true
			}
		}
		return true
	})
	return found
}
