package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/tools/go/ast/astutil"
)

// declNames returns the top-level names a declaration introduces. A method is
// named "Type.Method" after its receiver's base type.
func declNames(d ast.Decl) []string {
	switch d := d.(type) {
	case *ast.FuncDecl:
		if d.Recv != nil && len(d.Recv.List) == 1 {
			if recv := receiverType(d.Recv.List[0].Type); recv != "" {
				return []string{recv + "." + d.Name.Name}
			}
		}
		return []string{d.Name.Name}
	case *ast.GenDecl:
		var names []string
		for _, s := range d.Specs {
			switch s := s.(type) {
			case *ast.TypeSpec:
				names = append(names, s.Name.Name)
			case *ast.ValueSpec:
				for _, n := range s.Names {
					names = append(names, n.Name)
				}
			}
		}
		return names
	}
	return nil
}

// receiverType is the name of a receiver's base type: T for T, *T, T[P].
func receiverType(e ast.Expr) string {
	for {
		switch t := e.(type) {
		case *ast.StarExpr:
			e = t.X
		case *ast.ParenExpr:
			e = t.X
		case *ast.IndexExpr:
			e = t.X
		case *ast.IndexListExpr:
			e = t.X
		case *ast.Ident:
			return t.Name
		default:
			return ""
		}
	}
}

// declSpan is the byte range of a declaration including its doc comment.
func declSpan(fset *token.FileSet, d ast.Decl) (int, int) {
	start := d.Pos()
	switch d := d.(type) {
	case *ast.FuncDecl:
		if d.Doc != nil {
			start = d.Doc.Pos()
		}
	case *ast.GenDecl:
		if d.Doc != nil {
			start = d.Doc.Pos()
		}
	}
	return fset.Position(start).Offset, fset.Position(d.End()).Offset
}

func findDecl(f *ast.File, name string) ast.Decl {
	for _, d := range f.Decls {
		for _, n := range declNames(d) {
			if n == name {
				return d
			}
		}
	}
	return nil
}

type edit struct {
	start, end int
	text       string
}

// splice copies the named top-level declarations of fix into dst. A
// declaration of the same name in dst is replaced in place, the others are
// appended. A nil dst yields a new file with fix's package clause. Imports the
// copied code needs are added from fix's import list; imports left unused are
// dropped.
func splice(dst, fix []byte, names []string) ([]byte, error) {
	fset := token.NewFileSet()
	ff, err := parser.ParseFile(fset, "fix.go", fix, parser.ParseComments)
	if err != nil {
		return nil, fmt.Errorf("parse fix file: %w", err)
	}
	if dst == nil {
		dst = []byte("package " + ff.Name.Name + "\n")
	}
	df, err := parser.ParseFile(fset, "dst.go", dst, parser.ParseComments)
	if err != nil {
		return nil, fmt.Errorf("parse destination file: %w", err)
	}
	var edits []edit
	var appended []string
	done := map[ast.Decl]bool{}
	for _, name := range names {
		fd := findDecl(ff, name)
		if fd == nil {
			return nil, fmt.Errorf("declaration %q not in fix file", name)
		}
		if done[fd] {
			continue
		}
		done[fd] = true
		s, e := declSpan(fset, fd)
		text := string(fix[s:e])
		if old := findDecl(df, name); old != nil {
			os, oe := declSpan(fset, old)
			edits = append(edits, edit{os, oe, text})
		} else {
			appended = append(appended, text)
		}
	}
	sort.Slice(edits, func(i, j int) bool { return edits[i].start > edits[j].start })
	out := append([]byte(nil), dst...)
	for i, e := range edits {
		if i > 0 && e.end > edits[i-1].start {
			return nil, fmt.Errorf("overlapping declarations in destination")
		}
		out = append(out[:e.start:e.start], append([]byte(e.text), out[e.end:]...)...)
	}
	if len(appended) > 0 {
		out = append(bytes.TrimRight(out, "\n"), []byte("\n\n"+strings.Join(appended, "\n\n")+"\n")...)
	}
	return fixImports(out, ff, usedNames(df))
}

var majorVersion = regexp.MustCompile(`^v[0-9]+$`)

// assumedName guesses the package name of an import path, or "" when it
// cannot be guessed safely.
func assumedName(path string) string {
	parts := strings.Split(path, "/")
	name := parts[len(parts)-1]
	if majorVersion.MatchString(name) && len(parts) > 1 {
		name = parts[len(parts)-2]
	}
	if !token.IsIdentifier(name) {
		return ""
	}
	return name
}

func importName(s *ast.ImportSpec) (path, name string) {
	path, _ = strconv.Unquote(s.Path.Value)
	if s.Name != nil {
		return path, s.Name.Name
	}
	return path, assumedName(path)
}

// usedNames collects identifiers used as the package part of a selector.
func usedNames(f *ast.File) map[string]bool {
	used := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok {
				used[id.Name] = true
			}
		}
		return true
	})
	return used
}

// fixImports adds the imports of fix that src now needs and drops the imports
// that were used before splicing (usedBefore) but are not any more.
func fixImports(src []byte, fix *ast.File, usedBefore map[string]bool) ([]byte, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "out.go", src, parser.ParseComments)
	if err != nil {
		return nil, fmt.Errorf("parse spliced file: %w", err)
	}
	used := usedNames(f)
	have := map[string]bool{}
	for _, s := range f.Imports {
		if _, name := importName(s); name != "" {
			have[name] = true
		}
	}
	for _, s := range fix.Imports {
		path, name := importName(s)
		if name == "" || name == "_" || name == "." || have[name] || !used[name] {
			continue
		}
		if s.Name != nil {
			astutil.AddNamedImport(fset, f, s.Name.Name, path)
		} else {
			astutil.AddImport(fset, f, path)
		}
		have[name] = true
	}
	for _, s := range append([]*ast.ImportSpec(nil), f.Imports...) {
		path, name := importName(s)
		if name == "" || name == "_" || name == "." || used[name] || !usedBefore[name] {
			continue
		}
		if s.Name != nil {
			astutil.DeleteNamedImport(fset, f, s.Name.Name, path)
		} else {
			astutil.DeleteImport(fset, f, path)
		}
	}
	var buf bytes.Buffer
	if err := format.Node(&buf, fset, f); err != nil {
		return nil, fmt.Errorf("format spliced file: %w", err)
	}
	return buf.Bytes(), nil
}
