package gotest

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"regexp"
	"strconv"
	"strings"
)

// Printed is what comparing a failure message with the values shown for
// the assertion that printed it found.
type Printed struct {
	Checked    int      // arguments compared
	Opaque     int      // arguments whose shown value cannot be compared (…, non-nil, pointers, lengths)
	Mismatches []string // one line per argument whose printed and shown values differ
}

// Consistent reports whether nothing compared differed.
func (p Printed) Consistent() bool { return len(p.Mismatches) == 0 }

// CheckPrinted compares message, a failure message, with values, the
// values shown for the printing call call (the source text of t.Errorf(…)
// and the like with a literal format, or t.Error(…) with arguments) by
// the argument expressions' source: the message is matched against the
// format and each argument's printed text compared with its shown value.
// It returns false when call is no such call.
func CheckPrinted(call string, values map[string]string, message string) (Printed, bool) {
	c, ok := parsedCall(call)
	if !ok {
		return Printed{}, false
	}
	args, printed, ok := printedArgs(c, message)
	if !ok {
		return Printed{}, false
	}
	var v Printed
	for i, arg := range args {
		src := types.ExprString(arg)
		shown, ok := values[src]
		if !ok {
			continue
		}
		display := shown
		shown = held(shown)
		if opaque(shown) || constName.MatchString(shown) && printed != nil && !sameConst(printed[i], shown) {
			// A constant's name prints as its String method says, or
			// as its number, which the name does not give.
			v.Opaque++
			continue
		}
		v.Checked++
		switch {
		case printed == nil:
			v.Mismatches = append(v.Mismatches, fmt.Sprintf("the message %q does not have the shape of %s", message, call))
			return v, true
		case !sameValue(printed[i], shown):
			v.Mismatches = append(v.Mismatches, fmt.Sprintf("%s printed as %q, shown as %s", src, printed[i], display))
		}
	}
	return v, true
}

// printedArgs gives the arguments of the printing call c whose values
// message prints, and their printed texts in the same order (nil when
// message does not have the call's shape); false when c prints no
// arguments of its own: t.Errorf and the like print theirs by a literal
// format, t.Error by spaces, testify's Equal its expected and actual
// values on lines of their own.
func printedArgs(c *ast.CallExpr, message string) ([]ast.Expr, []string, bool) {
	name := c.Fun.(*ast.SelectorExpr).Sel.Name
	var pattern string
	args := c.Args
	switch {
	case testifyEqual[name]:
		// assert.Equal(t, expected, actual, …) or, on an Assertions
		// value or a suite, s.Equal(expected, actual, …).
		if x, ok := c.Fun.(*ast.SelectorExpr).X.(*ast.Ident); ok && (x.Name == "assert" || x.Name == "require") {
			args = args[min(1, len(args)):]
		}
		if len(args) < 2 {
			return nil, nil, false
		}
		args = args[:2]
		e, a := testifyExpected.FindStringSubmatch(message), testifyActual.FindStringSubmatch(message)
		if e == nil || a == nil {
			return args, nil, true
		}
		return args, []string{e[1], a[1]}, true
	case printers[name] && len(args) > 1:
		lit, ok := args[0].(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return nil, nil, false
		}
		format, err := strconv.Unquote(lit.Value)
		if err != nil {
			return nil, nil, false
		}
		// The message is compared trimmed, as go test prints it.
		if pattern, ok = formatPattern(strings.TrimSpace(format), len(args)-1); !ok {
			return nil, nil, false
		}
		args = args[1:]
	case sprinters[name] && len(args) > 0:
		pattern, args = printPattern(args)
	default:
		return nil, nil, false
	}
	re, err := regexp.Compile(`(?s)^` + pattern + `$`)
	if err != nil {
		return nil, nil, false
	}
	m := re.FindStringSubmatch(strings.TrimSpace(message))
	if m == nil {
		return args, nil, true
	}
	return args, m[1:], true
}

// testifyEqual are testify's assertions that print "expected: …" and
// "actual  : …" lines when they fail.
var testifyEqual = map[string]bool{"Equal": true, "EqualValues": true, "Exactly": true}

var (
	testifyExpected = regexp.MustCompile(`(?m)^\s*expected: (.*)$`)
	testifyActual   = regexp.MustCompile(`(?m)^\s*actual\s*: (.*)$`)
)

// printers are the testing.TB methods whose first argument is a format.
var printers = map[string]bool{"Errorf": true, "Fatalf": true, "Logf": true, "Skipf": true}

// sprinters are those that print their arguments as fmt.Sprintln does.
var sprinters = map[string]bool{"Error": true, "Fatal": true, "Log": true, "Skip": true}

// printPattern is the pattern of what t.Error(args...) prints: the
// arguments separated by spaces, a string literal as itself; it returns
// the arguments that are groups of the pattern, in order.
func printPattern(args []ast.Expr) (string, []ast.Expr) {
	var parts []string
	var groups []ast.Expr
	for _, a := range args {
		if lit, ok := a.(*ast.BasicLit); ok && lit.Kind == token.STRING {
			if s, err := strconv.Unquote(lit.Value); err == nil {
				parts = append(parts, literal(s))
				continue
			}
		}
		parts = append(parts, "(.*?)")
		groups = append(groups, a)
	}
	return strings.Join(parts, `\s+`), groups
}

// parsedCall parses text as a method call, t.Errorf(…) and the like.
func parsedCall(text string) (*ast.CallExpr, bool) {
	e, err := parser.ParseExpr(text)
	if err != nil {
		return nil, false
	}
	call, ok := e.(*ast.CallExpr)
	if !ok {
		return nil, false
	}
	_, ok = call.Fun.(*ast.SelectorExpr)
	return call, ok && !call.Ellipsis.IsValid()
}

// verb matches one fmt verb with its flags, width and precision.
var verb = regexp.MustCompile(`%[-+# 0]*(\*|\d+)?(\.(\*|\d+))?[a-zA-Z%]`)

// formatPattern turns a format into a regular expression with one group
// per verb; whitespace matches any run of whitespace, as go test indents
// the lines of a long message. It refuses a format whose verbs do not
// take one argument each, n in all.
func formatPattern(format string, n int) (string, bool) {
	var b strings.Builder
	verbs, last := 0, 0
	for _, loc := range verb.FindAllStringIndex(format, -1) {
		b.WriteString(literal(format[last:loc[0]]))
		last = loc[1]
		v := format[loc[0]:loc[1]]
		switch {
		case v == "%%":
			b.WriteString("%")
		case strings.Contains(v, "*"):
			return "", false
		default:
			b.WriteString("(.*?)")
			verbs++
		}
	}
	b.WriteString(literal(format[last:]))
	return b.String(), verbs == n
}

// literal is the pattern of a format's literal text: its words quoted,
// any run of whitespace between, before or after them as \s+ (a
// message's lines are indented by go test).
func literal(s string) string {
	if s == "" {
		return ""
	}
	parts := strings.Fields(s)
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	out := strings.Join(parts, `\s+`)
	if len(parts) == 0 {
		return `\s+`
	}
	if strings.TrimLeft(s, " \t\n") != s {
		out = `\s*` + out
	}
	if strings.TrimRight(s, " \t\n") != s {
		out += `\s*`
	}
	return out
}

// opaque reports whether a shown value says too little to compare: an
// elided value, a non-nil or pointer identity (with an interface's
// dynamic type, maybe), a length alone, a
// reflect.Value whose content was not recorded, a time in the program's
// local zone shown in UTC, a struct shown by its fields (strings and
// pointers in it by length and nil-ness, and maybe only the fields that
// differ from the other run).
func opaque(shown string) bool {
	return shown == "…" || strings.Contains(shown, "{") && !strings.HasPrefix(shown, `"`) || shown == "non-nil" || strings.HasPrefix(shown, "non-nil ") || strings.HasPrefix(shown, "*") || strings.HasPrefix(shown, "&") ||
		strings.HasPrefix(shown, "len ") || strings.HasSuffix(shown, "…") ||
		strings.HasPrefix(shown, "reflect.Value(") || strings.HasPrefix(shown, "<invalid reflect.Value") ||
		strings.HasSuffix(shown, " (Local)") || strings.HasPrefix(shown, "[") && strings.Contains(shown, `"…`)
}

// errMessage matches an error shown with its message (the dynamic type,
// then the message quoted, maybe cut short with its length), or a
// reflect.Type with its name, which is what %v prints for it.
var errMessage = regexp.MustCompile(`^(?:non-nil \S+|reflect\.Type) (` + quoted + `(?:… \(len \d+\))?)$`)

// held is the value a shown reflect.Value holds, which is what fmt prints
// for it ("reflect.Value(int: 3)" prints as 3), or the message of an error
// shown with it or a reflect.Type's name, which is what %v and %s print;
// any other shown value is returned as it is.
func held(shown string) string {
	if m := errMessage.FindStringSubmatch(shown); m != nil {
		return m[1]
	}
	in, ok := strings.CutPrefix(shown, "reflect.Value(")
	if !ok || !strings.HasSuffix(in, ")") {
		return shown
	}
	if _, v, ok := strings.Cut(strings.TrimSuffix(in, ")"), ": "); ok {
		return v
	}
	return shown
}

// constName matches a value shown by its constant's name, reflect.Struct.
var constName = regexp.MustCompile(`^[A-Za-z_]\w*\.[A-Za-z_]\w*$`)

// sameConst reports whether printed is the constant's name, with or
// without its package, in any case (reflect.Struct prints as "struct").
func sameConst(printed, shown string) bool {
	printed = strings.TrimSpace(printed)
	_, name, _ := strings.Cut(shown, ".")
	return printed == shown || strings.EqualFold(printed, name)
}

// truncated matches a shown string cut short: its quoted start, then its
// length in bytes.
var truncated = regexp.MustCompile(`^(` + quoted + `)… \(len (\d+)\)$`)

// quoted matches a string as strconv.Quote writes it.
const quoted = `"(?:[^"\\]|\\.)*"`

// sameValue reports whether printed, an argument's text in the message,
// is what the shown value prints as under %v, %d, %s or %q.
func sameValue(printed, shown string) bool {
	printed = strings.TrimSpace(printed)
	if printed == shown || constName.MatchString(shown) && sameConst(printed, shown) {
		return true
	}
	if raw, elems, ok := listElems(shown); ok {
		// %v and %s print a slice's strings bare; %q quoted, as shown;
		// %#v (testify's diff) with its type, quoted and between commas;
		// a verb for numbers (%.1f) each number its way.
		return printed == "["+strings.Join(elems, " ")+"]" ||
			strings.HasPrefix(printed, "[]") && strings.HasSuffix(printed, "{"+strings.Join(raw, ", ")+"}") ||
			sameNumbers(printed, raw)
	}
	if m := truncated.FindStringSubmatch(shown); m != nil {
		prefix, err := strconv.Unquote(m[1])
		n, _ := strconv.Atoi(m[2])
		if err != nil {
			return false
		}
		if p, err := strconv.Unquote(printed); err == nil && strings.ContainsAny(printed[:1], "\"`") {
			printed = p // %q, %#q
		}
		if strings.Contains(prefix+printed, "\n") {
			// go test indents a message's later lines: their length in
			// the output is not the value's.
			return strings.HasPrefix(squash(printed), squash(prefix))
		}
		return strings.HasPrefix(printed, prefix) && len(printed) == n
	}
	if s, err := strconv.Unquote(shown); err == nil && strings.HasPrefix(shown, `"`) {
		if p, err := strconv.Unquote(printed); err == nil && strings.HasPrefix(printed, "`") {
			printed = p // %#q
		}
		return printed == s || printed == shown || squash(printed) == squash(s)
	}
	if shown == "nil" {
		return printed == "<nil>" || printed == "[]" || printed == "map[]" || printed == "nil"
	}
	return sameNumber(printed, shown)
}

// sameNumber reports whether printed is the number shown, as %v or %d
// print it or as a verb with a precision rounds it (%.1f prints 4 as 4.0,
// 2.25 as 2.2).
func sameNumber(printed, shown string) bool {
	a, errA := strconv.ParseFloat(printed, 64)
	b, errB := strconv.ParseFloat(shown, 64)
	if errA != nil || errB != nil {
		return false
	}
	if a == b {
		return true
	}
	_, frac, ok := strings.Cut(printed, ".")
	return ok && !strings.ContainsAny(printed, "eEpPxX_") && strconv.FormatFloat(b, 'f', len(frac), 64) == printed
}

// sameNumbers reports whether printed, a slice as fmt prints it, holds
// the numbers shown, each as sameNumber has it.
func sameNumbers(printed string, shown []string) bool {
	in, ok := strings.CutPrefix(printed, "[")
	if in, ok = strings.CutSuffix(in, "]"); !ok {
		return false
	}
	toks := strings.Fields(in)
	if len(toks) != len(shown) {
		return false
	}
	for i, tok := range toks {
		if !sameNumber(tok, shown[i]) {
			return false
		}
	}
	return true
}

// squash collapses runs of whitespace, as go test's indentation of a
// message's lines changes them.
func squash(s string) string { return strings.Join(strings.Fields(s), " ") }

// listElems gives the elements of a slice shown by them (["a" "b c"],
// [1 2]) as shown (raw) and with strings unquoted (elems); false for any
// other shown value.
func listElems(shown string) (raw, elems []string, ok bool) {
	in, ok := strings.CutPrefix(shown, "[")
	if !ok || strings.HasPrefix(shown, "[]") {
		return nil, nil, false
	}
	if in, ok = strings.CutSuffix(in, "]"); !ok {
		return nil, nil, false
	}
	for in != "" {
		tok, rest, _ := strings.Cut(in, " ")
		elem := tok
		if in[0] == '"' {
			q, err := strconv.QuotedPrefix(in)
			if err != nil {
				return nil, nil, false
			}
			tok, rest = q, in[len(q):]
			elem, _ = strconv.Unquote(q)
			if rest != "" && rest[0] != ' ' {
				return nil, nil, false
			}
			rest = strings.TrimPrefix(rest, " ")
		}
		raw, elems, in = append(raw, tok), append(elems, elem), rest
	}
	return raw, elems, true
}
