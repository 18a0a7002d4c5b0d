package analyzer

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/culprit-dev/culprit/analyzer/note"
	"github.com/culprit-dev/culprit/analyzer/result"
	"github.com/culprit-dev/culprit/analyzer/search"
	"github.com/culprit-dev/culprit/analyzer/trial"
	"github.com/culprit-dev/culprit/diffhunks"
	"github.com/culprit-dev/culprit/internal/scenario"
)

// auxNeedsArchive is a change of four hunks: Twice now counts through
// strings (the root, with its import hunk), Ten and Half changed too. The
// test needs Twice and Half as they were; Ten it does not look at.
const auxNeedsArchive = `-- base/go.mod --
module example.com/calc

go 1.22
-- base/calc.go --
package calc

// Twice doubles x.
func Twice(x int) int {
	return x + x
}

// Ten is ten.
func Ten() int {
	return 10
}

// Half halves x.
func Half(x int) int {
	return x / 2
}
-- base/calc_test.go --
package calc

import "testing"

func TestCalc(t *testing.T) {
	if Twice(2) != 4 || Half(8) != 4 {
		t.Fatalf("Twice(2) = %d, Half(8) = %d", Twice(2), Half(8))
	}
}
-- head/go.mod --
module example.com/calc

go 1.22
-- head/calc.go --
package calc

import "strings"

// Twice doubles x.
func Twice(x int) int {
	return len(strings.Repeat("ab", x)) + 1
}

// Ten is ten.
func Ten() int {
	return 5 + 5
}

// Half halves x.
func Half(x int) int {
	return x / 2 + 1
}
-- head/calc_test.go --
package calc

import "testing"

func TestCalc(t *testing.T) {
	if Twice(2) != 4 || Half(8) != 4 {
		t.Fatalf("Twice(2) = %d, Half(8) = %d", Twice(2), Half(8))
	}
}
`

// TestAuxNeeds checks the auxiliary hunks of a found set against real
// builds and runs: the import hunk the root's revert needs stays, with the
// compiler's reason; the hunk nothing needs leaves, and the run without it
// becomes the proof; the hunk the failure depends on joins the root.
func TestAuxNeeds(t *testing.T) {
	t.Parallel()
	sc, err := scenario.Parse("aux-needs", []byte("test: TestCalc\n"+auxNeedsArchive))
	if err != nil {
		t.Fatal(err)
	}
	repo, err := sc.Materialize(filepath.Join(t.TempDir(), "repo"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	req := Request{Dir: repo.Dir, Base: repo.Base, Head: repo.Head, Test: TestRef{Name: "TestCalc"}, Mode: trial.ModeGo}
	req.setDefaults()
	ch, err := prepare(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	a, err := ch.begin(ctx, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	defer a.b.Runner.Close()

	hunks := ch.set.Hunks()
	at := func(text string) diffhunks.ID {
		for _, h := range hunks {
			if strings.Contains(h.Diff, "+"+text) {
				return h.ID
			}
		}
		t.Fatalf("no hunk adds %q in %+v", text, hunks)
		return 0
	}
	imp, twice, ten, half := at(`import "strings"`), at("\treturn len("), at("\treturn 5 + 5"), at("\treturn x / 2 + 1")
	all := []diffhunks.ID{imp, twice, ten, half}
	slices.Sort(all)
	proof, err := a.b.Run(ctx, all)
	if err != nil || !proof.Passed() {
		t.Fatalf("reverting every hunk: %+v, %v", proof, err)
	}
	aux := []diffhunks.ID{imp, ten, half}
	slices.Sort(aux)
	f := &search.Found{Root: []diffhunks.ID{twice}, Aux: aux, Proof: proof}

	needs, notes, err := auxNeeds(ctx, a.b, f, nil)
	if err != nil {
		t.Fatal(err)
	}
	wantRoot := []diffhunks.ID{twice, half}
	slices.Sort(wantRoot)
	if !slices.Equal(f.Root, wantRoot) || !slices.Equal(f.Aux, []diffhunks.ID{imp}) {
		t.Errorf("root %v aux %v, want root %v aux [%d]", f.Root, f.Aux, wantRoot, imp)
	}
	if len(needs) != 1 || needs[0].Hunk != result.HunkID(imp) || needs[0].File != "calc.go" || needs[0].Line != 3 ||
		!strings.Contains(needs[0].Error, `"strings" imported and not used`) {
		t.Errorf("needs %+v, want the import hunk needed because calc.go:3 imports strings unused", needs)
	}
	wantProof := slices.Concat(f.Root, f.Aux)
	slices.Sort(wantProof)
	if !f.Proof.Passed() || !slices.Equal(f.Proof.Reverted, wantProof) {
		t.Errorf("proof %v %s, want a passing run of %v", f.Proof.Reverted, f.Proof.Outcome, wantProof)
	}
	if i := slices.IndexFunc(notes, func(n result.Note) bool { return n.Code == note.AuxNotNeeded }); i < 0 || !slices.Equal(notes[i].Hunks, []diffhunks.ID{ten}) {
		t.Errorf("notes %+v, want aux-not-needed naming hunk %d", notes, ten)
	}
	if i := slices.IndexFunc(notes, func(n result.Note) bool { return n.Code == note.AuxChangesBehaviour }); i < 0 || !slices.Equal(notes[i].Hunks, []diffhunks.ID{half}) {
		t.Errorf("notes %+v, want aux-changes-behaviour naming hunk %d", notes, half)
	}

	// A hunk of the test's own files is never root: one the test needs to
	// pass stays auxiliary, and no note calls it root.
	f = &search.Found{Root: []diffhunks.ID{twice}, Aux: aux, Proof: proof}
	if _, notes, err = auxNeeds(ctx, a.b, f, []diffhunks.ID{half}); err != nil {
		t.Fatal(err)
	}
	wantAux := []diffhunks.ID{imp, half}
	slices.Sort(wantAux)
	if !slices.Equal(f.Root, []diffhunks.ID{twice}) || !slices.Equal(f.Aux, wantAux) || notes.Has(note.AuxChangesBehaviour) {
		t.Errorf("with %d a test hunk: root %v aux %v notes %+v, want root [%d] aux %v and no aux-changes-behaviour", half, f.Root, f.Aux, notes, twice, wantAux)
	}
}
