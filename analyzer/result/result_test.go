package result

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/culprit-dev/culprit/analyzer/note"
)

func TestHunk(t *testing.T) {
	r := &Report{Hunks: []Hunk{{ID: 1, File: "a.go"}, {ID: 2, File: "b.go"}, {ID: 5, File: "c.go"}}}
	for _, tc := range []struct {
		name string
		id   HunkID
		want string // the file; "" for none
	}{
		{"at its position", 2, "b.go"},
		{"past a gap in the ids", 5, "c.go"},
		{"absent", 3, ""},
		{"no hunk", 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, ok := r.Hunk(tc.id)
			if ok != (tc.want != "") || h.File != tc.want {
				t.Errorf("Hunk(%d) = %+v, %v; want file %q", tc.id, h, ok, tc.want)
			}
		})
	}
}

func TestFindingsAdd(t *testing.T) {
	var l Findings
	l.Add(Note{Code: note.ProofRepeat, Hunks: []HunkID{2, 3}, Outcome: "fail"})
	l.Add(Note{Code: note.ProofRepeat, Hunks: []HunkID{2, 3}, Outcome: "fail"}) // the same: dropped
	l.Add(Note{Code: note.ProofRepeat, Hunks: []HunkID{2}, Outcome: "fail"})    // other hunks: kept
	want := Findings{
		{Code: note.ProofRepeat, Hunks: []HunkID{2, 3}, Outcome: "fail"},
		{Code: note.ProofRepeat, Hunks: []HunkID{2}, Outcome: "fail"},
	}
	if diff := cmp.Diff(want, l); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
	if !l.Has(note.ProofRepeat) || l.Has(note.NoSubset) {
		t.Errorf("Has answers wrong for %+v", l)
	}
}

func TestStatusKnown(t *testing.T) {
	for _, s := range []Status{Explained, NotRegression, Flaky, FlakyRegression, HeadBuildFails, Unexplained} {
		if !s.Known() {
			t.Errorf("%s is not known", s)
		}
	}
	for _, s := range []Status{"", "guessed", "Explained"} {
		if s.Known() {
			t.Errorf("%q is known", s)
		}
	}
}

func TestNodeHunks(t *testing.T) {
	changed := Statement{Hunk: 3, Diverges: true}
	tree := &Node{
		Target:     Statement{Hunk: 1},
		Statements: []Statement{{Hunk: 2}, {}},
		Children:   []*Node{{Target: changed, Statements: []Statement{changed}}},
	}
	if diff := cmp.Diff(map[HunkID]bool{1: true, 2: true, 3: true}, tree.Hunks(nil)); diff != "" {
		t.Errorf("Hunks(nil) (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[HunkID]bool{3: true}, tree.Hunks(Statement.Changed)); diff != "" {
		t.Errorf("Hunks(Changed) (-want +got):\n%s", diff)
	}
	if (*Node)(nil).Hunks(nil) != nil {
		t.Error("a nil tree holds hunks")
	}
}

func TestStatusRegression(t *testing.T) {
	for s, want := range map[Status]bool{
		Explained: true, Unexplained: true, FlakyRegression: true, HeadBuildFails: true,
		NotRegression: false, Flaky: false, "": false,
	} {
		if got := s.Regression(); got != want {
			t.Errorf("%q.Regression() = %v, want %v", s, got, want)
		}
	}
}
