package diffhunks

import "testing"

// HeadAt names the hunk of a changed line, the whole-file hunk of a new or
// renamed file, and nothing for shared lines, a deleted file or lines
// beside a pure deletion.
func TestHeadAt(t *testing.T) {
	s, err := FromFiles(
		files("a.go", "1\n2\n3\n4\n5\n6\n", "gone.go", "x\n", "old.go", "package p\n\nfunc f() {}\n"),
		files("a.go", "1\nTWO\n3\n5\n6\nseven\n", "new.go", "n\n", "renamed.go", "package p\n\nfunc f() {}\n"))
	if err != nil {
		t.Fatal(err)
	}
	id := func(file string, kind Kind, line int) ID {
		for _, h := range s.Hunks() {
			if h.File == file && h.Kind == kind && (kind != Modify || h.Head.Contains(line) || h.Head.Len() == 0 && h.Head.Start == line) {
				return h.ID
			}
		}
		t.Fatalf("no %s hunk of %s at %d in %+v", kind, file, line, s.Hunks())
		return 0
	}
	tests := []struct {
		file string
		line int
		want ID
	}{
		{"a.go", 1, 0},
		{"a.go", 2, id("a.go", Modify, 2)},
		{"a.go", 3, 0},
		{"a.go", 4, 0}, // after the deletion of base's 4: a shared line
		{"a.go", 6, id("a.go", Modify, 6)},
		{"new.go", 1, id("new.go", Add, 0)},
		{"renamed.go", 3, id("renamed.go", Rename, 0)},
		{"gone.go", 1, 0},
		{"b.go", 2, 0},
	}
	for _, tt := range tests {
		if got := HeadAt(s.Hunks(), tt.file, tt.line); got != tt.want {
			t.Errorf("HeadAt(%s:%d) = %d, want %d", tt.file, tt.line, got, tt.want)
		}
	}
}

func TestDeletesOnly(t *testing.T) {
	for _, c := range []struct {
		h    Hunk
		want bool
	}{
		{Hunk{Kind: Modify, Base: LineRange{5, 7}, Head: LineRange{5, 4}}, true},  // lines deleted
		{Hunk{Kind: Modify, Base: LineRange{5, 7}, Head: LineRange{5, 5}}, false}, // lines rewritten
		{Hunk{Kind: Modify, Base: LineRange{5, 4}, Head: LineRange{5, 6}}, false}, // lines added
		{Hunk{Kind: Delete, Base: LineRange{1, 9}, Head: LineRange{1, 0}}, true},
		{Hunk{Kind: Rename, Base: LineRange{1, 9}, Head: LineRange{1, 0}}, false},
	} {
		if got := c.h.DeletesOnly(); got != c.want {
			t.Errorf("%s base %s head %s: DeletesOnly %v, want %v", c.h.Kind, c.h.Base, c.h.Head, got, c.want)
		}
	}
}
