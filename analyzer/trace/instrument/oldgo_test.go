package instrument

import (
	"strings"
	"testing"

	"github.com/culprit-dev/culprit/analyzer/trace"
)

// TestOldGoModules traces a failing test in modules that declare older
// language versions than the runtime helpers are written for (go1.21,
// whose files the instrumenter does not raise, go1.16, and no go line):
// the runtime's files must be raised on their own, or the build fails
// (range over an integer needs go1.22). The run records its failure with
// an error's message, a boxed value and a slice with its elements, which
// take the runtime's newer code.
func TestOldGoModules(t *testing.T) {
	const src = `package p

import "errors"

type Point [2]float64

// Check fails for a point off the line.
func Check(p interface{}, xs []int) error {
	if len(xs) > 0 && p.(Point)[0] != float64(xs[0]) {
		return errors.New("off the line")
	}
	return nil
}
`
	const test = `package p

import "testing"

func TestX(t *testing.T) {
	if err := Check(Point{6, 5.5}, []int{5, 6}); err != nil {
		t.Fatal(err)
	}
}
`
	for _, goLine := range []string{"go 1.21\n", "go 1.16\n", ""} {
		t.Run(strings.TrimSpace("v"+goLine), func(t *testing.T) {
			files := moduleP(src, test)
			files["go.mod"] = []byte("module example.com/m\n\n" + goLine)
			tr := runTrace(t, writeTree(t, files), "./p", "TestX")
			if tr.Result.Passed || len(tr.Failures()) == 0 {
				t.Fatalf("passed %v, failures %v:\n%s", tr.Result.Passed, tr.Failures(), tr.Result.Output)
			}
			shown := map[string]string{}
			for i := range tr.Events {
				e := tr.Event(i)
				if e.Kind != trace.EvEntry || tr.SiteOf(i).Func != "example.com/m/p.Check" {
					continue
				}
				site := tr.SiteOf(i)
				for _, w := range e.Writes {
					if w.Slot < len(site.Operands) {
						shown[site.Operands[w.Slot].Text] = w.Value.Format(site.Operands[w.Slot].Type, nil)
					}
				}
			}
			if shown["p"] != "Point{6, 5.5}" || shown["xs"] != "[5 6]" {
				t.Errorf("Check's parameters shown as %v, want p = Point{6, 5.5}, xs = [5 6]", shown)
			}
		})
	}
}
