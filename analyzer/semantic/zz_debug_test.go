package semantic

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/culprit-dev/culprit/analyzer/trace"
	"github.com/culprit-dev/culprit/internal/scenario"
)

func TestZZDebug(t *testing.T) {
	path := os.Getenv("ZZ_TXTAR")
	if path == "" {
		t.Skip()
	}
	s, err := scenario.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for name, data := range s.Head {
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, data, 0o644)
	}
	pkg := os.Getenv("ZZ_PKG")
	if pkg == "" {
		pkg = "./..."
	}
	tr, err := trace.Run(context.Background(), trace.Config{Dir: dir, Pkg: pkg, Test: s.Keys["test"], Timeout: time.Minute, TraceDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	for i := range tr.Events {
		e := tr.Event(i)
		st := tr.Site(e.Site)
		var b strings.Builder
		fmt.Fprintf(&b, "%d f%d %s[%s] %q", i, e.Frame, e.Kind, st.Kind, strings.TrimSpace(st.Text))
		for _, it := range e.Reads {
			fmt.Fprintf(&b, " r%d:%s=%s@%v", it.Slot, opText(st, it.Slot), it.Value, it.Loc.Kind)
		}
		for _, it := range e.Writes {
			fmt.Fprintf(&b, " w%d:%s=%s@%v", it.Slot, opText(st, it.Slot), it.Value, it.Loc.Kind)
		}
		for _, v := range e.Values {
			fmt.Fprintf(&b, " v=%s(%d)", v, v.Kind)
		}
		for _, x := range st.Exprs {
			fmt.Fprintf(&b, " E{%s}", exprStr(x))
		}
		t.Log(b.String())
	}
	for f := 1; f < len(tr.Frames); f++ {
		t.Logf("frame %d %+v %s", f, tr.Frames[f], tr.Site(tr.Frames[f].Func).Text)
	}
	a := New(tr, dir, Options{})
	tg, err := a.Failure()
	t.Logf("failure %+v %v", tg, err)
	c, err := a.Cause(context.Background(), tg)
	if err != nil {
		t.Logf("cause err %v", err)
		return
	}
	t.Logf("cause %v", texts(a, c))
}

func opText(st *trace.Site, slot int) string {
	for _, o := range st.Operands {
		if o.Slot == slot {
			return fmt.Sprintf("%s:%d", o.Text, o.Type.Kind)
		}
	}
	return "?"
}

func exprStr(e *trace.Expr) string {
	if e == nil {
		return "nil"
	}
	switch e.Op {
	case trace.ExprConst:
		return "c" + e.Const.String()
	case trace.ExprRead:
		return fmt.Sprintf("s%d", e.Slot)
	case trace.ExprCall:
		return fmt.Sprintf("call%d.%d:%d", e.Call, e.Slot, e.Type.Kind)
	case trace.ExprBinary:
		return "(" + exprStr(e.X) + e.Tok.String() + exprStr(e.Y) + ")"
	case trace.ExprUnary:
		return e.Tok.String() + exprStr(e.X)
	case trace.ExprConv:
		return fmt.Sprintf("conv%d(%s)", e.Type.Kind, exprStr(e.X))
	case trace.ExprLen:
		return "len(" + exprStr(e.X) + ")"
	}
	var as []string
	for _, a := range e.Args {
		as = append(as, exprStr(a))
	}
	return fmt.Sprintf("op%d[%s](%s)", e.Op, e.Text, strings.Join(as, ","))
}
