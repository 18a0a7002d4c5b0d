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
	// constsByDir caches the package-level constants of each package
	// directory (see consts).
	constsByDir map[string]map[string]ConstUse
}

func newSources(dir string) *sources {
	return &sources{
		dir:   dir,
		fset:  token.NewFileSet(),
		files: map[string]*ast.File{},
		src:   map[string][]byte{},
		errs:  map[string]error{},
		funcs: map[*ast.BlockStmt]*funcInfo{},

		constsByDir: map[string]map[string]ConstUse{},
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

// resolver answers whether a statement writes the location in question,
// by the type checker's resolution that the tracer's sites record; known
// is false for a statement without a site that writes.
type resolver func(ast.Stmt) (writes, known bool)

// decides reports whether r tells for s, and sets *found when s writes.
func (r resolver) decides(s ast.Stmt, found *bool) bool {
	if r == nil {
		return false
	}
	w, ok := r(s)
	*found = *found || ok && w
	return ok
}

// mayDefine reports whether region contains a definition of the location:
// for a local variable, an assignment or inc/dec of its name (":=" makes a
// new variable and does not count); for any other location, conservatively,
// any write through a selector, index or pointer, and any call.
//
// resolve, when not nil, answers for an assignment, inc/dec or range
// statement of the region whether it writes the local variable, by the
// type checker's resolution rather than by name; where it cannot tell
// (known false), the name decides.
func mayDefine(region ast.Node, name string, local bool, resolve resolver) bool {
	if region == nil {
		return false
	}
	found := false
	resolved := func(s ast.Stmt) bool { return resolve.decides(s, &found) }
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
			if resolved(n) {
				break
			}
			for _, e := range n.Lhs {
				lhs(e, n.Tok == token.DEFINE)
			}
		case *ast.IncDecStmt:
			if resolved(n) {
				break
			}
			lhs(n.X, false)
		case *ast.RangeStmt:
			if n.Tok == token.ASSIGN && !resolved(n) {
				if n.Key != nil {
					lhs(n.Key, false)
				}
				if n.Value != nil {
					lhs(n.Value, false)
				}
			}
		case *ast.UnaryExpr:
			// Taking the address lets a callee write the variable. A
			// resolved local is never address-taken: another variable of
			// the name is.
			if id, ok := n.X.(*ast.Ident); ok && n.Op == token.AND && id.Name == name && resolve == nil {
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

// skippedByExit returns, for an if statement whose taken side leaves early
// (return, panic, break, continue or goto as its last statement), the
// statements that its other edge reaches and the early exit skipped: the
// rest of the enclosing blocks, up to the function body (return, panic,
// goto) or to the innermost loop or switch (break, continue). nil when the
// branch is not an if, or its taken side does not leave.
func skippedByExit(br *place, outcome bool) []ast.Stmt {
	if len(br.path) == 0 {
		return nil
	}
	var ifs *ast.IfStmt
	k := 0
	for i, n := range br.path {
		if is, ok := n.(*ast.IfStmt); ok {
			ifs, k = is, i
			break
		}
		if _, ok := n.(ast.Stmt); ok {
			return nil
		}
	}
	if ifs == nil {
		return nil
	}
	var taken ast.Stmt = ifs.Body
	if !outcome {
		taken = ifs.Else
	}
	exit := exitOf(taken)
	if exit == token.ILLEGAL {
		return nil
	}
	var out []ast.Stmt
	child := ast.Node(ifs)
	for _, n := range br.path[k+1:] {
		switch n := n.(type) {
		case *ast.BlockStmt:
			out = append(out, after(n.List, child)...)
		case *ast.CaseClause:
			out = append(out, after(n.Body, child)...)
		case *ast.CommClause:
			out = append(out, after(n.Body, child)...)
		case *ast.FuncDecl, *ast.FuncLit:
			return out
		case *ast.ForStmt, *ast.RangeStmt, *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt:
			if exit == token.BREAK || exit == token.CONTINUE {
				return out
			}
		}
		child = n
	}
	return out
}

// exitOf names how a statement's last statement leaves: token.RETURN
// (also for a call of panic), token.BREAK, token.CONTINUE, token.GOTO; or
// token.ILLEGAL when it falls through.
func exitOf(s ast.Stmt) token.Token {
	b, ok := s.(*ast.BlockStmt)
	if !ok || len(b.List) == 0 {
		return token.ILLEGAL
	}
	switch last := b.List[len(b.List)-1].(type) {
	case *ast.ReturnStmt:
		return token.RETURN
	case *ast.BranchStmt:
		if last.Tok == token.FALLTHROUGH {
			return token.ILLEGAL
		}
		return last.Tok
	case *ast.ExprStmt:
		if c, ok := last.X.(*ast.CallExpr); ok {
			if id, ok := c.Fun.(*ast.Ident); ok && id.Name == "panic" {
				return token.RETURN
			}
		}
	}
	return token.ILLEGAL
}

// after returns the statements of list that follow child.
func after(list []ast.Stmt, child ast.Node) []ast.Stmt {
	for i, s := range list {
		if ast.Node(s) == child {
			return list[i+1:]
		}
	}
	return nil
}

// definesField reports whether stmts assign to a location whose last
// selector or name is field (x.field = …, x.field[i] = …, field++), the
// static test of a definition of a location outside the reading frame.
//
// resolve, when not nil, answers for an assignment or inc/dec statement
// whether it writes the location by the type checker's resolution (the
// field of the declaring type, not any field of the name); where it cannot
// tell (known false), the name decides.
func definesField(stmts []ast.Stmt, field string, resolve resolver) bool {
	found := false
	resolved := func(s ast.Stmt) bool { return resolve.decides(s, &found) }
	lhs := func(e ast.Expr) {
		for {
			switch x := ast.Unparen(e).(type) {
			case *ast.IndexExpr:
				e = x.X
				continue
			case *ast.SelectorExpr:
				found = found || x.Sel.Name == field
			case *ast.Ident:
				found = found || x.Name == field
			case *ast.StarExpr:
				e = x.X
				continue
			}
			return
		}
	}
	for _, s := range stmts {
		ast.Inspect(s, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt:
				if n.Tok != token.DEFINE && !resolved(n) {
					for _, e := range n.Lhs {
						lhs(e)
					}
				}
			case *ast.IncDecStmt:
				if !resolved(n) {
					lhs(n.X)
				}
			case *ast.FuncLit:
				return false
			}
			return !found
		})
	}
	return found
}
