package semantic

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strings"

	"github.com/culprit-dev/culprit/analyzer/result"
	"github.com/culprit-dev/culprit/analyzer/trace"
	"github.com/culprit-dev/culprit/diffhunks"
)

// Deletion is code the change under analysis removed without replacing it:
// base lines that no longer exist in the traced (head) tree. A failing run
// cannot execute them, so no event points at them; they are found by where
// they stood (an omission error).
type Deletion struct {
	Hunk diffhunks.ID
	// File is relative to the traced module root; Line is the head line
	// the deleted lines stood just before.
	File string
	Line int
	// Text is the deleted base source.
	Text string
}

// deletion is what the analysis derives once from one Deletion: the
// innermost block it stood in, and its text parsed as statements.
type deletion struct {
	block ast.Node
	stmts ast.Node
}

// deletion returns what is derived from Setup.Deleted[k], computing it
// on first use.
func (a *Analysis) deletion(k int) *deletion {
	if a.dels == nil {
		a.dels = make([]*deletion, len(a.opt.Deleted))
	}
	if a.dels[k] == nil {
		d := a.opt.Deleted[k]
		a.dels[k] = &deletion{block: a.blockAt(d.File, d.Line), stmts: parseStmts(d.Text)}
	}
	return a.dels[k]
}

// innermostBlock returns the innermost block, case or select clause on a
// place's path, nil if none.
func innermostBlock(p *place) ast.Node {
	for _, n := range p.path {
		if isBlock(n) {
			return n
		}
	}
	return nil
}

// omitted returns the deletions that stood directly in region (the block
// or case body a branch took, in file) and may define the location named
// name: code that ran at this point in the base version and could have
// changed what a cause statement reads.
func (a *Analysis) omitted(file string, region ast.Node, name string, local bool) []int {
	if region == nil {
		return nil
	}
	var out []int
	for k, d := range a.opt.Deleted {
		if d.File != file || !sameBlock(a.deletion(k).block, region) {
			continue
		}
		if mayDefine(a.deletion(k).stmts, name, local, nil) {
			out = append(out, k)
		}
	}
	return out
}

// straightOmissions returns the deletions that stood in the block of
// generator g, after the definition of something g reads and before g,
// and may define it: code that ran in the base version between the two.
func (a *Analysis) straightOmissions(g int) []int {
	ev := a.tr.Event(g)
	if ev.Kind == trace.EvEntry || len(a.opt.Deleted) == 0 {
		return nil
	}
	gs := a.siteOfStmt(g)
	gp := a.place(gs)
	if gp == nil {
		return nil
	}
	block := innermostBlock(gp)
	if block == nil {
		return nil
	}
	var out []int
	for _, it := range ev.Reads {
		d := a.tr.Def(g, it.Slot)
		if d < 0 || a.tr.Event(d).Frame != ev.Frame {
			continue
		}
		o, _ := a.f.operand(g, it.Slot)
		ds := a.siteOfStmt(d)
		for k, del := range a.opt.Deleted {
			if del.File != gs.Pos.File || del.Line > gs.Pos.Line || a.deletion(k).block != block {
				continue
			}
			if ds.Pos.File == del.File && ds.Pos.Line >= del.Line && ds.Pos.Line <= gs.Pos.Line {
				continue // defined after the deleted lines
			}
			if mayDefine(a.deletion(k).stmts, o.Text, it.Loc.Kind == trace.LocLocal, nil) {
				out = mergeInts(out, []int{k})
			}
		}
	}
	return out
}

// sameBlock reports whether the innermost block inner is region, where a
// case body taken by a branch is given as a block opening at its colon.
func sameBlock(inner, region ast.Node) bool {
	if inner == nil {
		return false
	}
	if inner == region {
		return true
	}
	b, ok := region.(*ast.BlockStmt)
	if !ok {
		return false
	}
	switch c := inner.(type) {
	case *ast.CaseClause:
		return c.Colon == b.Lbrace
	case *ast.CommClause:
		return c.Colon == b.Lbrace
	}
	return false
}

// blockAt returns the innermost block, case or select clause of file (a
// path relative to the module root) that holds the point just before line,
// nil if none.
func (a *Analysis) blockAt(file string, line int) ast.Node {
	f, err := a.src.file(file)
	if err != nil {
		return nil
	}
	var best ast.Node
	ast.Inspect(f, func(n ast.Node) bool {
		if n == nil || !isBlock(n) {
			return true
		}
		s, e := a.src.fset.Position(n.Pos()).Line, a.src.fset.Position(n.End()).Line
		if line > s && line <= e && (best == nil || n.End()-n.Pos() <= best.End()-best.Pos()) {
			best = n
		}
		return true
	})
	return best
}

// parseStmts parses deleted source lines as a statement list. Lines that
// do not parse on their own (part of a statement) yield the statements of
// the longest prefix that does, or nil.
func parseStmts(text string) ast.Node {
	lines := strings.SplitAfter(text, "\n")
	for n := len(lines); n > 0; n-- {
		src := "package p\nfunc _() {\n" + strings.Join(lines[:n], "") + "\n}\n"
		f, err := parser.ParseFile(token.NewFileSet(), "", src, parser.SkipObjectResolution)
		if err != nil {
			continue
		}
		if fd, ok := f.Decls[0].(*ast.FuncDecl); ok && fd.Body != nil {
			return fd.Body
		}
	}
	return nil
}

// deletedStatement describes deletion k for the causal tree.
func (a *Analysis) deletedStatement(k int) result.Statement {
	d := a.opt.Deleted[k]
	text := strings.TrimSpace(d.Text)
	if i := strings.IndexByte(text, '\n'); i >= 0 {
		text = strings.TrimSpace(text[:i]) + " …"
	}
	return result.Statement{File: d.File, Line: d.Line, Text: text, Hunk: d.Hunk, Deleted: true}
}
