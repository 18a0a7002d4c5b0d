package semantic

import (
	"go/ast"
	"go/token"
	"os"
	"path"
	"slices"
	"strings"
)

// ConstUse is a package-level constant that a cause's statement reads. Its
// value is fixed when the program is compiled, so the trace never records
// it being written; a change to its declaration still changes what the
// statement computes, and the tree names the declaration with the
// statement.
type ConstUse struct {
	Name string
	Loc  Loc    // the constant's declaration
	Text string // the declaration as written ("name = value")
}

// constantsOf returns the package-level constants of their own package
// that the statements of events name, once each, in order of use. A name
// that the statement's function declares for itself (a parameter or local
// of the same name) is not a use of the constant.
func (a *Analysis) constantsOf(events []int) []ConstUse {
	var out []ConstUse
	for _, i := range events {
		s := a.siteOfStmt(i)
		if s == nil || s.Pos.File == "" {
			continue
		}
		p, err := a.src.find(s.Pos.File, s.Pos.Line, s.Pos.Col)
		if err != nil {
			continue
		}
		stmt, fn := statementOf(p.path)
		if stmt == nil {
			continue
		}
		consts := a.src.consts(path.Dir(s.Pos.File))
		var names []string
		for _, part := range evaluated(stmt) {
			names = append(names, identsIn(part)...)
		}
		for _, name := range names {
			u, ok := consts[name]
			if !ok || declaredIn(fn, name) || slices.ContainsFunc(out, func(o ConstUse) bool { return o.Name == name }) {
				continue
			}
			out = append(out, u)
		}
	}
	return out
}

// statementOf returns the innermost statement (or package-level value
// spec) on a path from the node outwards, and the function declaring it.
func statementOf(path []ast.Node) (stmt ast.Node, fn ast.Node) {
	for _, n := range path {
		switch n := n.(type) {
		case ast.Stmt, *ast.ValueSpec:
			if stmt == nil {
				stmt = n
			}
		case *ast.FuncDecl, *ast.FuncLit:
			if fn == nil {
				fn = n
			}
		}
	}
	return stmt, fn
}

// evaluated returns the parts of stmt that its own event evaluates: a
// compound statement's header, not its body.
func evaluated(stmt ast.Node) []ast.Node {
	var out []ast.Node
	// Absent parts are nil interfaces, and stay nil as ast.Node.
	add := func(ns ...ast.Node) {
		for _, n := range ns {
			if n != nil {
				out = append(out, n)
			}
		}
	}
	switch s := stmt.(type) {
	case *ast.IfStmt:
		add(s.Init, s.Cond)
	case *ast.ForStmt:
		add(s.Init, s.Cond, s.Post)
	case *ast.RangeStmt:
		add(s.X)
	case *ast.SwitchStmt:
		add(s.Init, s.Tag)
	case *ast.TypeSwitchStmt:
		add(s.Init, s.Assign)
	case *ast.CaseClause:
		for _, e := range s.List {
			add(e)
		}
	case *ast.BlockStmt, *ast.SelectStmt, *ast.LabeledStmt:
	default:
		add(stmt)
	}
	return out
}

// identsIn lists the identifiers n reads by their own name: not a field or
// method selected from something, not a package-qualified name.
func identsIn(n ast.Node) []string {
	var out []string
	ast.Inspect(n, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			ast.Inspect(n.X, func(m ast.Node) bool {
				if id, ok := m.(*ast.Ident); ok && m != n.X {
					out = append(out, id.Name)
				}
				return true
			})
			return false
		case *ast.KeyValueExpr:
			// A struct literal's key is a field name; its value is read.
			if _, ok := n.Key.(*ast.Ident); ok {
				ast.Inspect(n.Value, func(m ast.Node) bool {
					if id, ok := m.(*ast.Ident); ok {
						out = append(out, id.Name)
					}
					return true
				})
				return false
			}
		case *ast.Ident:
			out = append(out, n.Name)
		}
		return true
	})
	return out
}

// declaredIn reports whether fn (a *ast.FuncDecl or *ast.FuncLit, or nil)
// declares name as a parameter, result, receiver or local.
func declaredIn(fn ast.Node, name string) bool {
	if fn == nil {
		return false
	}
	found := false
	ast.Inspect(fn, func(n ast.Node) bool {
		if found {
			return false
		}
		switch n := n.(type) {
		case *ast.Field:
			found = slices.ContainsFunc(n.Names, func(id *ast.Ident) bool { return id.Name == name })
		case *ast.AssignStmt:
			if n.Tok == token.DEFINE {
				found = slices.ContainsFunc(n.Lhs, func(e ast.Expr) bool { id, ok := e.(*ast.Ident); return ok && id.Name == name })
			}
		case *ast.ValueSpec:
			found = slices.ContainsFunc(n.Names, func(id *ast.Ident) bool { return id.Name == name })
		case *ast.RangeStmt:
			if n.Tok == token.DEFINE {
				for _, e := range []ast.Expr{n.Key, n.Value} {
					if id, ok := e.(*ast.Ident); ok && id.Name == name {
						found = true
					}
				}
			}
		}
		return !found
	})
	return found
}

// consts returns the package-level constants declared in the non-test Go
// files of dir (relative to the module root), by name. A file that does not
// parse is left out.
func (s *sources) consts(dir string) map[string]ConstUse {
	if m, ok := s.constsByDir[dir]; ok {
		return m
	}
	m := map[string]ConstUse{}
	s.constsByDir[dir] = m
	entries, err := os.ReadDir(path.Join(s.dir, dir))
	if err != nil {
		return m
	}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		rel := path.Join(dir, name)
		f, err := s.file(rel)
		if err != nil {
			continue
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, spec := range g.Specs {
				vs := spec.(*ast.ValueSpec)
				for _, id := range vs.Names {
					if id.Name == "_" {
						continue
					}
					pos := s.fset.Position(id.Pos())
					m[id.Name] = ConstUse{Name: id.Name, Loc: Loc{File: rel, Line: pos.Line}, Text: s.text(rel, vs)}
				}
			}
		}
	}
	return m
}

// text returns n's source in file, on one line, shortened to 200 bytes.
func (s *sources) text(file string, n ast.Node) string {
	src := s.src[file]
	start, end := s.fset.Position(n.Pos()).Offset, s.fset.Position(n.End()).Offset
	if start < 0 || end > len(src) || start > end {
		return ""
	}
	t := strings.Join(strings.Fields(string(src[start:end])), " ")
	if len(t) > 200 {
		t = t[:200] + "…"
	}
	return t
}
