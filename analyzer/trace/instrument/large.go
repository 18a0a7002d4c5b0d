package instrument

import (
	"fmt"
	"go/ast"
	"strings"

	"golang.org/x/tools/go/packages"
)

// maxFuncStmts bounds the statements of a function the tracer
// instruments without knowing that the test enters it. The compiler's time
// on an instrumented function grows much faster than its statement count:
// a generated interpreter loop of 3,924 statements (go-json's vm.Run)
// adds about 45 s to a traced build, and its package has four such loops
// of which a test enters one or two. So a longer function is instrumented
// only when a probe run (probe.go) saw the test enter it; a probe runs for
// that reason alone. Otherwise it runs uninstrumented and is observed at
// its calls, like code outside the module. Lines are no measure: a
// table-driven test of thousands of lines is mostly one composite literal
// and a few dozen statements, and its failure must be traced.
var maxFuncStmts = 1500

// funcKey names a function declaration by file and the line of its name,
// the same in every variant of a package (with or without its tests).
type funcKey struct {
	file string
	line int
}

// largeFuncs returns the function declarations of more than maxFuncStmts
// statements in the packages to instrument that ran does not say the test
// enters (ran nil: no probe told), each with the reason it is left alone.
func largeFuncs(all map[string]*packages.Package, selected func(string) bool, ran map[funcKey]bool) map[funcKey]string {
	large := map[funcKey]string{}
	why := fmt.Sprintf("function of more than %d statements", maxFuncStmts)
	for _, p := range all {
		if !selected(strings.TrimSuffix(p.PkgPath, "_test")) {
			continue
		}
		for _, f := range p.Syntax {
			for _, d := range f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || fd.Body == nil {
					continue
				}
				name := p.Fset.Position(fd.Name.Pos())
				key := funcKey{name.Filename, name.Line}
				if !ran[key] && countStmts(fd.Body) > maxFuncStmts {
					large[key] = why
				}
			}
		}
	}
	return large
}

// countStmts counts the statements in body, blocks aside, function
// literals included (they are instrumented with it).
func countStmts(body *ast.BlockStmt) int {
	n := 0
	ast.Inspect(body, func(x ast.Node) bool {
		if _, ok := x.(ast.Stmt); ok {
			if _, block := x.(*ast.BlockStmt); !block {
				n++
			}
		}
		return true
	})
	return n
}
