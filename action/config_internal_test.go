package action

import "testing"

func TestDefaultCommentID(t *testing.T) {
	tests := []struct {
		name  string
		parts []string
		want  string
	}{
		{"nothing: the shared comment", []string{"", "", ""}, ""},
		{"workflow and job", []string{"CI", "test", ""}, "CI.test"},
		{"tests too", []string{"CI", "test", "TestFoo"}, "CI.test.TestFoo"},
		{"cleaned parts carry a hash", []string{"CI / unit", "test", "TestA,TestB"}, "CI-unit.test.TestA-TestB-39e0ab35"},
		{"a clean look-alike has no hash", []string{"CI-unit", "test", ""}, "CI-unit.test"},
		{"a workflow file's path", []string{".github/workflows/ci.yml", "go", ""}, ".github-workflows-ci.yml.go-5ed39545"},
		{"nothing usable", []string{"🙂", "", ""}, "d06f1525"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := defaultCommentID(tc.parts...)
			if got != tc.want {
				t.Errorf("defaultCommentID(%q) = %q, want %q", tc.parts, got, tc.want)
			}
			if !validCommentID(got) {
				t.Errorf("defaultCommentID(%q) = %q, not a valid comment-id", tc.parts, got)
			}
		})
	}
	t.Run("long values are cut to a valid id", func(t *testing.T) {
		long := "a very long workflow name that goes on and on and on and on and on"
		a, b := defaultCommentID(long+" 1", "job"), defaultCommentID(long+" 2", "job")
		if !validCommentID(a) || !validCommentID(b) || a == b {
			t.Errorf("ids %q and %q: want two different valid ids", a, b)
		}
	})
}
