package semantic

import (
	"slices"
	"testing"

	"golang.org/x/tools/txtar"
)

// failureModule has failures reported through code outside the module: a
// stand-in testify (detected by its import path) and a stand-in assertion
// library that ends the test with t.FailNow, as go-playground/assert does.
const failureModule = `
-- go.mod --
module example.com/fail

go 1.22

require (
	github.com/stretchr/testify v1.0.0
	example.com/check v1.0.0
)

replace github.com/stretchr/testify => ./testify

replace example.com/check => ./check
-- testify/go.mod --
module github.com/stretchr/testify

go 1.22
-- testify/require/require.go --
package require

import "testing"

func Equal(t testing.TB, expected, actual any) {
	t.Helper()
	if expected != actual {
		t.Errorf("not equal: %v != %v", expected, actual)
		t.FailNow()
	}
}

func Nil(t testing.TB, x any) {
	t.Helper()
	if x != nil {
		t.Errorf("expected nil, got %v", x)
		t.FailNow()
	}
}
-- testify/assert/assert.go --
package assert

import "testing"

// Assertions holds the testing.T; its methods take the assertion's
// arguments alone.
type Assertions struct{ t testing.TB }

func New(t testing.TB) *Assertions { return &Assertions{t} }

func (a *Assertions) Nil(x any) bool {
	a.t.Helper()
	if x != nil {
		a.t.Errorf("expected nil, got %v", x)
		return false
	}
	return true
}

func (a *Assertions) Equal(expected, actual any) bool {
	a.t.Helper()
	if expected != actual {
		a.t.Errorf("not equal: %v != %v", expected, actual)
		return false
	}
	return true
}
-- check/go.mod --
module example.com/check

go 1.22
-- check/check.go --
package check

import "testing"

// NotEqual fails the test, from outside the module, when a == b.
func NotEqual(t testing.TB, a, b any) {
	if a == b {
		t.Errorf("%v == %v", a, b)
		t.FailNow()
	}
}
-- fail/fail.go --
package fail

import (
	"errors"
	"regexp"
	"strings"
)

const namePattern = ` + "`^[a-z]+$`" + `

type Name struct{ Text string }

// match's last argument is a constant (the call's event must still come
// after the read of n.Text), and n.Text is no local.
func (n *Name) Valid() bool {
	return match(n.Text, namePattern)
}

func match(text, pattern string) bool {
	re := regexp.MustCompile(pattern)
	text = strings.TrimSpace(text)
	return re.MatchString(text)
}

const digits = ` + "`^[0-9]{2,}$`" + `

// A function called by a package-level initialiser.
var digitsRx = compile(digits)

func compile(p string) *regexp.Regexp {
	return regexp.MustCompile(p)
}

func rx() *regexp.Regexp { return digitsRx }

type checker struct {
	errs []error
}

func (c *checker) number(s string) {
	if !rx().MatchString(s) {
		c.errs = append(c.errs, errors.New("not a number"))
	}
}

// Check returns its named result bare.
func Check(s string) (err error) {
	c := &checker{}
	c.number(s)
	if len(c.errs) > 0 {
		err = c.errs[0]
	}
	return
}
-- fail/fail_test.go --
package fail

import (
	"testing"

	"example.com/check"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNamesAssertions(t *testing.T) {
	is := assert.New(t)
	for _, s := range []string{"abc", "xyz", "a_b", "q"} {
		is.Nil(nil)
		n := &Name{Text: s}
		is.Equal(true, n.Valid())
	}
}

func TestNames(t *testing.T) {
	for _, s := range []string{"abc", "xyz", "a_b", "q"} {
		require.Nil(t, nil)
		n := &Name{Text: s}
		require.Equal(t, true, n.Valid())
	}
}

func TestNumber(t *testing.T) {
	err := Check("77")
	check.NotEqual(t, err, nil)
}
`

func traceFailureModule(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs traced test binaries")
	}
	return writeTree(t, txtar.Parse([]byte(failureModule)), "")
}

// TestFailureTestifyLoop: testify calls are failure points recorded before
// they run. The failing one is the third row's require.Equal, not the
// first require.Nil nor the rows before that held; its cause goes through
// a call whose last argument is a constant and an uninstrumented method whose receiver is a local, to
// the changed constant.
func TestFailureTestifyLoop(t *testing.T) {
	dir := traceFailureModule(t)
	a := New(traceFailing(t, dir, "./fail", "TestNames"), dir, Setup{})
	tg, err := a.Failure()
	if err != nil {
		t.Fatal(err)
	}
	if s := a.tr.SiteOf(tg.Event); s.Callee != "github.com/stretchr/testify/require.Equal" {
		t.Fatalf("target %s (%s), want the failing require.Equal", a.describe(tg.Event), s.Callee)
	}
	if n := failuresBefore(a, tg, "github.com/stretchr/testify/require.Equal"); n != 2 {
		t.Errorf("the target follows %d require.Equal calls, want the third row's (2 before it)", n)
	}
	checkInvariant(t, a, tg)
	c, err := a.Cause(t.Context(), tg)
	if err != nil {
		t.Fatal(err)
	}
	got := texts(a, c)
	for _, want := range []string{"re := regexp.MustCompile(pattern)", "text = strings.TrimSpace(text)", "return re.MatchString(text)"} {
		if !containsText(got, want) {
			t.Errorf("cause %q lacks %q", got, want)
		}
	}
	if !slices.ContainsFunc(c.Constants, func(u ConstUse) bool { return u.Name == "namePattern" }) {
		t.Errorf("cause constants %v lack namePattern", c.Constants)
	}
}

// failuresBefore counts the failure points of the trace before the
// target's event that call callee.
func failuresBefore(a *Analysis, tg Target, callee string) int {
	n := 0
	for _, i := range a.tr.Failures() {
		if i < tg.Event && a.tr.SiteOf(i).Callee == callee {
			n++
		}
	}
	return n
}

// TestFailureTestifyAssertions: the same loop through the methods of
// testify's Assertions, which take no testing.T. The calls that held are
// passed over, and the failing is.Equal's predicate is modelled over its
// own arguments, whose cause reaches the changed constant.
func TestFailureTestifyAssertions(t *testing.T) {
	dir := traceFailureModule(t)
	a := New(traceFailing(t, dir, "./fail", "TestNamesAssertions"), dir, Setup{})
	tg, err := a.Failure()
	if err != nil {
		t.Fatal(err)
	}
	const equal = "(*github.com/stretchr/testify/assert.Assertions).Equal"
	if s := a.tr.SiteOf(tg.Event); s.Callee != equal || tg.pred != predAssert {
		t.Fatalf("target %s (%s, kind %v), want the failing is.Equal, modelled", a.describe(tg.Event), s.Callee, tg.pred)
	}
	if n := failuresBefore(a, tg, equal); n != 2 {
		t.Errorf("the target follows %d is.Equal calls, want the third row's (2 before it)", n)
	}
	c, err := a.Cause(t.Context(), tg)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(c.Constants, func(u ConstUse) bool { return u.Name == "namePattern" }) {
		t.Errorf("cause constants %v lack namePattern", c.Constants)
	}
}

// TestFailureOutsideHelper: an assertion library outside the module ends
// the test with t.FailNow; the failure is explained by the helper call's
// arguments. err comes from a bare return of a named result that a
// not-taken branch would have assigned, and that branch depends on a
// field appended to only under a branch that went the other way, whose
// regexp a package-level initialiser compiled from a constant.
func TestFailureOutsideHelper(t *testing.T) {
	dir := traceFailureModule(t)
	a := New(traceFailing(t, dir, "./fail", "TestNumber"), dir, Setup{})
	tg, err := a.Failure()
	if err != nil {
		t.Fatal(err)
	}
	if tg.pred != predImplicit {
		t.Fatalf("target %s of kind %v, want the helper call over its arguments", a.describe(tg.Event), tg.pred)
	}
	// The helper ended the test with t.FailNow (runtime.Goexit): a
	// failure, not a panic.
	if tg.Outcome != "failed" {
		t.Errorf("outcome %q, want failed: t.FailNow is no panic", tg.Outcome)
	}
	checkInvariant(t, a, tg)
	pending := []Target{tg}
	var lines []string
	var consts []string
	for len(pending) > 0 && len(lines) < 200 {
		tg := pending[0]
		pending = pending[1:]
		c, err := a.Cause(t.Context(), tg)
		if err != nil {
			continue
		}
		lines = append(lines, texts(a, c)...)
		for _, u := range c.Constants {
			consts = append(consts, u.Name)
		}
		pending = append(pending, a.CriticalPredicates(c)...)
	}
	for _, want := range []string{"err := Check(\"77\")", "len(c.errs) > 0", "!rx().MatchString(s)", "return regexp.MustCompile(p)"} {
		if !containsText(lines, want) {
			t.Errorf("causes %q lack %q", lines, want)
		}
	}
	if !slices.Contains(consts, "digits") {
		t.Errorf("cause constants %v lack digits", consts)
	}
}
