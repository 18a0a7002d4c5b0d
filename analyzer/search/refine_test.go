package search

import "testing"

func TestRenameOnly(t *testing.T) {
	for _, tt := range []struct {
		name, diff string
		want       bool
	}{
		{"rename", "-func double(x int) int { return 2 * x }\n+func twice(x int) int { return 2 * x }\n", true},
		{"rename with comment", "-// double\n-func double(x int) int\n+// twice\n+func twice(x int) int\n", true},
		{"reordered parameters", "-func clamp(x, lo, hi int) int {\n+func limit(lo, hi, x int) int {\n", false},
		{"changed constant", "-\treturn double(x) + 1\n+\treturn twice(x) + 2\n", false},
		{"inconsistent rename", "-\ta, a := f()\n+\tb, c := f()\n", false},
		{"no change in code", "-// old words\n+// new words\n", false},
		{"added line", "+\tx++\n", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := renameOnly(tt.diff); got != tt.want {
				t.Errorf("renameOnly(%q) = %v, want %v", tt.diff, got, tt.want)
			}
		})
	}
}
