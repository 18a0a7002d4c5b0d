package contrast

import "testing"

// TestPathThroughInlineTableCalls: the test's table calls the code under
// test inside its rows (a composite literal, whose calls the tracer
// records no call event for), and the changed line is a predicate that
// sort.Search, which the tracer does not enter, calls back. The path goes
// from the failed row through the row's call and the search's callbacks
// to the changed predicate.
func TestPathThroughInlineTableCalls(t *testing.T) {
	src := func(cmp string) string {
		return "package p\n\nimport \"sort\"\n\nvar limits = []int{10, 20, 30}\n\n" +
			"// Bucket is the index of the first limit at or above n.\nfunc Bucket(n int) int {\n\treturn sort.Search(len(limits), func(i int) bool {\n\t\treturn limits[i] " + cmp + " n\n\t})\n}\n"
	}
	test := "package p\n\nimport \"testing\"\n\ntype row struct {\n\tname      string\n\tgot, want int\n}\n\ntype rows []row\n\n" +
		"func (rs rows) check(t *testing.T) {\n\tfor _, r := range rs {\n\t\tif r.got != r.want {\n\t\t\tt.Errorf(\"%s: got %d, want %d\", r.name, r.got, r.want)\n\t\t}\n\t}\n}\n\n" +
		"func TestBucket(t *testing.T) {\n\trows{{\"five\", Bucket(5), 0}, {\"ten\", Bucket(10), 0}}.check(t)\n}\n"
	pathReaches(t, moduleP(src(">="), test), moduleP(src(">"), test), "TestBucket", "p.go:10 return limits[i] > n", "p_test.go:21 rows{{\"five\", Bucket(5), 0}, {\"ten\", Bucket(10), 0}}.check(t)")
}

// TestPathThroughStringerCallback: fmt, which the tracer does not enter,
// calls back the String method the change altered; the arguments fmt was
// handed are alike, its result is not, and the path goes through the
// callback's result to the changed line.
func TestPathThroughStringerCallback(t *testing.T) {
	src := func(format string) string {
		return "package p\n\nimport \"fmt\"\n\ntype Temp float64\n\nfunc (t Temp) String() string {\n\treturn fmt.Sprintf(\"" + format + "\", float64(t))\n}\n\n" +
			"// Label names a temperature.\nfunc Label(t Temp) string {\n\treturn fmt.Sprint(\"now \", t)\n}\n"
	}
	test := "package p\n\nimport \"testing\"\n\nfunc TestLabel(t *testing.T) {\n\tif got := Label(21.5); got != \"now 21.5°C\" {\n\t\tt.Errorf(\"got %q\", got)\n\t}\n}\n"
	pathReaches(t, moduleP(src("%.1f°C"), test), moduleP(src("%.0f°C"), test), "TestLabel", "p.go:13 return fmt.Sprint(\"now \", t)")
}

// TestPathThroughRecoveredCallbackPanic: a String method panics two calls
// deep, and fmt, which the tracer does not enter, recovers the panic and
// prints it in place of the value. The failure is the test's comparison
// of that text; the path goes from fmt's result through the callback's
// panic and the panic it passed on, to the changed index.
func TestPathThroughRecoveredCallbackPanic(t *testing.T) {
	src := func(index string) string {
		return "package p\n\nimport \"fmt\"\n\ntype Span struct {\n\tparts []string\n\ti     int\n}\n\n" +
			"func pick(parts []string, i int) string {\n\treturn parts[" + index + "]\n}\n\n" +
			"func (s Span) String() string {\n\treturn pick(s.parts, s.i)\n}\n\n" +
			"// Describe prints a span.\nfunc Describe(s Span) string {\n\treturn fmt.Sprint(s)\n}\n"
	}
	test := "package p\n\nimport \"testing\"\n\nfunc TestDescribe(t *testing.T) {\n\tif got := Describe(Span{[]string{\"a\"}, 0}); got != \"a\" {\n\t\tt.Errorf(\"got %q\", got)\n\t}\n}\n"
	pathReaches(t, moduleP(src("i"), test), moduleP(src("i+1"), test), "TestDescribe", "p.go:15 return pick(s.parts, s.i)")
}

// TestPathThroughValueReceiverCopy: the test reads the cursor through a
// method with a value receiver, which works on a copy of the table that
// its entry made. The path goes from the copy's field back to the
// caller's write of that field through a pointer, on the changed line.
func TestPathThroughValueReceiverCopy(t *testing.T) {
	src := func(clamp string) string {
		return "package p\n\n// Table is larger than the values recorded by their bytes.\ntype Table struct {\n\trows   []string\n\tcursor int\n\twidths [4]int\n}\n\n" +
			"// SetRows replaces the rows and keeps the cursor on one.\nfunc (t *Table) SetRows(rows []string) {\n\tt.rows = rows\n\tif t.cursor > len(t.rows)-1 {\n\t\tt.cursor = " + clamp + "\n\t}\n}\n\n" +
			"// Cursor is the selected row.\nfunc (t Table) Cursor() int {\n\treturn t.cursor\n}\n"
	}
	test := "package p\n\nimport \"testing\"\n\nfunc TestCursor(t *testing.T) {\n\tvar tb Table\n\ttb.SetRows([]string{\"a\", \"b\", \"c\"})\n\ttb.cursor = 2\n\ttb.SetRows(nil)\n" +
		"\tif got := tb.Cursor(); got < 0 {\n\t\tt.Fatalf(\"cursor %d\", got)\n\t}\n}\n"
	pathReaches(t, moduleP(src("max(len(t.rows)-1, 0)"), test), moduleP(src("len(t.rows) - 1"), test), "TestCursor", "p.go:20 return t.cursor")
}

// TestPathThroughValueReceiverLocal: the model is a local the test never
// takes the address of, replaced whole by what its value methods return.
// The path goes from the copy's field in Selected back to the local's
// last whole write, the result of Down, and into Down's changed bound.
func TestPathThroughValueReceiverLocal(t *testing.T) {
	src := func(bound string) string {
		return "package p\n\n// Model is larger than the values recorded by their bytes.\ntype Model struct {\n\titems []string\n\tsel   int\n\tpad   [4]int\n}\n\n" +
			"// Down moves the selection down one item.\nfunc (m Model) Down() Model {\n\tif m.sel < " + bound + " {\n\t\tm.sel++\n\t}\n\treturn m\n}\n\n" +
			"// Selected is the selected item's index.\nfunc (m Model) Selected() int {\n\treturn m.sel\n}\n"
	}
	test := "package p\n\nimport \"testing\"\n\nfunc TestDown(t *testing.T) {\n\tm := Model{items: []string{\"a\", \"b\"}}\n\tm = m.Down()\n\tm = m.Down()\n" +
		"\tif got := m.Selected(); got != 1 {\n\t\tt.Fatalf(\"selected %d\", got)\n\t}\n}\n"
	c, p := pathReaches(t, moduleP(src("len(m.items)-1"), test), moduleP(src("len(m.items)"), test), "TestDown", "p.go:20 return m.sel")
	// The field's value comes from the local's write, not through
	// Selected's entry and its call, which ran alike in both runs.
	for _, s := range p.Steps {
		if st := c.Statement(s); st.File == "p/p.go" && st.Line == 19 {
			t.Errorf("the path goes through Selected's entry: %s:%d %s", st.File, st.Line, st.Text)
		}
	}
}

// TestPathThroughStructParameter: a function takes the options by value,
// a copy its entry makes; the caller set the field through a pointer
// method. The path goes from the copy's field back to that write.
func TestPathThroughStructParameter(t *testing.T) {
	src := func(set string) string {
		return "package p\n\n// Options is larger than the values recorded by their bytes.\ntype Options struct {\n\tname  string\n\tlimit int\n\tpad   [4]int\n}\n\n" +
			"// SetLimit sets the number of items allowed.\nfunc (o *Options) SetLimit(n int) {\n\to.limit = " + set + "\n}\n\n" +
			"// Allowed reports whether item k is within the limit.\nfunc Allowed(o Options, k int) bool {\n\treturn k < o.limit\n}\n"
	}
	test := "package p\n\nimport \"testing\"\n\nfunc TestAllowed(t *testing.T) {\n\tvar o Options\n\to.SetLimit(3)\n" +
		"\tif !Allowed(o, 2) {\n\t\tt.Fatal(\"item 2 not allowed\")\n\t}\n}\n"
	pathReaches(t, moduleP(src("n"), test), moduleP(src("n - 1"), test), "TestAllowed", "p.go:17 return k < o.limit")
}
