package semantic

import (
	"context"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/culprit-dev/culprit/analyzer/trace"
	"github.com/culprit-dev/culprit/analyzer/trace/instrument"
	"github.com/culprit-dev/culprit/internal/testfiles"
	"golang.org/x/tools/txtar"
)

// afterHead writes the head tree of the AFTER running example to a temp
// dir and returns it.
func afterHead(t *testing.T) string {
	t.Helper()
	return headTree(t, filepath.Join("..", "..", "testdata", "after-example.txtar"))
}

// headTree writes the head/ tree of a scenario archive to a temp dir and
// returns it.
func headTree(t *testing.T, path string) string {
	t.Helper()
	ar, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return writeTree(t, ar, "head/")
}

// traceFailing traces test of package pkg in the module at dir and
// returns the trace of its run, which must fail.
func traceFailing(t *testing.T, dir, pkg, test string) *trace.Trace {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	tr, err := instrument.Run(ctx, instrument.Config{Dir: dir, Pkg: pkg, Test: test, TraceDir: t.TempDir()})
	if err != nil {
		t.Fatalf("tracing %s: %v", test, err)
	}
	if !tr.Result.Failed {
		t.Fatalf("traced %s did not fail:\n%s", test, tr.Result.Output)
	}
	return tr
}

// writeTree writes the archive's files whose names start with prefix, less
// the prefix, to a new temp dir and returns it.
func writeTree(t *testing.T, ar *txtar.Archive, prefix string) string {
	t.Helper()
	files := map[string][]byte{}
	for _, f := range ar.Files {
		if name, ok := strings.CutPrefix(f.Name, prefix); ok {
			files[name] = f.Data
		}
	}
	dir := t.TempDir()
	testfiles.Write(t, dir, files)
	return dir
}

var (
	tInt  = trace.Type{Kind: trace.TypeInt, Bits: 64, Name: "int"}
	tBool = trace.Type{Kind: trace.TypeBool, Name: "bool"}
	tPtr  = trace.Type{Kind: trace.TypePointer, Name: "*testing.T"}
)

func iv(n int64) trace.Value { return trace.Value{Kind: trace.ValInt, Bits: uint64(n)} }
func bv(b bool) trace.Value {
	if b {
		return trace.Value{Kind: trace.ValBool, Bits: 1}
	}
	return trace.Value{Kind: trace.ValBool}
}
func rd(slot int, typ trace.Type) *trace.Expr {
	return &trace.Expr{Op: trace.ExprRead, Slot: slot, Type: typ}
}
func kst(v trace.Value, typ trace.Type) *trace.Expr {
	return &trace.Expr{Op: trace.ExprConst, Const: v, Type: typ}
}
func bin(op token.Token, x, y *trace.Expr, typ trace.Type) *trace.Expr {
	return &trace.Expr{Op: trace.ExprBinary, Tok: op, X: x, Y: y, Type: typ}
}
func local(fr trace.FrameID, obj int) trace.Loc {
	return trace.Loc{Kind: trace.LocLocal, Frame: fr, Obj: obj}
}

// afterTrace is, by hand, the trace the tracer records for TestF on the
// head of the AFTER example: F(3, 1, 2) returns 4, the test wants 5.
func afterTrace() *trace.Trace {
	pos := func(file string, line, col int) trace.Pos { return trace.Pos{File: file, Line: line, Col: col} }
	const calc, test = "calc/calc.go", "calc/calc_test.go"
	w := func(slot int, text string, typ trace.Type, obj int) trace.Operand {
		return trace.Operand{Slot: slot, Write: true, Text: text, Type: typ, Obj: obj}
	}
	r := func(slot int, text string, typ trace.Type, obj int) trace.Operand {
		return trace.Operand{Slot: slot, Text: text, Type: typ, Obj: obj}
	}
	sites := []trace.Site{
		{},
		{ID: 1, Kind: trace.SiteGlobal, Pos: pos(calc, 3, 5), Text: "sorted = false", Operands: []trace.Operand{w(0, "sorted", tBool, 0)}, Exprs: []*trace.Expr{kst(bv(false), tBool)}},
		{ID: 2, Kind: trace.SiteFunc, Pos: pos(test, 5, 1), Text: "func TestF(t *testing.T)", Func: "calc.TestF", Operands: []trace.Operand{w(0, "t", tPtr, 1)}},
		{ID: 3, Kind: trace.SiteCall, Pos: pos(test, 6, 12), Text: "F(3, 1, 2)", Callee: "example.com/calc.F", Exprs: []*trace.Expr{kst(iv(3), tInt), kst(iv(1), tInt), kst(iv(2), tInt)}},
		{ID: 4, Kind: trace.SiteDefine, Pos: pos(test, 6, 5), Text: "got := F(3, 1, 2)", Operands: []trace.Operand{w(0, "got", tInt, 2)}, Exprs: []*trace.Expr{{Op: trace.ExprCall, Call: 3, Type: tInt}}},
		{ID: 5, Kind: trace.SiteIf, Pos: pos(test, 6, 24), Text: "got != 5", Operands: []trace.Operand{r(0, "got", tInt, 2)}, Exprs: []*trace.Expr{bin(token.NEQ, rd(0, tInt), kst(iv(5), tInt), tBool)}},
		{ID: 6, Kind: trace.SiteFail, Pos: pos(test, 7, 3), Text: `t.Errorf("F(3, 1, 2) = %d, want 5", got)`, Callee: "testing.(*common).Errorf", Operands: []trace.Operand{r(0, "t", tPtr, 1), r(1, "got", tInt, 2)}},
		{ID: 7, Kind: trace.SiteFunc, Pos: pos(calc, 5, 1), Text: "func F(x, y, z int) int", Func: "calc.F", Operands: []trace.Operand{w(0, "x", tInt, 3), w(1, "y", tInt, 4), w(2, "z", tInt, 5)}},
		{ID: 8, Kind: trace.SiteDefine, Pos: pos(calc, 6, 2), Text: "sum := 0", Operands: []trace.Operand{w(0, "sum", tInt, 6)}, Exprs: []*trace.Expr{kst(iv(0), tInt)}},
		{ID: 9, Kind: trace.SiteIf, Pos: pos(calc, 7, 5), Text: "!sorted", Operands: []trace.Operand{r(0, "sorted", tBool, 0)}, Exprs: []*trace.Expr{{Op: trace.ExprUnary, Tok: token.NOT, X: rd(0, tBool), Type: tBool}}},
		{ID: 10, Kind: trace.SiteIf, Pos: pos(calc, 8, 6), Text: "x < y", Operands: []trace.Operand{r(0, "x", tInt, 3), r(1, "y", tInt, 4)}, Exprs: []*trace.Expr{bin(token.LSS, rd(0, tInt), rd(1, tInt), tBool)}},
		{ID: 11, Kind: trace.SiteAssign, Pos: pos(calc, 11, 4), Text: "sum = y", Operands: []trace.Operand{w(0, "sum", tInt, 6), r(1, "y", tInt, 4)}, Exprs: []*trace.Expr{rd(1, tInt)}},
		{ID: 12, Kind: trace.SiteIf, Pos: pos(calc, 16, 5), Text: "z > 0", Operands: []trace.Operand{r(0, "z", tInt, 5)}, Exprs: []*trace.Expr{bin(token.GTR, rd(0, tInt), kst(iv(0), tInt), tBool)}},
		{ID: 13, Kind: trace.SiteOpAssign, Pos: pos(calc, 17, 3), Text: "sum += z + 1", Op: token.ADD, Operands: []trace.Operand{w(0, "sum", tInt, 6), r(1, "sum", tInt, 6), r(2, "z", tInt, 5)},
			Exprs: []*trace.Expr{bin(token.ADD, rd(1, tInt), bin(token.ADD, rd(2, tInt), kst(iv(1), tInt), tInt), tInt)}},
		{ID: 14, Kind: trace.SiteReturn, Pos: pos(calc, 21, 2), Text: "return sum", Operands: []trace.Operand{r(0, "sum", tInt, 6)}, Exprs: []*trace.Expr{rd(0, tInt)}},
	}
	sortedLoc := trace.Loc{Kind: trace.LocAddr, Addr: 0x1000}
	it := func(slot int, v trace.Value, loc trace.Loc) trace.Item {
		return trace.Item{Slot: slot, Value: v, Loc: loc}
	}
	tv := trace.Value{Kind: trace.ValPointer, Bits: 0xc000}
	events := []trace.Event{
		{Kind: trace.EvAssign, Site: 1, Writes: []trace.Item{it(0, bv(false), sortedLoc)}},
		{Kind: trace.EvEntry, Site: 2, Frame: 1, Writes: []trace.Item{it(0, tv, local(1, 1))}},
		{Kind: trace.EvCall, Site: 3, Frame: 1},
		{Kind: trace.EvEntry, Site: 7, Frame: 2, Writes: []trace.Item{it(0, iv(3), local(2, 3)), it(1, iv(1), local(2, 4)), it(2, iv(2), local(2, 5))}},
		{Kind: trace.EvAssign, Site: 8, Frame: 2, Writes: []trace.Item{it(0, iv(0), local(2, 6))}},
		{Kind: trace.EvBranch, Site: 9, Frame: 2, Reads: []trace.Item{it(0, bv(false), sortedLoc)}, Values: []trace.Value{bv(true)}},
		{Kind: trace.EvBranch, Site: 10, Frame: 2, Reads: []trace.Item{it(0, iv(3), local(2, 3)), it(1, iv(1), local(2, 4))}, Values: []trace.Value{bv(false)}},
		{Kind: trace.EvAssign, Site: 11, Frame: 2, Reads: []trace.Item{it(1, iv(1), local(2, 4))}, Writes: []trace.Item{it(0, iv(1), local(2, 6))}},
		{Kind: trace.EvBranch, Site: 12, Frame: 2, Reads: []trace.Item{it(0, iv(2), local(2, 5))}, Values: []trace.Value{bv(true)}},
		{Kind: trace.EvAssign, Site: 13, Frame: 2, Reads: []trace.Item{it(1, iv(1), local(2, 6)), it(2, iv(2), local(2, 5))}, Writes: []trace.Item{it(0, iv(4), local(2, 6))}},
		{Kind: trace.EvReturn, Site: 14, Frame: 2, Reads: []trace.Item{it(0, iv(4), local(2, 6))}, Values: []trace.Value{iv(4)}},
		{Kind: trace.EvAssign, Site: 4, Frame: 1, Writes: []trace.Item{it(0, iv(4), local(1, 2))}},
		{Kind: trace.EvBranch, Site: 5, Frame: 1, Reads: []trace.Item{it(0, iv(4), local(1, 2))}, Values: []trace.Value{bv(true)}},
		{Kind: trace.EvFail, Site: 6, Frame: 1, Reads: []trace.Item{it(0, tv, local(1, 1)), it(1, iv(4), local(1, 2))}},
	}
	for i := range events {
		events[i].Index = i
	}
	return &trace.Trace{
		Sites:  sites,
		Events: events,
		Frames: []trace.Frame{
			{},
			{ID: 1, Func: 2, Goroutine: 1, Call: -1, Entry: 1, Exit: -1},
			{ID: 2, Func: 7, Goroutine: 1, Parent: 1, Call: 2, Entry: 3, Exit: 10},
		},
	}
}
