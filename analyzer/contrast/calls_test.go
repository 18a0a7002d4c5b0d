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
