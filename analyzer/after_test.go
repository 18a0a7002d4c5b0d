package analyzer

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/culprit-dev/culprit/analyzer/trace/instrument"
	"github.com/culprit-dev/culprit/diffhunks"
	"github.com/culprit-dev/culprit/internal/testfiles"
)

// mayMatterModule is a package whose test file holds the failing test,
// a table literal it reads, and a test the run never reaches.
var mayMatterModule = map[string]string{
	"go.mod": "module example.com/mm\n\ngo 1.22\n",
	"mm/mm.go": `package mm

func Double(x int) int { return 3 * x }
`,
	"mm/mm_test.go": `package mm

import "testing"

var cases = []struct{ in, want int }{
	{1, 2},
	{2, 4},
}

func TestDouble(t *testing.T) {
	for _, c := range cases {
		if got := Double(c.in); got != c.want {
			t.Errorf("Double(%d) = %d", c.in, got)
		}
	}
}

func TestOther(t *testing.T) {
	if Double(0) != 0 {
		t.Error("zero")
	}
}
`,
}

// TestMayMatter: of the test file's hunks, those holding code the failing
// run executed (a line inside the table literal too) and deletions may
// change the outcome; a hunk in a test the run never reached may not.
func TestMayMatter(t *testing.T) {
	dir := t.TempDir()
	testfiles.Write(t, dir, mayMatterModule)
	cfg := instrument.Config{Dir: dir, Pkg: "./mm", Test: "TestDouble", Timeout: time.Minute, TraceDir: t.TempDir()}
	tr, err := instrument.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !tr.Result.Failed {
		t.Fatalf("TestDouble should fail:\n%s", tr.Result.Output)
	}
	l := &afterLoop{tr: tr, prefix: "."}
	mod := func(id, from, to int) diffhunks.Hunk {
		return diffhunks.Hunk{ID: diffhunks.ID(id), File: "mm/mm_test.go", OldFile: "mm/mm_test.go", Kind: diffhunks.Modify,
			Head: diffhunks.LineRange{Start: from, End: to}}
	}
	hunks := []diffhunks.Hunk{
		mod(1, 7, 7),   // a row of the table literal
		mod(2, 13, 13), // the failing comparison
		mod(3, 19, 21), // the body of TestOther, never run
		mod(4, 18, 17), // lines deleted before TestOther
	}
	got := l.mayMatter(hunks, []diffhunks.ID{1, 2, 3, 4})
	if want := []diffhunks.ID{1, 2, 4}; !slices.Equal(got, want) {
		t.Errorf("mayMatter = %v, want %v", got, want)
	}
}
