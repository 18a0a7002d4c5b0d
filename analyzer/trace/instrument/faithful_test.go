package instrument

import (
	"bufio"
	"context"
	"encoding/json"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/culprit-dev/culprit/analyzer/trace"
)

// copyTree copies the regular files below src into dst, writable.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rp, _ := filepath.Rel(src, p)
		out := filepath.Join(dst, rp)
		if d.IsDir() {
			return os.MkdirAll(out, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(out, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// plainOutcomes runs the package's tests untraced and returns pass/fail per
// test (subtests included) and the elapsed seconds of each from `go test -json`.
func plainOutcomes(t *testing.T, dir, pkg string) (map[string]bool, map[string]float64) {
	t.Helper()
	cmd := exec.Command("go", "test", "-count=1", "-json", pkg)
	cmd.Dir = dir
	out, _ := cmd.Output()
	res, secs := map[string]bool{}, map[string]float64{}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var ev struct {
			Action, Test string
			Elapsed      float64
		}
		if json.Unmarshal(sc.Bytes(), &ev) != nil || ev.Test == "" {
			continue
		}
		secs[ev.Test] = ev.Elapsed
		switch ev.Action {
		case "pass":
			res[ev.Test] = true
		case "fail":
			res[ev.Test] = false
		}
	}
	if len(res) == 0 {
		t.Fatalf("no test outcomes from plain run:\n%s", out)
	}
	return res, secs
}

// selectTests picks the top-level tests that are cheap enough to trace
// together (heavy ones trace to gigabytes) and not timing-sensitive, and
// returns them with a -test.run pattern matching exactly them.
func selectTests(plain map[string]bool, secs map[string]float64, heavy map[string]bool) (map[string]bool, string) {
	sel := map[string]bool{}
	var top []string
	for n := range plain {
		root, _, _ := strings.Cut(n, "/")
		if heavy[root] || secs[root] > 0.5 || strings.Contains(root, "Timeout") {
			continue
		}
		sel[n] = plain[n]
		if root == n {
			top = append(top, regexp.QuoteMeta(n))
		}
	}
	sort.Strings(top)
	return sel, "^(" + strings.Join(top, "|") + ")$"
}

var verdictLine = regexp.MustCompile(`(?m)^\s*--- (PASS|FAIL): (\S+) \(`)

// tracedOutcomes parses per-test verdicts from `-test.v` output.
func tracedOutcomes(out string) map[string]bool {
	res := map[string]bool{}
	for _, m := range verdictLine.FindAllStringSubmatch(out, -1) {
		res[m[2]] = m[1] == "PASS"
	}
	return res
}

// replayValue evaluates a modelled expression from the operand values
// recorded by event e. ok is false for anything not precisely modelled.
func replayValue(x *trace.Expr, e *trace.Event) (trace.Value, bool) {
	switch x.Op {
	case trace.ExprConst:
		v := x.Const
		if v.Kind == trace.ValInt || v.Kind == trace.ValUint {
			return normInt(v, x.Type), true
		}
		return v, v.Kind == trace.ValBool
	case trace.ExprRead:
		it, ok := e.Read(x.Slot)
		if !ok {
			return trace.Value{}, false
		}
		switch it.Value.Kind {
		case trace.ValBool, trace.ValInt, trace.ValUint:
			return it.Value, true
		case trace.ValString:
			return it.Value, true
		}
		return trace.Value{}, false
	case trace.ExprConv:
		v, ok := replayValue(x.X, e)
		if !ok || !isIntType(x.Type) || (v.Kind != trace.ValInt && v.Kind != trace.ValUint) {
			return trace.Value{}, false
		}
		return normInt(trace.Value{Kind: v.Kind, Bits: v.Bits}, x.Type), true
	case trace.ExprLen:
		v, ok := replayValue(x.X, e)
		if !ok || v.Kind != trace.ValString || x.Tok != token.IDENT {
			return trace.Value{}, false
		}
		return trace.Value{Kind: trace.ValInt, Bits: uint64(v.Len)}, true
	case trace.ExprUnary:
		v, ok := replayValue(x.X, e)
		if !ok {
			return trace.Value{}, false
		}
		switch {
		case x.Tok == token.NOT && v.Kind == trace.ValBool:
			return boolVal(!v.Bool()), true
		case x.Tok == token.SUB && isIntType(x.Type):
			return normInt(trace.Value{Kind: v.Kind, Bits: -v.Bits}, x.Type), true
		case x.Tok == token.XOR && isIntType(x.Type):
			return normInt(trace.Value{Kind: v.Kind, Bits: ^v.Bits}, x.Type), true
		case x.Tok == token.ADD:
			return v, true
		}
		return trace.Value{}, false
	case trace.ExprBinary:
		a, ok := replayValue(x.X, e)
		if !ok {
			return trace.Value{}, false
		}
		if x.Tok == token.LAND || x.Tok == token.LOR {
			if a.Kind != trace.ValBool {
				return trace.Value{}, false
			}
			if a.Bool() == (x.Tok == token.LOR) {
				return a, true
			}
			b, ok := replayValue(x.Y, e)
			return b, ok && b.Kind == trace.ValBool
		}
		b, ok := replayValue(x.Y, e)
		if !ok {
			return trace.Value{}, false
		}
		return binop(x, a, b)
	}
	return trace.Value{}, false
}

func isIntType(t trace.Type) bool { return t.Kind == trace.TypeInt || t.Kind == trace.TypeUint }

func boolVal(b bool) trace.Value {
	if b {
		return trace.Value{Kind: trace.ValBool, Bits: 1}
	}
	return trace.Value{Kind: trace.ValBool}
}

// normInt truncates v to the width of t and sign- or zero-extends it.
func normInt(v trace.Value, t trace.Type) trace.Value {
	bits := t.Bits
	if bits <= 0 || bits > 64 {
		bits = 64
	}
	switch t.Kind {
	case trace.TypeInt:
		sh := 64 - bits
		return trace.Value{Kind: trace.ValInt, Bits: uint64(int64(v.Bits<<sh) >> sh)}
	case trace.TypeUint:
		sh := 64 - bits
		return trace.Value{Kind: trace.ValUint, Bits: v.Bits << sh >> sh}
	}
	return v
}

func binop(x *trace.Expr, a, b trace.Value) (trace.Value, bool) {
	if a.Kind == trace.ValString || b.Kind == trace.ValString {
		if a.Kind != b.Kind || (x.Tok != token.EQL && x.Tok != token.NEQ) {
			return trace.Value{}, false
		}
		eq := a.Len == b.Len && a.Hash == b.Hash
		return boolVal(eq == (x.Tok == token.EQL)), true
	}
	if a.Kind == trace.ValBool && b.Kind == trace.ValBool {
		switch x.Tok {
		case token.EQL:
			return boolVal(a.Bits == b.Bits), true
		case token.NEQ:
			return boolVal(a.Bits != b.Bits), true
		}
		return trace.Value{}, false
	}
	if (a.Kind != trace.ValInt && a.Kind != trace.ValUint) || (b.Kind != trace.ValInt && b.Kind != trace.ValUint) {
		return trace.Value{}, false
	}
	signed := a.Kind == trace.ValInt
	switch x.Tok {
	case token.EQL:
		return boolVal(a.Bits == b.Bits), true
	case token.NEQ:
		return boolVal(a.Bits != b.Bits), true
	case token.LSS, token.LEQ, token.GTR, token.GEQ:
		var c int
		if signed {
			c = cmp3(int64(a.Bits) < int64(b.Bits), int64(a.Bits) > int64(b.Bits))
		} else {
			c = cmp3(a.Bits < b.Bits, a.Bits > b.Bits)
		}
		r := map[token.Token]bool{token.LSS: c < 0, token.LEQ: c <= 0, token.GTR: c > 0, token.GEQ: c >= 0}[x.Tok]
		return boolVal(r), true
	}
	if !isIntType(x.Type) {
		return trace.Value{}, false
	}
	var r uint64
	switch x.Tok {
	case token.ADD:
		r = a.Bits + b.Bits
	case token.SUB:
		r = a.Bits - b.Bits
	case token.MUL:
		r = a.Bits * b.Bits
	case token.AND:
		r = a.Bits & b.Bits
	case token.OR:
		r = a.Bits | b.Bits
	case token.XOR:
		r = a.Bits ^ b.Bits
	case token.AND_NOT:
		r = a.Bits &^ b.Bits
	case token.QUO, token.REM:
		if b.Bits == 0 {
			return trace.Value{}, false
		}
		if x.Type.Kind == trace.TypeInt {
			p, q := int64(a.Bits), int64(b.Bits)
			if x.Tok == token.QUO {
				r = uint64(p / q)
			} else {
				r = uint64(p % q)
			}
		} else if x.Tok == token.QUO {
			r = a.Bits / b.Bits
		} else {
			r = a.Bits % b.Bits
		}
	case token.SHL, token.SHR:
		if b.Kind == trace.ValInt && int64(b.Bits) < 0 {
			return trace.Value{}, false
		}
		n := b.Bits
		if n > 64 {
			n = 64
		}
		if x.Tok == token.SHL {
			if n < 64 {
				r = a.Bits << n
			}
		} else if x.Type.Kind == trace.TypeInt {
			if n > 63 {
				n = 63
			}
			r = uint64(int64(a.Bits) >> n)
		} else if n < 64 {
			r = a.Bits >> n
		}
	default:
		return trace.Value{}, false
	}
	return normInt(trace.Value{Kind: a.Kind, Bits: r}, x.Type), true
}

func cmp3(lt, gt bool) int {
	switch {
	case lt:
		return -1
	case gt:
		return 1
	}
	return 0
}

// modelled reports whether x is fully precisely modelled (no opaque nodes or
// call results anywhere in it) and does more than read one operand.
func modelled(x *trace.Expr) bool {
	var ok func(*trace.Expr) bool
	ok = func(x *trace.Expr) bool {
		if x == nil {
			return false
		}
		switch x.Op {
		case trace.ExprConst, trace.ExprRead:
			return true
		case trace.ExprUnary, trace.ExprConv, trace.ExprLen:
			return ok(x.X)
		case trace.ExprBinary:
			return ok(x.X) && ok(x.Y)
		}
		return false
	}
	return x != nil && x.Op != trace.ExprRead && x.Op != trace.ExprConst && ok(x)
}

type replayStats struct {
	checked    int
	mismatches []string
}

// replay recomputes every precisely modelled assignment and branch of tr.
func replay(tr *trace.Trace, st *replayStats) {
	for i := range tr.Events {
		e := &tr.Events[i]
		s := tr.Site(e.Site)
		switch e.Kind {
		case trace.EvAssign:
			var targets []int
			for _, op := range s.Operands {
				if op.Write {
					targets = append(targets, op.Slot)
				}
			}
			if len(targets) != len(s.Exprs) {
				continue
			}
			for k, x := range s.Exprs {
				if !modelled(x) || !isIntType(x.Type) && x.Type.Kind != trace.TypeBool {
					continue
				}
				var w *trace.Item
				for j := range e.Writes {
					if e.Writes[j].Slot == targets[k] {
						w = &e.Writes[j]
					}
				}
				if w == nil || (w.Value.Kind != trace.ValInt && w.Value.Kind != trace.ValUint && w.Value.Kind != trace.ValBool) {
					continue
				}
				got, ok := replayValue(x, e)
				if !ok {
					continue
				}
				st.checked++
				want := w.Value
				if want.Kind != trace.ValBool {
					want = normInt(trace.Value{Kind: want.Kind, Bits: want.Bits}, s.Operands[targets[k]].Type)
				}
				if got.Bits != want.Bits {
					st.mismatches = append(st.mismatches, describe(tr, i)+" replayed "+got.String())
				}
			}
		case trace.EvBranch:
			switch s.Kind {
			case trace.SiteIf, trace.SiteFor, trace.SiteSwitchCase:
			default:
				continue
			}
			if len(s.Exprs) != 1 || !modelled(s.Exprs[0]) || len(e.Values) == 0 || e.Values[0].Kind != trace.ValBool {
				continue
			}
			got, ok := replayValue(s.Exprs[0], e)
			if !ok || got.Kind != trace.ValBool {
				continue
			}
			st.checked++
			if got.Bits != e.Values[0].Bits {
				st.mismatches = append(st.mismatches, describe(tr, i)+" replayed "+got.String())
			}
		}
	}
}

// TestFaithful traces whole test packages and checks that tracing changes
// no test's outcome and that recorded operand values reproduce the
// recorded results of modelled operations.
func TestFaithful(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: traces whole test packages")
	}
	gomodcache, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(strings.TrimSpace(string(gomodcache)), "github.com", "sergi", "go-diff@v1.4.0")
	if _, err := os.Stat(src); err != nil {
		t.Skipf("go-diff not in the module cache: %v", err)
	}
	gd := t.TempDir()
	copyTree(t, src, gd)
	root, _ := filepath.Abs("../../..")
	// heavy lists tests left out: they take over 50 ms untraced and trace
	// to gigabytes.
	for _, tc := range []struct {
		name, dir, pkg string
		heavy          map[string]bool
	}{
		{"go-diff", gd, "./diffmatchpatch", map[string]bool{"TestRuneToInt": true, "TestMassiveRuneDiffConversion": true,
			"TestIndexConversion": true}},
		{"diffhunks", root, "./diffhunks", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			all, secs := plainOutcomes(t, tc.dir, tc.pkg)
			plain, pattern := selectTests(all, secs, tc.heavy)
			tr, err := Run(context.Background(), Config{Dir: tc.dir, Pkg: tc.pkg, runPattern: pattern, Timeout: 2 * time.Minute,
				MaxBytes: 1 << 30, TraceDir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			if tr.Truncated {
				t.Errorf("trace truncated")
			}
			traced := tracedOutcomes(tr.Result.Output)
			var names []string
			for n := range plain {
				names = append(names, n)
			}
			sort.Strings(names)
			for _, n := range names {
				got, ok := traced[n]
				switch {
				case !ok:
					t.Errorf("%s: no verdict under tracing", n)
				case got != plain[n]:
					t.Errorf("%s: passed=%v untraced, %v traced", n, plain[n], got)
				}
			}
			for n := range traced {
				if _, ok := plain[n]; !ok {
					t.Errorf("%s: ran only under tracing", n)
				}
			}
			for _, sk := range tr.Skipped {
				t.Logf("skipped %v: %s", sk.Pos, sk.Reason)
			}
			var st replayStats
			replay(tr, &st)
			for k, m := range st.mismatches {
				if k == 20 {
					break
				}
				t.Errorf("replay mismatch: %s", m)
			}
			t.Logf("%d of %d tests traced, outcomes identical; %d events, %d frames; %d modelled operations replayed, %d mismatches; %d skips",
				len(plain), len(all), len(tr.Events), len(tr.Frames), st.checked, len(st.mismatches), len(tr.Skipped))
			if st.checked == 0 {
				t.Errorf("no operation replayed")
			}
		})
	}
}
