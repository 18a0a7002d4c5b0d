package contrast

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/culprit-dev/culprit/analyzer/trace"
	"github.com/culprit-dev/culprit/analyzer/trace/instrument"
	"github.com/culprit-dev/culprit/diffhunks"
	"github.com/culprit-dev/culprit/internal/testfiles"
	"golang.org/x/tools/txtar"
)

// headTree writes the head/ tree of a scenario archive to a temp dir.
func headTree(t *testing.T, scenario string) string {
	t.Helper()
	ar, err := txtar.ParseFile(filepath.Join("..", "..", "testdata", scenario+".txtar"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, f := range ar.Files {
		if name, ok := strings.CutPrefix(f.Name, "head/"); ok {
			files[name] = string(f.Data)
		}
	}
	return writeFiles(t, files)
}

// writeFiles writes files (slash-separated names) into a temp dir.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	testfiles.Write(t, dir, files)
	return dir
}

func traceTest(t *testing.T, dir, pkg, test string) *trace.Trace {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	tr, err := instrument.Run(ctx, instrument.Config{Dir: dir, Pkg: pkg, Test: test, TraceDir: t.TempDir()})
	if err != nil {
		t.Fatalf("tracing %s: %v", test, err)
	}
	return tr
}

// TestTwoRunsOfOneProgramAlign is COMPARATIVE.md's invariant: two runs
// of the same code, traced separately (addresses differ), align event for
// event with no difference, and the path of differences is the failure
// alone.
func TestTwoRunsOfOneProgramAlign(t *testing.T) {
	for _, sc := range []struct{ name, pkg, test string }{
		{"after-example", "./calc", "TestF"},
		{"sem-loop", ".", ""},
		{"sem-early-return", "./flags", "TestReparse"},
		{"sem-nil-deref", ".", "TestSecond"},
	} {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			dir := headTree(t, sc.name)
			test := sc.test
			if test == "" {
				test = testOf(t, sc.name)
			}
			a, b := traceTest(t, dir, sc.pkg, test), traceTest(t, dir, sc.pkg, test)
			if len(a.Events) != len(b.Events) {
				t.Fatalf("the runs have %d and %d events", len(a.Events), len(b.Events))
			}
			c, err := Compare(Runs{Failing: a, Passing: b, FailingDir: dir, PassingDir: dir, Prefix: "."})
			if err != nil {
				t.Fatal(err)
			}
			for i := range a.Events {
				j := c.Counterpart(Failing, i)
				if j != i {
					t.Fatalf("event %d (%s %s) aligns with %d", i, a.Events[i].Kind, a.SiteOf(i).Text, j)
				}
				x, y := outputs(a.Event(i)), outputs(b.Event(j))
				if len(x) != len(y) {
					t.Fatalf("event %d (%s) has %d outputs and %d", i, a.SiteOf(i).Text, len(x), len(y))
				}
				for k := range x {
					if eq, known := same(x[k], y[k]); known && !eq {
						t.Errorf("event %d (%s) differs from itself: %v vs %v", i, a.SiteOf(i).Text, x, y)
					}
				}
			}
			p, err := c.Path()
			if err != nil {
				t.Fatal(err)
			}
			fails := a.Failures()
			if len(p.Steps) != 1 || p.Steps[0].Event != fails[0] || p.Divergence != 0 {
				t.Errorf("path %+v, want the failure %d alone", p, fails[0])
			}
		})
	}
}

// testOf reads a scenario's test name from its header.
func testOf(t *testing.T, scenario string) string {
	ar, err := txtar.ParseFile(filepath.Join("..", "..", "testdata", scenario+".txtar"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(ar.Comment), "\n") {
		if v, ok := strings.CutPrefix(line, "test:"); ok {
			return strings.TrimSpace(v)
		}
	}
	t.Fatalf("%s names no test", scenario)
	return ""
}

// TestPathFollowsReferencesIntoUntracedCode: a pattern changed by the
// change is compiled by the regexp package, which the tracer does not
// enter. Both runs hold a *Regexp of the same shape, so only following
// what untraced code reads through and returns (whatever its shape)
// leads from the failed check back to the changed line. A constant is
// no read: the path names its declaration where a call used it.
func TestPathFollowsReferencesIntoUntracedCode(t *testing.T) {
	for _, decl := range []string{"var", "const"} {
		t.Run(decl, func(t *testing.T) { pathToPattern(t, decl) })
	}
}

func pathToPattern(t *testing.T, decl string) {
	src := func(pattern string) map[string]string {
		return moduleP(
			"package p\n\nimport \"regexp\"\n\n"+decl+" pattern = `"+pattern+"`\n\n"+
				"func Match(s string) bool {\n\tre := regexp.MustCompile(pattern)\n\treturn re.FindString(s) == s\n}\n",
			"package p\n\nimport \"testing\"\n\nfunc TestMatch(t *testing.T) {\n\tif !Match(\"a_b\") {\n\t\tt.Fatal(\"no match\")\n\t}\n}\n",
		)
	}
	pathReaches(t, src(`[a-z_]+`), src(`[a-z]+`), "TestMatch",
		"re := regexp.MustCompile(pattern)", "return re.FindString(s) == s")
}

// TestPathFollowsWritesByUntracedCode: the changed line sets a field
// through reflect, which the tracer does not enter, so no traced write
// made the value the test reads; the path goes back to the untraced call
// in the change that was handed a reference.
func TestPathFollowsWritesByUntracedCode(t *testing.T) {
	src := func(set string) map[string]string {
		return moduleP(
			"package p\n\nimport \"reflect\"\n\ntype Foo struct{ Bar *int }\n\n"+
				"func Reset(f *Foo) {\n\tv := reflect.ValueOf(f).Elem().Field(0)\n\t"+set+"\n}\n",
			"package p\n\nimport \"testing\"\n\nfunc TestReset(t *testing.T) {\n\tn := 1\n\tf := Foo{Bar: &n}\n\tReset(&f)\n\tif f.Bar != nil {\n\t\tt.Fatal(\"not reset\")\n\t}\n}\n",
		)
	}
	pathReaches(t, src("v.Set(reflect.Zero(v.Type()))"), src("v.Set(reflect.New(v.Type().Elem()))"), "TestReset")
}

// pathReaches traces test in two versions of module p, compares them
// with the one hunk between them reverted in the passing run, and checks
// that the path of differences reaches the hunk, holds the statements
// want, and lists each run's steps in the order they ran. It returns the
// comparison and its path.
// moduleP is a module of one package, p, with source src and test file
// test.
func moduleP(src, test string) map[string]string {
	return map[string]string{"go.mod": "module example.com/m\n\ngo 1.22\n", "p/p.go": src, "p/p_test.go": test}
}

func pathReaches(t *testing.T, base, head map[string]string, test string, want ...string) (*Comparison, Path) {
	t.Helper()
	c, p, hunks, lines := comparePath(t, base, head, test, func(hunks []diffhunks.Hunk) []diffhunks.ID {
		if len(hunks) != 1 {
			t.Fatalf("%d hunks, want the pattern's line", len(hunks))
		}
		return []diffhunks.ID{hunks[0].ID}
	})
	h := hunks[0]
	reached := false
	for _, s := range p.Steps {
		if st := c.Statement(s); st.Hunk == h.ID || st.File == h.File && h.Head.Contains(st.Line) {
			reached = true
		}
	}
	if !reached {
		t.Errorf("the path does not reach the changed line %s:%s:\n%s", h.File, h.Head, strings.Join(lines, "\n"))
	}
	for _, want := range want {
		if !slices.ContainsFunc(lines, func(l string) bool { return strings.HasSuffix(l, want) }) {
			t.Errorf("the path lacks %q:\n%s", want, strings.Join(lines, "\n"))
		}
	}
	checkOrder(t, c, p)
	return c, p
}

// comparePath traces test in the base and head trees, compares the runs
// with the hunks proof picks reverted, and walks the path: it returns the
// comparison, the path, the change's hunks and each step as
// "file:line text".
func comparePath(t *testing.T, base, head map[string]string, test string, proof func([]diffhunks.Hunk) []diffhunks.ID) (*Comparison, Path, []diffhunks.Hunk, []string) {
	t.Helper()
	baseDir, headDir := writeFiles(t, base), writeFiles(t, head)
	set, err := diffhunks.FromDirs(baseDir, headDir)
	if err != nil {
		t.Fatal(err)
	}
	hunks := set.Hunks()
	ids := proof(hunks)
	failing, passing := traceTest(t, headDir, "./p", test), traceTest(t, baseDir, "./p", test)
	c, err := Compare(Runs{Failing: failing, Passing: passing, FailingDir: headDir, PassingDir: baseDir, Prefix: ".",
		Hunks: hunks, Proof: ids})
	if err != nil {
		t.Fatal(err)
	}
	p, err := c.Path()
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, s := range p.Steps {
		st := c.Statement(s)
		lines = append(lines, fmt.Sprintf("%s:%d %s", st.File, st.Line, st.Text))
	}
	return c, p, hunks, lines
}

// handlerChain is a module whose Run calls a handler that counts, then
// handlers (Go source, comma-separated), through a Next loop that advances
// a field index in its post statement, as web routers do; its test wants
// Run to count want calls.
func handlerChain(handlers string, want int) map[string]string {
	return moduleP(
		"package p\n\ntype Ctx struct {\n\tindex    int\n\thandlers []func(*Ctx)\n}\n\n"+
			"func (c *Ctx) Next() {\n\tc.index++\n\tfor s := len(c.handlers); c.index < s; c.index++ {\n\t\tc.handlers[c.index](c)\n\t}\n}\n\n"+
			"var calls int\n\nfunc Run() int {\n\tcalls = 0\n\tc := &Ctx{index: -1}\n\tc.handlers = []func(*Ctx){\n\t\tfunc(c *Ctx) { calls++ },\n\t\t"+
			handlers+",\n\t}\n\tc.Next()\n\treturn calls\n}\n",
		fmt.Sprintf("package p\n\nimport \"testing\"\n\nfunc TestRun(t *testing.T) {\n\tif got := Run(); got != %d {\n\t\tt.Fatal(got)\n\t}\n}\n", want),
	)
}

// TestPathFollowsLoopPostStatements: the change makes a handler reset
// the index a loop's post statement (`c.index++`, a field) advances, so
// the loop runs a handler again. The runs first differ at the loop's
// check, whose index comes from the post statement; only when that
// statement is traced does the path go on to the reset in the change.
func TestPathFollowsLoopPostStatements(t *testing.T) {
	src := func(handler string) map[string]string { return handlerChain(handler, 1) }
	pathReaches(t, src("func(c *Ctx) {}"), src("func(c *Ctx) { if calls < 2 { c.index = -1 } }"), "TestRun",
		"p.go:10 c.index++", "p.go:10 c.index < s")
}

// TestPathThroughSlicedArrayPointer: the changed function slices an array
// pointer (u[:]), which the tracer once could not instrument without the
// compiler failing, leaving the whole file untraced and the path with no
// way from the panic to the change.
func TestPathThroughSlicedArrayPointer(t *testing.T) {
	src := func(n string) map[string]string {
		return moduleP(
			"package p\n\ntype ID [4]byte\n\nfunc (u *ID) Parse(s string) {\n\tb := u[:]\n\tk := "+n+
				"\n\tcopy(b, s[:k])\n}\n",
			"package p\n\nimport \"testing\"\n\nfunc TestParse(t *testing.T) {\n\tvar u ID\n\tu.Parse(\"abcdef\")\n\tif u[0] != 'a' {\n\t\tt.Fatal(u)\n\t}\n}\n",
		)
	}
	pathReaches(t, src("4"), src("8"), "TestParse", "p.go:8 copy(b, s[:k])")
}

// TestPathThroughBareReturn: a bare `return` hands back a named result,
// which the tracer records as a value, not a read. The failing run never
// sets the result (the entry's zero value); the passing run sets it under
// a branch the change turned, so the path goes on from the return through
// the passing run's write to that branch and the changed limit.
func TestPathThroughBareReturn(t *testing.T) {
	src := func(limit string) map[string]string {
		return moduleP(
			"package p\n\nimport \"errors\"\n\nvar limit = "+limit+"\n\n"+
				"func Check(n int) (err error) {\n\tif n > limit {\n\t\terr = errors.New(\"too big\")\n\t}\n\treturn\n}\n",
			"package p\n\nimport \"testing\"\n\nfunc TestCheck(t *testing.T) {\n\tif Check(4) == nil {\n\t\tt.Fatal(\"no error\")\n\t}\n}\n",
		)
	}
	pathReaches(t, src("3"), src("5"), "TestCheck",
		"p.go:11 return", `p.go:9 err = errors.New("too big")`, "p.go:8 n > limit")
}

// TestPathFromOutOfRangeHandler: the change shortens the handler slice a
// loop calls through (c.handlers[c.index](c)); the index goes out of
// range. Only when the call statement records the slice and index it took
// the function value from does the path go from the panic to the change.
func TestPathFromOutOfRangeHandler(t *testing.T) {
	src := func(handler string) map[string]string {
		return handlerChain(handler+",\n\t\tfunc(c *Ctx) { calls++ }", 2)
	}
	pathReaches(t, src("func(c *Ctx) {}"), src("func(c *Ctx) { c.handlers = c.handlers[:1] }"), "TestRun",
		"p.go:11 c.handlers[c.index](c)")
}

// TestPathThroughForwardedResult: `return check(p)` hands check's results
// on, and its return event records no values of its own. The change makes
// check fail; the path must go from the test's comparison through the
// forwarding return into check, not stop at the call as if the results
// were alike.
func TestPathThroughForwardedResult(t *testing.T) {
	src := func(bad string) map[string]string {
		return moduleP(
			"package p\n\nimport \"errors\"\n\nvar errBad = errors.New(\"bad\")\n\n"+
				"func Match(p string) (bool, error) {\n\treturn check(p)\n}\n\n"+
				"func check(p string) (bool, error) {\n\tif p == "+bad+" {\n\t\treturn false, errBad\n\t}\n\treturn false, nil\n}\n",
			"package p\n\nimport \"testing\"\n\nfunc TestMatch(t *testing.T) {\n\tok, err := Match(\"a\")\n\tif ok || err != nil {\n\t\tt.Fatal(ok, err)\n\t}\n}\n",
		)
	}
	pathReaches(t, src(`"b"`), src(`"a"`), "TestMatch", `p.go:12 p == "a"`, "p.go:8 return check(p)")
}

// TestPathOrdersStepsOfThePassingRunOnly: the change deletes two
// statements, the second using the first's result, so both ran in the
// passing run only and stand before the same shared event. The path
// lists them in the order they ran (the definition before its use), not
// in the order the walk back from the failure met them.
func TestPathOrdersStepsOfThePassingRunOnly(t *testing.T) {
	src := func(body string) map[string]string {
		return moduleP(
			"package p\n\nfunc Scale(x int) int {\n\tz := x\n"+body+"\treturn z\n}\n",
			"package p\n\nimport \"testing\"\n\nfunc TestScale(t *testing.T) {\n\tif got := Scale(3); got != 8 {\n\t\tt.Fatal(got)\n\t}\n}\n",
		)
	}
	pathReaches(t, src("\ty := x + 1\n\tz = y * 2\n"), src(""), "TestScale", "p.go:5 y := x + 1", "p.go:6 z = y * 2")
}

// checkOrder fails unless the path's steps of each run are in the order
// that run executed them, among steps placed at the same point.
func checkOrder(t *testing.T, c *Comparison, p Path) {
	t.Helper()
	for k := 1; k < len(p.Steps); k++ {
		a, b := p.Steps[k-1], p.Steps[k]
		if a.Side == b.Side && a.Event > b.Event && c.when(item{side: a.Side, event: a.Event}) == c.when(item{side: b.Side, event: b.Event}) {
			sa, sb := c.Statement(a), c.Statement(b)
			t.Errorf("step %d (%s:%d %s) ran after step %d (%s:%d %s)", k-1, sa.File, sa.Line, sa.Text, k, sb.File, sb.Line, sb.Text)
		}
	}
}

// TestPathThroughEarlyReturnGuard: the change rewrites a lookup so that it
// answers only for one kind, behind a guard whose body returns. The
// failing run's `return false` lies outside the guard, so no branch holds
// it; it ran because the guard was false, and the path must go through
// that guard (control dependence through an early return) to what it read.
func TestPathThroughEarlyReturnGuard(t *testing.T) {
	src := func(body string) map[string]string {
		return moduleP(
			"package p\n\ntype Kind int\n\nconst (\n\tStruct Kind = iota\n\tPtr\n)\n\n"+
				"func Lookup(k Kind, name string) bool {\n"+body+"}\n",
			"package p\n\nimport \"testing\"\n\nfunc TestLookup(t *testing.T) {\n\tif !Lookup(Ptr, \"Func\") {\n\t\tt.Fatal(\"unknown name\")\n\t}\n}\n",
		)
	}
	pathReaches(t, src("\treturn name == \"Func\"\n"), src("\tif k == Struct {\n\t\treturn name == \"Func\"\n\t}\n\treturn false\n"), "TestLookup",
		"p.go:11 k == Struct", "p.go:14 return false")
	// The guard's body leaves only in a nested statement.
	pathReaches(t, src("\treturn name == \"Func\"\n"), src("\tif k == Struct {\n\t\tif name != \"\" {\n\t\t\treturn name == \"Func\"\n\t\t}\n\t}\n\treturn false\n"), "TestLookup",
		"p.go:11 k == Struct", "p.go:16 return false")
}

// TestPathThroughAppendedBuffer: the change appends one more byte early
// into a buffer that later appends extend. Each `buf = append(buf, c)`
// is traced as two events, the append (which reads buf) and the
// assignment of its result; the path must go from the assignment to the
// append and on through buf to the change, not stop at the last append
// as if nothing flowed into it.
func TestPathThroughAppendedBuffer(t *testing.T) {
	src := func(open string) map[string]string {
		return moduleP(
			"package p\n\nfunc Wrap(s string) string {\n\tvar buf []byte\n\tbuf = append(buf, "+open+")\n"+
				"\tbuf = append(buf, s...)\n\tbuf = append(buf, ']')\n\treturn string(buf)\n}\n",
			"package p\n\nimport \"testing\"\n\nfunc TestWrap(t *testing.T) {\n\tif got := Wrap(\"x\"); got != \"[x]\" {\n\t\tt.Fatal(got)\n\t}\n}\n",
		)
	}
	pathReaches(t, src("'['"), src("'[', ' '"), "TestWrap", "p.go:7 buf = append(buf, ']')")
}

// TestPathThroughByteContent: the change alters a []byte's content, not
// its length, and the bytes then pass through code the tracer does not
// enter (bytes.ToUpper). Slices compare by shape only; a []byte is also
// recorded by its content's hash, so the path sees that the bytes differ
// and goes back through them to the change.
func TestPathThroughByteContent(t *testing.T) {
	src := func(open, close string) map[string]string {
		return moduleP(
			"package p\n\nimport \"bytes\"\n\nfunc Tag(name string) []byte {\n\tb := []byte(\""+open+"\" + name + \""+close+"\")\n\treturn b\n}\n\n"+
				"func Render(name string) string {\n\tb := Tag(name)\n\tout := bytes.ToUpper(b)\n\treturn string(out)\n}\n",
			"package p\n\nimport \"testing\"\n\nfunc TestRender(t *testing.T) {\n\tif got := Render(\"b\"); got != \"<B>\" {\n\t\tt.Fatal(got)\n\t}\n}\n",
		)
	}
	pathReaches(t, src("<", ">"), src("(", ")"), "TestRender", "p.go:12 out := bytes.ToUpper(b)")
}

// TestPathFromHelperThatFailNows: the test's check is a helper of another
// module, which the tracer does not enter, and it ends the test with
// t.Fatalf. The call never returns, so the tracer never records its
// arguments; the failing run's exit at the call must still lead to the
// variables it was passed, and on to the change.
func TestPathFromHelperThatFailNows(t *testing.T) {
	src := func(open string) map[string]string {
		return map[string]string{
			"go.mod":      "module example.com/m\n\ngo 1.22\n\nrequire example.com/h v0.0.0\n\nreplace example.com/h => ./h\n",
			"h/go.mod":    "module example.com/h\n\ngo 1.22\n",
			"h/h.go":      "package h\n\nimport \"testing\"\n\nfunc Equal(t *testing.T, got, want string) {\n\tif got != want {\n\t\tt.Fatalf(\"got %q, want %q\", got, want)\n\t}\n}\n",
			"p/p.go":      "package p\n\nfunc Wrap(s string) string {\n\treturn " + open + " + s + \"]\"\n}\n",
			"p/p_test.go": "package p\n\nimport (\n\t\"testing\"\n\n\t\"example.com/h\"\n)\n\nfunc TestWrap(t *testing.T) {\n\tgot := Wrap(\"x\")\n\th.Equal(t, got, \"[x]\")\n}\n",
		}
	}
	pathReaches(t, src(`"["`), src(`"("`), "TestWrap", `p_test.go:10 got := Wrap("x")`)
}

// TestPathThroughWrittenBuffer: the change alters what is written into a
// bytes.Buffer, whose methods the tracer does not enter, and the test
// reads the buffer back with String. The String call's arguments are
// alike in both runs (the same buffer); the path must go back to the
// earlier calls handed that buffer (as receiver, in a statement of its
// own or inside an assignment, or as `&buf`) whose arguments differ, and
// on to the change.
func TestPathThroughWrittenBuffer(t *testing.T) {
	for _, write := range []string{
		"buf.WriteString(s)",
		"_, err := buf.WriteString(s)\n\t\t_ = err",
		"fmt.Fprint(&buf, s)",
	} {
		t.Run(strings.Fields(write)[0], func(t *testing.T) {
			t.Parallel()
			src := func(open string) map[string]string {
				return moduleP(
					"package p\n\nimport (\n\t\"bytes\"\n\t\"fmt\"\n)\n\nvar _ = fmt.Sprint\n\n"+
						"func Render(names []string) string {\n\tvar buf bytes.Buffer\n\tfor _, n := range names {\n"+
						"\t\ts := "+open+" + n\n\t\t"+write+"\n\t\tbuf.WriteByte(' ')\n\t}\n\treturn buf.String()\n}\n",
					"package p\n\nimport \"testing\"\n\nfunc TestRender(t *testing.T) {\n\tif got := Render([]string{\"a\", \"b\"}); got != \"#a #b \" {\n\t\tt.Fatal(got)\n\t}\n}\n",
				)
			}
			pathReaches(t, src(`"#"`), src(`"$"`), "TestRender", "p.go:14 "+strings.Split(write, "\n")[0])
		})
	}
}

// TestPathThroughReceiverCall: the test calls a method of code the tracer
// does not enter on the result of a module call (`New(2).Span().String()`).
// The receiver is read, not passed, so the call's expressions do not hold
// it; the path must still go back into the module call that made it.
func TestPathThroughReceiverCall(t *testing.T) {
	src := func(plus string) map[string]string {
		return moduleP(
			"package p\n\nimport \"time\"\n\ntype Clock struct{ h int }\n\nfunc New(h int) *Clock { return &Clock{h} }\n\n"+
				"func (c *Clock) Span() time.Duration {\n\treturn time.Duration(c.h"+plus+") * time.Hour\n}\n",
			"package p\n\nimport \"testing\"\n\nfunc TestSpan(t *testing.T) {\n\tif New(2).Span().String() != \"2h0m0s\" {\n\t\tt.Fatal(\"span\")\n\t}\n}\n",
		)
	}
	pathReaches(t, src(""), src("+1"), "TestSpan")
}

// TestPathThroughObjectMadeByUntracedCode: a regular expression compiled
// once, lazily, from a pattern the change altered, is matched through a
// getter (`get().MatchString(s)`). Every input of the match is alike in
// both runs (the same object, the same string); the path must go back to
// the call that made the object, and through its argument to the
// pattern's declaration.
func TestPathThroughObjectMadeByUntracedCode(t *testing.T) {
	src := func(pattern string) map[string]string {
		return moduleP(
			"package p\n\nimport (\n\t\"regexp\"\n\t\"sync\"\n)\n\nconst pattern = "+pattern+"\n\n"+
				"var (\n\tonce sync.Once\n\tre   *regexp.Regexp\n)\n\n"+
				"func get() *regexp.Regexp {\n\tonce.Do(func() {\n\t\tre = regexp.MustCompile(pattern)\n\t})\n\treturn re\n}\n\n"+
				"func Valid(s string) bool {\n\treturn get().MatchString(s)\n}\n",
			"package p\n\nimport \"testing\"\n\nfunc TestValid(t *testing.T) {\n\tif !Valid(\"12345678\") {\n\t\tt.Fatal(\"rejected\")\n\t}\n}\n",
		)
	}
	pathReaches(t, src("`^[0-9]{7,14}$`"), src("`^[0-9]{1,7}$`"), "TestValid", "p.go:17 regexp.MustCompile(pattern)")
}

// TestPathThroughDeletedMapEntry: the change deletes an entry from a map
// after using it, and much later the map is read whole (its length, or a
// range over it). That read is alike in both runs (the same map); the path
// must go back to the delete, which writes the entry it removes.
func TestPathThroughDeletedMapEntry(t *testing.T) {
	for _, read := range []string{
		"n := len(fields)\n\treturn n",
		"n := 0\n\tfor range fields {\n\t\tn++\n\t}\n\treturn n",
	} {
		t.Run(strings.Fields(read)[2], func(t *testing.T) {
			t.Parallel()
			src := func(drop string) map[string]string {
				return moduleP(
					"package p\n\nfunc Rest(fields map[string]int, parts []string) int {\n\tfor _, p := range parts {\n\t\t_ = fields[p]\n"+
						drop+"\t}\n\treturn count(fields)\n}\n\nfunc count(fields map[string]int) int {\n\t"+read+"\n}\n",
					"package p\n\nimport \"testing\"\n\nfunc TestRest(t *testing.T) {\n\tif got := Rest(map[string]int{\"a\": 1, \"b\": 2}, []string{\"a\"}); got != 2 {\n\t\tt.Fatal(got)\n\t}\n}\n",
				)
			}
			pathReaches(t, src(""), src("\t\tdelete(fields, p)\n"), "TestRest", "p.go:6 delete(fields, p)")
		})
	}
}

// TestPathThroughAddedGoto: the change adds a goto that leaves a loop
// early, to a label the loop already jumped to. The runs then part at the
// new branch, and what the passing run went on to do ran in it only; the
// path must reach the added lines.
func TestPathThroughAddedGoto(t *testing.T) {
	src := func(extra string) map[string]string {
		return moduleP(
			"package p\n\nfunc Parse(s string) (n int) {\n\tfor i := 0; i < len(s); i++ {\n\t\tif s[i] == '#' {\n\t\t\tgoto done\n\t\t}\n"+
				extra+"\t\tif s[i] != ' ' {\n\t\t\tn++\n\t\t}\n\t}\ndone:\n\treturn n\n}\n",
			"package p\n\nimport \"testing\"\n\nfunc TestParse(t *testing.T) {\n\tif got := Parse(\"ab cd#e\"); got != 4 {\n\t\tt.Fatal(got)\n\t}\n}\n",
		)
	}
	pathReaches(t, src(""), src("\t\tif s[i] == ' ' {\n\t\t\tgoto done\n\t\t}\n"), "TestParse", "p.go:8 s[i] == ' '")
}

// TestSliceCapacityShownWhereItDiffers: a slice is shown by its length,
// but where the two runs' slices at a step have the same length and
// another capacity, the capacity is what differs, and both runs' values
// show it.
func TestSliceCapacityShownWhereItDiffers(t *testing.T) {
	src := func(size string) map[string]string {
		return moduleP(
			"package p\n\nfunc Room(n int) int {\n\ts := make([]int, 0, "+size+")\n\treturn cap(s)\n}\n",
			"package p\n\nimport \"testing\"\n\nfunc TestRoom(t *testing.T) {\n\tif got := Room(3); got != 3 {\n\t\tt.Fatal(got)\n\t}\n}\n",
		)
	}
	c, p := pathReaches(t, src("n"), src("n+1"), "TestRoom")
	for _, s := range p.Steps {
		st := c.Statement(s)
		if st.Text != "return cap(s)" {
			continue
		}
		pass, ok := c.Annotate(s.Event)
		if st.Values["s"] != "len 0 (cap 4)" || !ok || pass.Values["s"] != "len 0 (cap 3)" {
			t.Errorf("s = %q, without the change %+v; want len 0 (cap 4) against len 0 (cap 3)", st.Values["s"], pass)
		}
		return
	}
	t.Errorf("no step at return cap(s)")
}

// TestSummaryKeepsDecisionsInChangedCode: when the path has more rows
// than a summary shows, a condition in new code (the guard that let
// `return false` through) stays beside its hunk's last step, ahead of the
// steps in unchanged code that only carry the result to the assertion.
func TestSummaryKeepsDecisionsInChangedCode(t *testing.T) {
	src := func(body string) map[string]string {
		return moduleP(
			"package p\n\ntype Kind int\n\nconst (\n\tStruct Kind = iota\n\tPtr\n)\n\n"+
				"func Lookup(k Kind, name string) bool {\n"+body+"}\n\n"+
				"func Check(k Kind, name string) string {\n\tif !Lookup(k, name) {\n\t\treturn unknown(name)\n\t}\n\treturn \"\"\n}\n\n"+
				"func unknown(name string) string {\n\tmsg := \"unknown \" + name\n\tmsg += \" in the environment\"\n\tmsg += \" of the program\"\n\treturn msg\n}\n",
			"package p\n\nimport \"testing\"\n\nfunc TestCheck(t *testing.T) {\n\tif msg := Check(Ptr, \"Func\"); msg != \"\" {\n\t\tt.Fatal(msg)\n\t}\n}\n",
		)
	}
	c, p := pathReaches(t, src("\treturn name == \"Func\"\n"), src("\treturn find(k, name)\n}\n\nfunc find(k Kind, name string) bool {\n\tif k == Struct {\n\t\treturn name == \"Func\"\n\t}\n\treturn false\n"), "TestCheck",
		"p.go:15 k == Struct", "p.go:18 return false")
	all := c.Summary(len(p.Steps))
	const most = 5
	if len(all) <= most {
		t.Fatalf("the path's summary has %d rows, want more than %d for the cut to matter", len(all), most)
	}
	var shown []string
	for _, st := range c.Summary(most) {
		shown = append(shown, fmt.Sprintf("%s:%d %s", st.File, st.Line, st.Text))
	}
	if want := "p.go:15 k == Struct"; !slices.ContainsFunc(shown, func(l string) bool { return strings.HasSuffix(l, want) }) {
		t.Errorf("the %d-row summary lacks %q:\n%s", most, want, strings.Join(shown, "\n"))
	}
}

// TestPathFollowsOnlyTheResultRead: the test checks only the error of
// `n, err := Parse(s)`, so the path goes from err to the return's error
// expression and the branch that chose it, not to how n was computed,
// although the change altered that too.
func TestPathFollowsOnlyTheResultRead(t *testing.T) {
	src := func(body string) map[string]string {
		return moduleP(
			"package p\n\nimport \"errors\"\n\nfunc Parse(s string) (int, error) {\n"+body+"\t\treturn n, errors.New(\"short\")\n\t}\n\treturn n, nil\n}\n",
			"package p\n\nimport \"testing\"\n\nfunc TestParse(t *testing.T) {\n\tn, err := Parse(\"ab\")\n\t_ = n\n\tif err != nil {\n\t\tt.Fatal(err)\n\t}\n}\n",
		)
	}
	c, p := pathReaches(t, src("\tn := len(s) * 2\n\tif s == \"\" {\n"), src("\tn := len(s) * 3\n\tif len(s) < 3 {\n"), "TestParse",
		"p.go:7 len(s) < 3", "p_test.go:6 n, err := Parse(\"ab\")")
	for _, s := range p.Steps {
		if st := c.Statement(s); strings.HasSuffix(st.File, "p.go") && st.Line == 6 {
			t.Errorf("the path holds %s:%d %s, which made only the result the test did not check", st.File, st.Line, st.Text)
		}
	}
}

// TestSameInterfaces: two non-nil interfaces are known to differ when the
// runtime named two different dynamic types; otherwise the trace cannot
// tell (the same type may hold other values), except for two errors with
// recorded messages, alike when the messages are.
func TestSameInterfaces(t *testing.T) {
	iface := func(name string) trace.Value {
		return trace.Value{Kind: trace.ValIface, Bits: 1, Hash: 2, Prefix: name}
	}
	// An error with its message: the first bytes shown, and its hash.
	msg := func(text string, hash int64) trace.Value {
		return trace.Value{Kind: trace.ValIface, Bits: 1, Hash: 2, Prefix: "*errors.errorString\x00" + text, Len: 12, Cap: hash}
	}
	for _, tc := range []struct {
		a, b      trace.Value
		eq, known bool
	}{
		{iface("*p.NotFound"), iface("*errors.errorString"), false, true},
		{iface("*p.NotFound"), iface("*p.NotFound"), false, false},
		{iface(""), iface("*p.NotFound"), false, false},
		{iface("*p.NotFound"), trace.Value{Kind: trace.ValIface, Nil: true}, false, true},
		{msg("EOF", 7), msg("EOF", 7), true, true},
		{msg("unexpect", 9), msg("unexpect", 10), false, true},
		{msg("EOF", 7), iface("*errors.errorString"), false, true},
	} {
		if eq, known := same(tc.a, tc.b); eq != tc.eq || known != tc.known {
			t.Errorf("same(%q, %q) = %v, %v; want %v, %v", tc.a.Prefix, tc.b.Prefix, eq, known, tc.eq, tc.known)
		}
	}
}

// TestDivergenceInSwappedCallee: the change swapped the function behind
// an unchanged call (a function variable now names a new function), so
// the callee's frame has no counterpart though the call has. The runs
// part where that call entered the new function, not at the test's
// comparison that the changed result later made differ.
func TestDivergenceInSwappedCallee(t *testing.T) {
	src := func(fn, body string) map[string]string {
		return moduleP(
			"package p\n\nfunc plainSize(s string) int { return len(s) }\n\nvar sizeFn = "+fn+"\n"+body+"\nfunc Size(s string) int { return sizeFn(s) }\n",
			"package p\n\nimport \"testing\"\n\nfunc TestSize(t *testing.T) {\n\tif got := Size(\"ab\"); got != 2 {\n\t\tt.Fatal(got)\n\t}\n}\n",
		)
	}
	_, p, _, lines := comparePath(t, src("plainSize", ""), src("paddedSize", "\nfunc paddedSize(s string) int {\n\tn := len(s) + 1\n\treturn n\n}\n"), "TestSize",
		func(hunks []diffhunks.Hunk) []diffhunks.ID {
			var all []diffhunks.ID
			for _, h := range hunks {
				all = append(all, h.ID)
			}
			return all
		})
	if p.Divergence < 0 {
		t.Fatalf("no divergence in\n%s", strings.Join(lines, "\n"))
	}
	if got := lines[p.Divergence]; !strings.HasSuffix(got, "p.go:7 func paddedSize(s string) int {") {
		t.Errorf("the runs part at %s, want the entry of paddedSize (p.go:7), in\n%s", got, strings.Join(lines, "\n"))
	}
}

// TestOmissionInRangedValue is a deletion read through a range loop: the
// change deletes the statement that trimmed the string a loop ranges
// over. The iterations' values differ, but the loop itself ran alike;
// the path must go from the iterations to the value ranged over, and on
// to its definition, which ran in the passing run only. That deleted
// statement is where the runs part, not the first iteration that saw
// another character.
func TestOmissionInRangedValue(t *testing.T) {
	src := func(trim string) map[string]string {
		return moduleP(
			"package p\n\nimport \"strings\"\n\nvar _ = strings.Trim\n\nfunc Camel(s string) string {\n"+trim+
				"\tn := \"\"\n\tup := false\n\tfor _, v := range s {\n\t\tif v == ' ' {\n\t\t\tup = true\n\t\t\tcontinue\n\t\t}\n"+
				"\t\tif up {\n\t\t\tv -= 'a' - 'A'\n\t\t\tup = false\n\t\t}\n\t\tn += string(v)\n\t}\n\treturn n\n}\n",
			"package p\n\nimport \"testing\"\n\nfunc TestCamel(t *testing.T) {\n\tif got := Camel(\" ab\"); got != \"ab\" {\n\t\tt.Fatal(got)\n\t}\n}\n",
		)
	}
	c, p := pathReaches(t, src("\ts = strings.Trim(s, \" \")\n"), src(""), "TestCamel", "p.go:8 s = strings.Trim(s, \" \")")
	if p.Divergence < 0 {
		t.Fatal("no divergence")
	}
	d := c.Statement(p.Steps[p.Divergence])
	if !d.OnlyPassing || d.Line != 8 || !d.Diverges {
		t.Errorf("the runs part at %s:%d %s (only passing %v, marked %v), want the deleted p.go:8", d.File, d.Line, d.Text, d.OnlyPassing, d.Diverges)
	}
}

// TestPathThroughElementReceiver: the test calls a method through an
// interface held in a slice element (`shapes[0].Area()`), and changed
// code stored the element. The call must read its receiver, so
// that the path goes from the method's entry back to the element's
// definition, not stop at a call that read nothing.
func TestPathThroughElementReceiver(t *testing.T) {
	pathReaches(t, shapes("\tshapes := make([]Shape, 1)\n\tshapes[0] = Sq{n}\n\treturn shapes\n"),
		shapes("\tshapes := make([]Shape, 1)\n\tshapes[0] = Sq{n + 1}\n\treturn shapes\n"), "TestArea", "p_test.go:7 shapes[0].Area()")
}

// TestPathThroughSliceLiteralElement: the element was stored by a
// composite literal (`[]Shape{Sq{n + 1}}`), which no traced write of the
// element records, and the slice that holds it compares alike in both
// runs (one element). The path must go from the element to the slice
// that holds it and on, for its contents, to the literal.
func TestPathThroughSliceLiteralElement(t *testing.T) {
	pathReaches(t, shapes("\treturn []Shape{Sq{n}}\n"), shapes("\treturn []Shape{Sq{n + 1}}\n"), "TestArea",
		"p_test.go:6 shapes := Make(2)", "p.go:10 return []Shape{Sq{n + 1}}")
}

// shapes is a module whose Make has the body given and whose test calls
// Area on the first shape Make returns.
func shapes(body string) map[string]string {
	return moduleP(
		"package p\n\ntype Shape interface{ Area() int }\n\ntype Sq struct{ n int }\n\nfunc (s Sq) Area() int { return s.n * s.n }\n\n"+
			"func Make(n int) []Shape {\n"+body+"}\n",
		"package p\n\nimport \"testing\"\n\nfunc TestArea(t *testing.T) {\n\tshapes := Make(2)\n\tif a := shapes[0].Area(); a != 4 {\n\t\tt.Fatal(a)\n\t}\n}\n",
	)
}

// TestChainMarksMergedDivergence: the change deletes a nil guard, and the
// failing run panics on the line the guard stood before. The chain shows
// the deleted guard merged into the row of that line; where the guard is
// where the runs part, the row carries the mark.
func TestChainMarksMergedDivergence(t *testing.T) {
	src := func(guard string) map[string]string {
		return moduleP(
			"package p\n\ntype E struct{ xs []int }\n\nfunc Append(err *E, x int) *E {\n"+guard+
				"\terr.xs = append(err.xs, x)\n\treturn err\n}\n",
			"package p\n\nimport \"testing\"\n\nfunc TestAppend(t *testing.T) {\n\tif e := Append(nil, 1); len(e.xs) != 1 {\n\t\tt.Fatal(e.xs)\n\t}\n}\n",
		)
	}
	c, _ := pathReaches(t, src("\tif err == nil {\n\t\terr = new(E)\n\t}\n"), src(""), "TestAppend")
	var marked []string
	for _, st := range c.Chain() {
		if st.Diverges {
			marked = append(marked, fmt.Sprintf("%s:%d %s", st.File, st.Line, st.Text))
		}
	}
	if len(marked) != 1 {
		t.Errorf("the chain marks %d steps where the runs part, want one: %v\n%+v", len(marked), marked, c.Chain())
	}
}

// TestPathThroughSliceElements: the change alters the elements a function
// stores in a slice it returns, not its length, and the test compares the
// whole slice in a call the tracer does not enter. The two runs' slices
// have one length and capacity, too long to be recorded with their
// elements, and only their elements' hashes tell them apart (numbers by
// their bits, strings by their lengths and first bytes): the path goes
// from the comparison through the slice to the changed store, and the step
// shows that the elements differ.
func TestPathThroughSliceElements(t *testing.T) {
	for _, tc := range []struct {
		name, elem, base, head, want string
	}{
		{"numbers", "int", "ws[i] = i + 1", "ws[i] = 2 * (i + 1)", "1, 2, 3, 4, 5"},
		{"strings", "string", `ws[i] = "w" + string(rune('0'+i+1))`, `ws[i] = "v" + string(rune('0'+i+1))`, `"w1", "w2", "w3", "w4", "w5"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := func(store string) map[string]string {
				return moduleP(
					"package p\n\nfunc Weights(n int) []"+tc.elem+" {\n\tws := make([]"+tc.elem+", n)\n\tfor i := range ws {\n\t\t"+store+"\n\t}\n\treturn ws\n}\n",
					"package p\n\nimport (\n\t\"slices\"\n\t\"testing\"\n)\n\nfunc TestW(t *testing.T) {\n\tgot := Weights(5)\n\tif !slices.Equal(got, []"+tc.elem+"{"+tc.want+"}) {\n\t\tt.Fatal(got)\n\t}\n}\n",
				)
			}
			c, p := pathReaches(t, src(tc.base), src(tc.head), "TestW", "p.go:8 return ws")
			for _, s := range p.Steps {
				if st := c.Statement(s); st.Text == "return ws" && st.Values["ws"] != "len 5, other elements" {
					t.Errorf("return ws shows ws = %q, want len 5, other elements", st.Values["ws"])
				}
			}
		})
	}
}

// TestPathToOverwriteOfPassingOnlyRead: new code rewrites a node of a
// tree that a constructor made (its kind, and its children) and drops it
// from its parent, so the failing run's worklist never reaches it, while
// the passing run's emits it. No event of the failing run pairs with the passing run's read of the
// node's kind; the path must still reach the failing run's write of that
// kind, the faulty line, and not stop at the children it dropped.
func TestPathToOverwriteOfPassingOnlyRead(t *testing.T) {
	src := func(reduce string) map[string]string {
		return moduleP(`package p

type Kind int

const (
	Lit Kind = iota
	Neg
	Empty
	Nothing
)

type Node struct {
	Kind Kind
	Kids []*Node
}

func Emit(root *Node) []string {
	var ops []string
	work := []*Node{root}
	for len(work) > 0 {
		n := work[len(work)-1]
		work = work[:len(work)-1]
		switch n.Kind {
		case Lit:
			ops = append(ops, "lit")
		case Neg, Nothing:
			ops = append(ops, "fail")
		}
		for i := len(n.Kids) - 1; i >= 0; i-- {
			work = append(work, n.Kids[i])
		}
	}
	return ops
}

func reduce(n *Node) {
`+reduce+`}

func Compile(root *Node) []string {
	reduce(root)
	return Emit(root)
}
`, `package p

import "testing"

func node(k Kind, kids ...*Node) *Node { return &Node{Kind: k, Kids: kids} }

func TestCompile(t *testing.T) {
	root := node(Lit, node(Lit, node(Empty), node(Empty)), node(Neg, node(Empty)))
	if got := Compile(root); len(got) != 3 {
		t.Fatalf("ops %v, want lit, lit, fail", got)
	}
}
`)
	}
	head := `	for _, k := range n.Kids {
		reduce(k)
	}
	if n.Kind == Neg && len(n.Kids) == 1 && n.Kids[0].Kind == Empty {
		n.Kind = Empty
		n.Kids = nil
	}
	if n.Kind == Lit {
		kept := n.Kids[:0]
		for _, k := range n.Kids {
			if k.Kind != Empty {
				kept = append(kept, k)
			}
		}
		n.Kids = kept
	}
`
	_, _, _, lines := comparePath(t, src(""), src(head), "TestCompile", func(hunks []diffhunks.Hunk) []diffhunks.ID {
		return []diffhunks.ID{hunks[0].ID}
	})
	if !slices.ContainsFunc(lines, func(l string) bool { return strings.HasSuffix(l, "n.Kind = Empty") }) {
		t.Errorf("the path does not reach the kind's overwrite:\n%s", strings.Join(lines, "\n"))
	}
}

// TestPathToMapMadeAfresh: state that lived in a struct across calls
// moves into a map each call makes afresh, so an entry an earlier call
// wrote is gone. The rewritten read names the map otherwise
// (`seen[k]` for `r.seen[k]`) and no traced write made what it read:
// the entry pairs with the passing run's by its key, and the path goes
// back to where the failing run made the map.
func TestPathToMapMadeAfresh(t *testing.T) {
	test := "package p\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tr := &R{seen: map[string]bool{}}\n\tr.Add(\"a\")\n\tif r.Add(\"a\") {\n\t\tt.Fatal(\"a added twice\")\n\t}\n}\n"
	base := moduleP("package p\n\ntype R struct{ seen map[string]bool }\n\nfunc (r *R) Add(k string) bool {\n\tif r.seen[k] {\n\t\treturn false\n\t}\n\tr.seen[k] = true\n\treturn true\n}\n", test)
	head := moduleP("package p\n\ntype R struct{ seen map[string]bool }\n\nfunc (r *R) Add(k string) bool {\n\tseen := map[string]bool{}\n\tif seen[k] {\n\t\treturn false\n\t}\n\tseen[k] = true\n\treturn true\n}\n", test)
	_, _, _, lines := comparePath(t, base, head, "TestAdd", func(hunks []diffhunks.Hunk) []diffhunks.ID {
		var ids []diffhunks.ID
		for _, h := range hunks {
			ids = append(ids, h.ID)
		}
		return ids
	})
	if !slices.Contains(lines, "p/p.go:6 seen := map[string]bool{}") {
		t.Errorf("the path does not reach where the map is made:\n%s", strings.Join(lines, "\n"))
	}
}

// TestPathThroughReflectedSignature: the change rewrites a registered
// function's parameters from float64 to any, and a caller that converts
// each argument to the parameter's type (read by reflection) no longer
// parses a numeric string. The type comes from calls the tracer does not
// enter (`rt.In(i)` through an interface, `fn.Type()`), whose receivers
// are not recorded as reads: the path must go through them to the
// function value and the changed line that registered it.
func TestPathThroughReflectedSignature(t *testing.T) {
	src := func(fn string) map[string]string {
		return moduleP("package p\n\nimport (\n\t\"reflect\"\n\t\"strconv\"\n)\n\n// Register adds the filters.\nfunc Register(filters map[string]any) {\n\tfilters[\"plus\"] = "+fn+"\n}\n\n"+
			"func toFloat(v any) float64 {\n\tif f, ok := v.(float64); ok {\n\t\treturn f\n\t}\n\treturn 0\n}\n\n"+
			"// Apply calls the filter name with args, each converted to its parameter's type.\nfunc Apply(filters map[string]any, name string, args ...any) any {\n\tfn := reflect.ValueOf(filters[name])\n\trt := fn.Type()\n\tin := make([]reflect.Value, len(args))\n\tfor i, a := range args {\n\t\ttyp := rt.In(i)\n\t\tin[i] = convert(a, typ)\n\t}\n\treturn fn.Call(in)[0].Interface()\n}\n\n"+
			"func convert(a any, typ reflect.Type) reflect.Value {\n\tif s, ok := a.(string); ok && typ.Kind() == reflect.Float64 {\n\t\tf, _ := strconv.ParseFloat(s, 64)\n\t\treturn reflect.ValueOf(f)\n\t}\n\treturn reflect.ValueOf(a)\n}\n",
			"package p\n\nimport \"testing\"\n\nfunc TestPlus(t *testing.T) {\n\tfilters := map[string]any{}\n\tRegister(filters)\n\tif got := Apply(filters, \"plus\", \"10\", 1.0); got != 11.0 {\n\t\tt.Fatal(got)\n\t}\n}\n")
	}
	pathReaches(t, src("func(a, b float64) float64 { return a + b }"), src("func(a, b any) any { return toFloat(a) + toFloat(b) }"), "TestPlus",
		"p.go:23 rt := fn.Type()", "p.go:26 typ := rt.In(i)")
}

// TestPathThroughMapTable: a table test ranges over a map of cases, which
// each run iterates in its own random order. The change drops what Score
// did for one case. The iteration of that case must align with the same
// case's iteration in the passing run, by its key, not with whichever
// case came at the same count (where Score's result would be the same and
// only the wanted value would differ): then the result differs, and the
// path goes to what only the passing run did in Score.
func TestPathThroughMapTable(t *testing.T) {
	test := "package p\n\nimport \"testing\"\n\nfunc TestScore(t *testing.T) {\n\tcases := map[string]int{\n"
	for _, in := range []string{"ab", "abc", "b", "bcd", "c", "cdef", "d", "de", "e", "efg", "f", "fg", "g", "gh", "h", "hi"} {
		test += fmt.Sprintf("\t\t%q: %d,\n", in, len(in))
	}
	test += "\t\t\"qr\": 20,\n\t}\n\tfor in, want := range cases {\n\t\tif got := Score(in); got != want {\n\t\t\tt.Errorf(\"Score(%q) = %d, want %d\", in, got, want)\n\t\t}\n\t}\n}\n"
	score := "package p\n\n// Score scores s.\nfunc Score(s string) int {\n\tn := len(s)\n%s\treturn n\n}\n\nfunc tenfold(n int) int { return 10 * n }\n"
	base := moduleP(fmt.Sprintf(score, "\tif s[0] == 'q' {\n\t\tn = tenfold(n)\n\t}\n"), test)
	head := moduleP(fmt.Sprintf(score, ""), test)
	pathReaches(t, base, head, "TestScore", "p.go:7 n = tenfold(n)")
}
