package instrument

import "testing"

// A helper package that declares its own TestingT (the methods it needs of
// *testing.T) reports the failure: its t.Errorf is the failure the trace
// records, as testing's own would be. A logger's Error, on an interface
// with methods testing.TB lacks, is no failure.
func TestHelperTestingTFails(t *testing.T) {
	dir := writeTree(t, map[string][]byte{
		"go.mod": []byte("module example.com/m\n\ngo 1.22\n"),
		"check/check.go": []byte(`package check

type TestingT interface {
	Errorf(string, ...any)
	FailNow()
}

type Logger interface {
	Error(...any)
	Info(...any)
}

func Equal(t TestingT, log Logger, got, want int) {
	log.Info("comparing")
	if got != want {
		log.Error("differ")
		t.Errorf("got %d, want %d", got, want)
	}
}
`),
		"p/p_test.go": []byte(`package p

import (
	"testing"

	"example.com/m/check"
)

type logger struct{}

func (logger) Error(...any) {}
func (logger) Info(...any)  {}

func TestSum(t *testing.T) {
	check.Equal(t, logger{}, 1+1, 3)
}
`),
	})
	tr := runTrace(t, dir, "./p", "TestSum")
	var at []string
	for _, f := range tr.Failures() {
		s := tr.SiteOf(f)
		at = append(at, s.Pos.String())
	}
	if len(at) != 1 || tr.SiteOf(tr.Failures()[0]).Pos.File != "check/check.go" || tr.SiteOf(tr.Failures()[0]).Pos.Line != 17 {
		t.Errorf("failures at %v, want one at check/check.go:17 (t.Errorf)", at)
	}
}
