package gotest

import (
	"strings"
	"testing"
)

// TestCheckPrinted compares the values shown at a failed assertion with the
// message the test printed: equal values pass whatever their form (quoted,
// cut short, nil), a value the program did not print is caught, opaque
// values are counted apart, and a message that the assertion cannot have
// printed is caught.
func TestCheckPrinted(t *testing.T) {
	type call struct {
		text   string
		values map[string]string
		msg    string
	}
	doc := func(text string, values map[string]string, msg string) call { return call{text, values, msg} }
	tests := []struct {
		name             string
		doc              call
		checked, opaque  int
		wrong            int
		wantInMismatches string
	}{
		{"number", doc(`t.Errorf("F(3, 1, 2) = %d, want 5", got)`, map[string]string{"got": "4"}, "F(3, 1, 2) = 4, want 5"), 1, 0, 0, ""},
		{"printed other than shown", doc(`t.Fatalf("expected args [], got %v", argsAfterThird)`, map[string]string{"argsAfterThird": "nil"},
			"expected args [], got [baz]"), 1, 0, 1, `argsAfterThird printed as "[baz]", shown as nil`},
		{"nil slice", doc(`t.Fatalf("got %v", xs)`, map[string]string{"xs": "nil"}, "got []"), 1, 0, 0, ""},
		{"strings, quoted and cut short", doc(`t.Errorf("test %d failed;\ninput   : %s\noutput  : %q", ii, tt.in, out)`,
			map[string]string{"ii": "2", "tt.in": `"<p title"… (len 11)`, "out": `"a\tb"`},
			"test 2 failed;\n    input   : <p title=x>\n    output  : \"a\\tb\""), 3, 0, 0, ""},
		{"string cut short, length differs", doc(`t.Errorf("in %s", in)`, map[string]string{"in": `"<p title"… (len 30)`}, "in <p title=x>"),
			1, 0, 1, "printed as"},
		{"opaque", doc(`t.Errorf("%v %v %d", tm, p, got)`, map[string]string{"tm": "…", "p": `*Buffer#1`, "got": "7"}, "then x 7"), 1, 2, 0, ""},
		{"percent, width and precision", doc(`t.Errorf("%5.2f%% of %-4d", r, n)`, map[string]string{"r": "12.5", "n": "3"}, "12.50% of 3   "), 2, 0, 0, ""},
		{"another message", doc(`t.Errorf("Value() = %d, want 3000", got)`, map[string]string{"got": "2726"}, "Count() = 2876"), 1, 0, 1, "does not have the shape"},
		{"Error's arguments", doc(`t.Error("wrong count", n)`, map[string]string{"n": "3"}, "wrong count 4"), 1, 0, 1, `n printed as "4"`},
		{"trailing newline", doc(`t.Errorf("a %d\n", n)`, map[string]string{"n": "3"}, "a 3"), 1, 0, 0, ""},
		{"named constants", doc(`t.Errorf("kind %v, want %d", k, w)`, map[string]string{"k": "reflect.Struct", "w": "reflect.Ptr"}, "kind struct, want 22"), 1, 1, 0, ""},
		{"raw quotes", doc(`t.Errorf("%#q", p)`, map[string]string{"p": `"a/\\[*\\]"`}, "`a/\\[*\\]`"), 1, 0, 0, ""},
		{"many lines cut short", doc(`t.Fatalf("matching: %s", e)`, map[string]string{"e": `"data not\nmatching"… (len 90)`},
			"matching: data not\n\t    matching (-want, +got)"), 1, 0, 0, ""},
		{"testify's Equal", doc(`assert.Equal(t, tc.expectCode, c)`, map[string]string{"c": "404", "t": "*T#1", "tc.expectCode": "200"},
			"\tError Trace:\techo_test.go:289\n\tError:      \tNot equal: \n\t            \texpected: 200\n\t            \tactual  : 404\n\tTest:       \tTestX"), 2, 0, 0, ""},
		{"testify's Equal on a suite, strings", doc(`s.Equal("a", got)`, map[string]string{"got": `"b"`},
			"Error:      \tNot equal: \n\t            \texpected: \"a\"\n\t            \tactual  : \"c\""), 1, 0, 1, `got printed as "\"c\""`},
		{"reflect.Values print what they hold", doc(`t.Errorf("got %v and %v, %v, %v", a, b, c, d)`,
			map[string]string{"a": "reflect.Value(int Celsius: -4)", "b": `reflect.Value(string: "x")`, "c": "reflect.Value(string)", "d": "reflect.Value(ptr *T: non-nil)"},
			"got -4 and x, y, &{1}"), 2, 2, 0, ""},
		{"a reflect.Value holding another value", doc(`t.Errorf("got %v", a)`, map[string]string{"a": "reflect.Value(int: 3)"}, "got 4"),
			1, 0, 1, `a printed as "4", shown as reflect.Value(int: 3)`},
		{"errors print their messages", doc(`t.Errorf("got %v, then %s, then %v", a, b, c)`,
			map[string]string{"a": `non-nil *errors.errorString "EOF"`, "b": `non-nil *fmt.wrapError "find: em"… (len 16)`, "c": "non-nil *p.NotFound"},
			"got EOF, then find: empty name, then no x"), 2, 1, 0, ""},
		{"an error's message printed otherwise", doc(`t.Errorf("got %v", err)`, map[string]string{"err": `non-nil *errors.errorString "EOF"`}, "got unexpected EOF"),
			1, 0, 1, `err printed as "unexpected EOF"`},
		{"slices print their elements", doc(`t.Errorf("got %v, want %q, n %v, then %s", a, b, c, d)`,
			map[string]string{"a": `["baz"]`, "b": `["x" "y z"]`, "c": "[1 2]", "d": `["a long s"…]`},
			`got [baz], want ["x" "y z"], n [1 3], then [a long string]`), 3, 1, 1, `c printed as "[1 3]", shown as [1 2]`},
		{"numbers under a verb with a precision", doc(`t.Errorf("Mode(%.1f) => %.1f != %.2f, rate %.1f", in, got, want, r)`,
			map[string]string{"in": "[4 8 8]", "got": "[4 8]", "want": "[2.25]", "r": "0.25"},
			"Mode([4.0 8.0 8.0]) => [4.0 8.0] != [2.24], rate 0.2"), 4, 0, 1, `want printed as "[2.24]", shown as [2.25]`},
		{"slices in testify's diff", doc(`assert.Equal(t, want, got)`,
			map[string]string{"want": `["hello" "" "world"]`, "got": `[1 2]`},
			"\tError:      \tNot equal: \n\t            \texpected: []string{\"hello\", \"\", \"world\"}\n\t            \tactual  : []int{1, 3}"), 2, 0, 1, `got printed as "[]int{1, 3}", shown as [1 2]`},
		{"reflect types print their names", doc(`t.Errorf("got %v, want %v", a, b)`,
			map[string]string{"a": `reflect.Type "map[stri"… (len 14)`, "b": `reflect.Type "int"`},
			"got map[string]int, want string"), 2, 0, 1, `b printed as "string", shown as reflect.Type "int"`},
		{"a local time shown in UTC", doc(`t.Errorf("at %v", tm)`, map[string]string{"tm": "2024-03-05T16:00:15Z (Local)"},
			"at 2024-03-05 17:00:15 +0100 CET"), 0, 1, 0, ""},
		{"structs shown by their fields", doc(`t.Errorf("got %+v against %v, name %s", seg, was, name)`,
			map[string]string{"seg": "Segment{Start: 10, Name: len 3, Next: nil}", "was": "{Start: 8}", "name": `"a{b}"`},
			"got {Start:10 Name:abc Next:<nil>} against {8 abc <nil>}, name a{b}"), 1, 2, 0, ""},
		{"not a printing call", doc(`t.FailNow()`, nil, "boom"), 0, 0, 0, ""},
		{"format not a literal", doc(`t.Errorf(f, x)`, map[string]string{"x": "1"}, "1"), 0, 0, 0, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, _ := CheckPrinted(tc.doc.text, tc.doc.values, tc.doc.msg)
			if v.Checked != tc.checked || v.Opaque != tc.opaque || len(v.Mismatches) != tc.wrong {
				t.Fatalf("checked %d, opaque %d, mismatches %q; want %d, %d, %d", v.Checked, v.Opaque, v.Mismatches, tc.checked, tc.opaque, tc.wrong)
			}
			if tc.wantInMismatches != "" && !strings.Contains(strings.Join(v.Mismatches, "\n"), tc.wantInMismatches) {
				t.Errorf("mismatches %q lack %q", v.Mismatches, tc.wantInMismatches)
			}
		})
	}
}
