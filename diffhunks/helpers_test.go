package diffhunks

import (
	"maps"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// apply writes a variant onto a copy of head, the way a trial would.
func apply(head, files map[string][]byte, deleted []string) map[string][]byte {
	out := maps.Clone(head)
	for _, p := range deleted {
		delete(out, p)
	}
	maps.Copy(out, files)
	return out
}

// allIDs returns the ids of every hunk in s.
func allIDs(s *Set) []ID {
	var ids []ID
	for _, h := range s.Hunks() {
		ids = append(ids, h.ID)
	}
	return ids
}

// checkInvariants asserts what must hold for any Set built from base and
// head: reverting everything gives base, reverting nothing gives head, the
// given subset applies, and the order of ids does not matter.
func checkInvariants(t *testing.T, base, head map[string][]byte, subset func(ID) bool) {
	t.Helper()
	s, err := FromFiles(base, head)
	if err != nil {
		t.Fatalf("FromFiles: %v", err)
	}
	hunks := s.Hunks()
	for i, h := range hunks {
		if h.ID != ID(i+1) {
			t.Fatalf("hunk %d has id %d", i+1, h.ID)
		}
		if i > 0 && hunks[i-1].File > h.File {
			t.Fatalf("hunks %d and %d out of file order: %s > %s", i, i+1, hunks[i-1].File, h.File)
		}
		if h.Kind == Modify && h.Base.Len()+h.Head.Len() == 0 {
			t.Fatalf("hunk %d changes nothing", h.ID)
		}
	}

	files, deleted, err := s.Variant(nil)
	if err != nil || len(files) != 0 || len(deleted) != 0 {
		t.Fatalf("Variant(nil) = %d files, %v deleted, %v; want no change", len(files), deleted, err)
	}

	files, deleted, err = s.Variant(allIDs(s))
	if err != nil {
		t.Fatalf("Variant(all): %v", err)
	}
	if diff := cmp.Diff(normalize(base), normalize(apply(head, files, deleted))); diff != "" {
		t.Fatalf("reverting all hunks does not give base (-want +got):\n%s", diff)
	}
	for p, data := range files {
		if hd, ok := head[p]; ok && string(hd) == string(data) {
			t.Errorf("Variant(all) lists %s although it equals head", p)
		}
	}

	var ids []ID
	for _, h := range hunks {
		if subset(h.ID) {
			ids = append(ids, h.ID)
		}
	}
	files, deleted, err = s.Variant(ids)
	if err != nil {
		t.Fatalf("Variant(%v): %v", ids, err)
	}
	rev := slices.Clone(ids)
	slices.Reverse(rev)
	files2, deleted2, err := s.Variant(append(rev, rev...))
	if err != nil {
		t.Fatalf("Variant(reversed %v): %v", ids, err)
	}
	if diff := cmp.Diff(normalize(files), normalize(files2)); diff != "" {
		t.Errorf("Variant depends on id order (-sorted +reversed):\n%s", diff)
	}
	if diff := cmp.Diff(deleted, deleted2); diff != "" {
		t.Errorf("Variant deletions depend on id order (-sorted +reversed):\n%s", diff)
	}

	// Each reverted Modify hunk changes its file's line count by exactly
	// its own size difference.
	want := map[string]int{}
	for _, id := range ids {
		if h := hunks[id-1]; h.Kind == Modify {
			if _, ok := want[h.File]; !ok {
				want[h.File] = len(lineStarts(head[h.File])) - 1
			}
			want[h.File] += h.Base.Len() - h.Head.Len()
		}
	}
	for p, n := range want {
		if got := len(lineStarts(files[p])) - 1; got != n {
			t.Errorf("variant of %s has %d lines, want %d", p, got, n)
		}
	}
}

// normalize maps nil and empty contents to the same value so cmp compares
// bytes, not allocation.
func normalize(m map[string][]byte) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		out[k] = string(v)
	}
	return out
}
