package diffhunks

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFromFilesHunks(t *testing.T) {
	tests := []struct {
		name       string
		base, head map[string][]byte
		want       []Hunk
	}{
		{
			name: "one line changed",
			base: files("a.txt", "a\nb\nc\n"),
			head: files("a.txt", "a\nB\nc\n"),
			want: []Hunk{{ID: 1, File: "a.txt", OldFile: "a.txt", Base: LineRange{2, 2}, Head: LineRange{2, 2}, Kind: Modify, Diff: "-b\n+B\n"}},
		},
		{
			name: "separate changes are separate hunks",
			base: files("a.txt", "1\n2\n3\n4\n5\n6\n7\n"),
			head: files("a.txt", "one\n2\n3\n4\n5\nsix\n6\n7\n"),
			want: []Hunk{
				{ID: 1, File: "a.txt", OldFile: "a.txt", Base: LineRange{1, 1}, Head: LineRange{1, 1}, Kind: Modify, Diff: "-1\n+one\n"},
				{ID: 2, File: "a.txt", OldFile: "a.txt", Base: LineRange{6, 5}, Head: LineRange{6, 6}, Kind: Modify, Diff: "+six\n"},
			},
		},
		{
			name: "pure deletion",
			base: files("a.txt", "a\nb\nc\n"),
			head: files("a.txt", "a\nc\n"),
			want: []Hunk{{ID: 1, File: "a.txt", OldFile: "a.txt", Base: LineRange{2, 2}, Head: LineRange{2, 1}, Kind: Modify, Diff: "-b\n"}},
		},
		{
			name: "no newline at end of file",
			base: files("a.txt", "a\nb"),
			head: files("a.txt", "a\nc"),
			want: []Hunk{{ID: 1, File: "a.txt", OldFile: "a.txt", Base: LineRange{2, 2}, Head: LineRange{2, 2}, Kind: Modify, Diff: "-b\n+c\n"}},
		},
		{
			name: "newline added at end of file",
			base: files("a.txt", "a\nb"),
			head: files("a.txt", "a\nb\n"),
			want: []Hunk{{ID: 1, File: "a.txt", OldFile: "a.txt", Base: LineRange{2, 2}, Head: LineRange{2, 2}, Kind: Modify, Diff: "-b\n+b\n"}},
		},
		{
			name: "CRLF",
			base: files("a.txt", "a\r\nb\r\nc\r\n"),
			head: files("a.txt", "a\r\nB\r\nc\r\n"),
			want: []Hunk{{ID: 1, File: "a.txt", OldFile: "a.txt", Base: LineRange{2, 2}, Head: LineRange{2, 2}, Kind: Modify, Diff: "-b\n+B\n"}},
		},
		{
			name: "whole files",
			base: files("gone.txt", "x\ny\n", "old.txt", "same\n", "img.bin", "\x00\x01"),
			head: files("new.txt", "n\n", "moved.txt", "same\n", "img.bin", "\x00\x02\x03"),
			want: []Hunk{
				{ID: 1, File: "gone.txt", OldFile: "gone.txt", Base: LineRange{1, 2}, Head: LineRange{1, 0}, Kind: Delete, Diff: "-x\n-y\n"},
				{ID: 2, File: "img.bin", OldFile: "img.bin", Base: LineRange{1, 0}, Head: LineRange{1, 0}, Kind: Binary, Diff: "binary file changed (2 → 3 bytes)\n"},
				{ID: 3, File: "moved.txt", OldFile: "old.txt", Base: LineRange{1, 1}, Head: LineRange{1, 1}, Kind: Rename, Diff: "-same\n+same\n"},
				{ID: 4, File: "new.txt", OldFile: "new.txt", Base: LineRange{1, 0}, Head: LineRange{1, 1}, Kind: Add, Diff: "+n\n"},
			},
		},
		{
			name: "non-UTF-8 text is diffed by lines",
			base: files("l1.txt", "caf\xe9\nb\n"),
			head: files("l1.txt", "caf\xe9\nb\xff\n"),
			want: []Hunk{{ID: 1, File: "l1.txt", OldFile: "l1.txt", Base: LineRange{2, 2}, Head: LineRange{2, 2}, Kind: Modify, Diff: "-b\n+b\xff\n"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := FromFiles(tt.base, tt.head)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, s.Hunks()); diff != "" {
				t.Errorf("hunks (-want +got):\n%s", diff)
			}
			checkInvariants(t, tt.base, tt.head, func(id ID) bool { return id%2 == 1 })
		})
	}
}

func TestVariant(t *testing.T) {
	base := files("a.txt", "1\n2\n3\n4\n5\n", "gone.txt", "g\n", "old.txt", "r\n")
	head := files("a.txt", "1\ntwo\n3\nfour\n5\n", "new.txt", "n\n", "renamed.txt", "r\n")
	s, err := FromFiles(base, head)
	if err != nil {
		t.Fatal(err)
	}
	// Hunks: 1 a.txt:2, 2 a.txt:4, 3 delete gone.txt, 4 add new.txt, 5 rename.
	tests := []struct {
		name        string
		revert      []ID
		wantFiles   map[string][]byte
		wantDeleted []string
	}{
		{"none", nil, files(), nil},
		{"first line hunk", []ID{1}, files("a.txt", "1\n2\n3\nfour\n5\n"), nil},
		{"second line hunk", []ID{2}, files("a.txt", "1\ntwo\n3\n4\n5\n"), nil},
		{"both line hunks any order", []ID{2, 1, 2}, files("a.txt", "1\n2\n3\n4\n5\n"), nil},
		{"delete restores base file", []ID{3}, files("gone.txt", "g\n"), nil},
		{"add removes head file", []ID{4}, files(), []string{"new.txt"}},
		{"rename moves back", []ID{5}, files("old.txt", "r\n"), []string{"renamed.txt"}},
		{"all", []ID{5, 4, 3, 2, 1}, files("a.txt", "1\n2\n3\n4\n5\n", "gone.txt", "g\n", "old.txt", "r\n"), []string{"new.txt", "renamed.txt"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, deleted, err := s.Variant(tt.revert)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(normalize(tt.wantFiles), normalize(got)); diff != "" {
				t.Errorf("files (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantDeleted, deleted); diff != "" {
				t.Errorf("deleted (-want +got):\n%s", diff)
			}
		})
	}
}

func TestVariantUnknownID(t *testing.T) {
	s, err := FromFiles(files("a", "1\n"), files("a", "2\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []ID{0, 2, -1} {
		if _, _, err := s.Variant([]ID{1, id}); err == nil || !strings.Contains(err.Error(), "unknown hunk id") {
			t.Errorf("Variant([1 %d]) error = %v, want unknown hunk id", id, err)
		}
	}
	if _, ok := s.Hunk(2); ok {
		t.Errorf("Hunk(2) found in a one-hunk set")
	}
}

func TestInvalidPath(t *testing.T) {
	for _, p := range []string{"../x", "/abs", "a//b", ""} {
		if _, err := FromFiles(files(p, "x"), nil); err == nil {
			t.Errorf("FromFiles with path %q: no error", p)
		}
	}
}

func TestAccessors(t *testing.T) {
	s, err := FromFiles(files("a.go", "package a\n", "same", "s"), files("a.go", "package b\n", "same", "s"))
	if err != nil {
		t.Fatal(err)
	}
	if b, ok := s.BaseFile("a.go"); !ok || string(b) != "package a\n" {
		t.Errorf("BaseFile(a.go) = %q, %v", b, ok)
	}
	if h, ok := s.HeadFile("a.go"); !ok || string(h) != "package b\n" {
		t.Errorf("HeadFile(a.go) = %q, %v", h, ok)
	}
	if _, ok := s.HeadFile("same"); ok {
		t.Errorf("HeadFile reports an unchanged file")
	}
	if h, _ := s.Hunk(1); !h.IsGo() || s.Mode("a.go") != 0o644 {
		t.Errorf("hunk 1 IsGo = %v, mode %v; want true, 0644", h.IsGo(), s.Mode("a.go"))
	}
}

// files builds a tree from alternating paths and contents.
func files(kv ...string) map[string][]byte {
	m := map[string][]byte{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = []byte(kv[i+1])
	}
	return m
}
