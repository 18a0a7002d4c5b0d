package semantic

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/cfg"
)

// sources parses the traced files on demand and answers the static
// questions of Algorithm 3: post-dominance between statements of one
// function and whether a region of code may define a location.
type sources struct {
	dir   string
	fset  *token.FileSet
	files map[string]*ast.File
	src   map[string][]byte
	errs  map[string]error
	funcs map[*ast.BlockStmt]*funcInfo
}

func newSources(dir string) *sources {
	return &sources{
		dir:   dir,
		fset:  token.NewFileSet(),
		files: map[string]*ast.File{},
		src:   map[string][]byte{},
		errs:  map[string]error{},
		funcs: map[*ast.BlockStmt]*funcInfo{},
	}
}

func (s *sources) file(name string) (*ast.File, error) {
	if f, ok := s.files[name]; ok {
		return f, nil
	}
	if err, ok := s.errs[name]; ok {
		return nil, err
	}
	path := name
	if !filepath.IsAbs(path) {
		path = filepath.Join(s.dir, name)
	}
	src, err := os.ReadFile(path)
	if err != nil {
		err = fmt.Errorf("reading %s: %w", name, err)
		s.errs[name] = err
		return nil, err
	}
	f, err := parser.ParseFile(s.fset, path, src, parser.SkipObjectResolution)
	if err != nil {
		err = fmt.Errorf("parsing %s: %w", name, err)
		s.errs[name] = err
		return nil, err
	}
	s.files[name] = f
	s.src[name] = src
	return f, nil
}

// place is a statement or condition located in its function's CFG.
type place struct {
	fn    *funcInfo
	block *cfg.Block
	path  []ast.Node // innermost first
}

// find locates the node at file:line:col (col 0: the first node on the
// line) and its CFG block.
func (s *sources) find(file string, line, col int) (*place, error) {
	f, err := s.file(file)
	if err != nil {
		return nil, err
	}
	tf := s.fset.File(f.Pos())
	if line < 1 || line > tf.LineCount() {
		return nil, fmt.Errorf("%s:%d: no such line", file, line)
	}
	pos := tf.LineStart(line)
	if col > 1 {
		pos += token.Pos(col - 1)
	} else {
		// The statement starts at the first non-blank column.
		src := s.src[file]
		off := tf.Offset(pos)
		for off < len(src) && (src[off] == ' ' || src[off] == '\t') {
			off++
			pos++
		}
	}
	path, _ := astutil.PathEnclosingInterval(f, pos, pos)
	if len(path) == 0 {
		return nil, fmt.Errorf("%s:%d: no syntax there", file, line)
	}
	var body *ast.BlockStmt
	for _, n := range path {
		switch n := n.(type) {
		case *ast.FuncDecl:
			body = n.Body
		case *ast.FuncLit:
			body = n.Body
		}
		if body != nil {
			break
		}
	}
	if body == nil {
		return &place{path: path}, nil
	}
	fn := s.funcInfo(body)
	for _, n := range path {
		if b := fn.blockOf[n]; b != nil {
			return &place{fn: fn, block: b, path: path}, nil
		}
	}
	return &place{fn: fn, path: path}, nil
}

// funcInfo is one function's CFG with its post-dominator sets.
type funcInfo struct {
	g       *cfg.CFG
	blockOf map[ast.Node]*cfg.Block
	pdom    []map[int32]bool // by block index
}

func (s *sources) funcInfo(body *ast.BlockStmt) *funcInfo {
	if fi, ok := s.funcs[body]; ok {
		return fi
	}
	g := cfg.New(body, func(*ast.CallExpr) bool { return true })
	fi := &funcInfo{g: g, blockOf: map[ast.Node]*cfg.Block{}}
	for _, b := range g.Blocks {
		for _, n := range b.Nodes {
			fi.blockOf[n] = b
		}
	}
	// Statements that own a condition are found by the condition's block.
	for _, b := range g.Blocks {
		switch st := b.Stmt.(type) {
		case *ast.IfStmt:
			fi.setOwner(st, st.Cond)
		case *ast.ForStmt:
			if st.Cond != nil {
				fi.setOwner(st, st.Cond)
			}
		case *ast.RangeStmt:
			if b.Kind == cfg.KindRangeLoop {
				fi.blockOf[st] = b
			}
		case *ast.CaseClause:
			if len(st.List) > 0 {
				fi.setOwner(st, st.List[0])
			}
		case *ast.SwitchStmt:
			if st.Tag != nil {
				fi.setOwner(st, st.Tag)
			}
		}
	}
	fi.pdom = postDominators(g)
	s.funcs[body] = fi
	return fi
}

func (fi *funcInfo) setOwner(owner ast.Node, cond ast.Node) {
	if b := fi.blockOf[cond]; b != nil {
		fi.blockOf[owner] = b
	}
}

// postDominators computes, for each block, the set of blocks on every
// path from it to the function's exit (blocks without successors, joined
// to one virtual exit).
func postDominators(g *cfg.CFG) []map[int32]bool {
	n := len(g.Blocks)
	pd := make([]map[int32]bool, n)
	all := map[int32]bool{}
	for _, b := range g.Blocks {
		all[b.Index] = true
	}
	for _, b := range g.Blocks {
		if len(b.Succs) == 0 {
			pd[b.Index] = map[int32]bool{b.Index: true}
		} else {
			pd[b.Index] = clone(all)
		}
	}
	for changed := true; changed; {
		changed = false
		for i := n - 1; i >= 0; i-- {
			b := g.Blocks[i]
			if len(b.Succs) == 0 {
				continue
			}
			next := clone(pd[b.Succs[0].Index])
			for _, s := range b.Succs[1:] {
				for k := range next {
					if !pd[s.Index][k] {
						delete(next, k)
					}
				}
			}
			next[b.Index] = true
			if len(next) != len(pd[b.Index]) {
				pd[b.Index] = next
				changed = true
			}
		}
	}
	return pd
}

func clone(m map[int32]bool) map[int32]bool {
	c := make(map[int32]bool, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// postDominatesBranch reports whether g runs on every path from the
// decision of branch br to the exit, i.e. br does not control g.
// Both must be places in the same function.
func postDominatesBranch(g, br *place) bool {
	if g.fn == nil || br.fn == nil || g.fn != br.fn || g.block == nil || br.block == nil {
		return false
	}
	if len(br.block.Succs) == 0 {
		return false
	}
	for _, s := range br.block.Succs {
		if !g.fn.pdom[s.Index][g.block.Index] {
			return false
		}
	}
	return true
}

// notTaken returns the code a branch would have run with the other
// outcome, nil if none. shortCircuit says the branch is the left operand
// of && or ||, which shares its position with an enclosing condition.
func notTaken(br *place, outcome, shortCircuit bool) ast.Node {
	for _, n := range br.path {
		switch n := n.(type) {
		case *ast.IfStmt:
			if outcome {
				if n.Else == nil {
					return nil
				}
				return n.Else
			}
			return n.Body
		case *ast.ForStmt:
			if outcome {
				return nil
			}
			return n.Body
		case *ast.RangeStmt:
			if outcome {
				return nil
			}
			return n.Body
		case *ast.CaseClause:
			if outcome {
				return nil
			}
			// The clause's body as a block opening at its colon.
			return &ast.BlockStmt{Lbrace: n.Colon, List: n.Body}
		case *ast.BinaryExpr:
			if !shortCircuit {
				continue
			}
			if n.Op == token.LAND && !outcome || n.Op == token.LOR && outcome {
				return n.Y
			}
			if n.Op == token.LAND || n.Op == token.LOR {
				return nil
			}
		case ast.Stmt:
			return nil
		}
	}
	return nil
}

// mayDefine reports whether region contains a definition of the location:
// for a local variable, an assignment or inc/dec of its name (":=" makes a
// new variable and does not count); for any other location, conservatively,
// any write through a selector, index or pointer, and any call.
func mayDefine(region ast.Node, name string, local bool) bool {
	if region == nil {
		return false
	}
	found := false
	lhs := func(e ast.Expr, define bool) {
		switch e := ast.Unparen(e).(type) {
		case *ast.Ident:
			if local && !define && e.Name == name {
				found = true
			}
		default:
			if !local {
				found = true
			}
		}
	}
	ast.Inspect(region, func(n ast.Node) bool {
		if found {
			return false
		}
		switch n := n.(type) {
		case *ast.AssignStmt:
			for _, e := range n.Lhs {
				lhs(e, n.Tok == token.DEFINE)
			}
		case *ast.IncDecStmt:
			lhs(n.X, false)
		case *ast.RangeStmt:
			if n.Tok == token.ASSIGN {
				if n.Key != nil {
					lhs(n.Key, false)
				}
				if n.Value != nil {
					lhs(n.Value, false)
				}
			}
		case *ast.UnaryExpr:
			// Taking the address lets a callee write the variable.
			if id, ok := n.X.(*ast.Ident); ok && n.Op == token.AND && id.Name == name {
				found = true
			}
		case *ast.CallExpr:
			if !local {
				found = true
			}
		}
		return !found
	})
	return found
}
