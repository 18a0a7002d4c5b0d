package diffhunks

import (
	"go/ast"
	"go/parser"
	"go/token"
	"sort"
	"strings"
)

// funcSpan is a function declaration's name and its 1-based line span.
type funcSpan struct {
	name       string
	start, end int
}

// goFuncs lists the function declarations of a Go source file. A file that
// does not parse yields none: a half-edited file in a PR is normal, and
// the enclosing function is only a hint for grouping hunks.
func goFuncs(src []byte) []funcSpan {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.SkipObjectResolution)
	if err != nil {
		return nil
	}
	var spans []funcSpan
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok {
			continue
		}
		spans = append(spans, funcSpan{
			name:  funcName(fd),
			start: fset.Position(fd.Pos()).Line,
			end:   fset.Position(fd.End()).Line,
		})
	}
	return spans
}

// funcName spells a declaration as "F", "T.M" or "(*T).M"; type parameters
// of a generic receiver are dropped since they do not identify the method.
func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	t := fd.Recv.List[0].Type
	ptr := false
	if st, ok := t.(*ast.StarExpr); ok {
		ptr, t = true, st.X
	}
	switch x := t.(type) {
	case *ast.IndexExpr:
		t = x.X
	case *ast.IndexListExpr:
		t = x.X
	}
	recv := "?"
	if id, ok := t.(*ast.Ident); ok {
		recv = id.Name
	}
	if ptr {
		return "(*" + recv + ")." + fd.Name.Name
	}
	return recv + "." + fd.Name.Name
}

// enclosing returns the function whose span holds all of lines r, or "".
func enclosing(spans []funcSpan, r LineRange) string {
	if r.Len() <= 0 {
		// An insertion point between lines is inside a function when both
		// neighbouring lines are.
		r = LineRange{Start: r.End, End: r.Start}
	}
	// Top-level declarations never overlap and come in source order, so
	// the only candidate is the first one ending at or after r.End.
	i := sort.Search(len(spans), func(i int) bool { return spans[i].end >= r.End })
	if i < len(spans) && spans[i].start <= r.Start {
		return spans[i].name
	}
	return ""
}

// IsGo reports whether the hunk touches a Go source file.
func (h Hunk) IsGo() bool {
	return strings.HasSuffix(h.File, ".go") || strings.HasSuffix(h.OldFile, ".go")
}

// assignFuncs sets Func on every Modify hunk of a Go file. Each file is
// parsed at most once per side.
func (s *Set) assignFuncs() {
	cache := map[string][]funcSpan{}
	spansOf := func(side string, m map[string]file, path string) []funcSpan {
		key := side + "\x00" + path
		sp, ok := cache[key]
		if !ok {
			sp = goFuncs(m[path].data)
			cache[key] = sp
		}
		return sp
	}
	for i := range s.hunks {
		h := &s.hunks[i]
		if h.Kind != Modify || !strings.HasSuffix(h.File, ".go") {
			continue
		}
		if h.Head.Len() == 0 && h.Base.Len() > 0 {
			// A pure deletion has no head lines to look at.
			h.Func = enclosing(spansOf("base", s.base, h.OldFile), h.Base)
		} else {
			h.Func = enclosing(spansOf("head", s.head, h.File), h.Head)
		}
	}
}
