package search

import (
	"testing"

	"github.com/culprit-dev/culprit/diffhunks"
)

func TestPlumbing(t *testing.T) {
	for _, tt := range []struct {
		name, diff string
		want       bool
	}{
		{"a parameter threaded through a wrapper",
			"-func padLeft(str string, n int, style *ansi.Style) string {\n-\treturn pad(str, -n, style)\n" +
				"+func padLeft(str string, n int, style *ansi.Style, r rune) string {\n+\treturn pad(str, -n, style, r)\n", true},
		{"a parameter added, with a comment",
			"-func pad(str string, n int, style *ansi.Style) string {\n" +
				"+// r is the rune to pad with.\n+func pad(str string, n int, style *ansi.Style, r rune) string {\n", true},
		{"a parameter removed", "-func f(ctx context.Context, xs ...[]int) {\n+func f(xs ...[]int) {\n", true},
		{"a parameter the only one", "-func f() {\n+func f(opts *Options) {\n", true},
		{"an argument passing a value from elsewhere",
			"-\t\t\tstr = padLeft(str, leftPadding, st)\n+\t\t\tstr = padLeft(str, leftPadding, st, nbsp)\n", false},
		{"an argument passing a literal",
			"-\tstr = padRight(str, rightMargin, &style)\n+\tstr = padRight(str, rightMargin, &style, ' ')\n", false},
		{"the use of the new parameter", "-\tsp := strings.Repeat(\" \", abs(n))\n+\tsp := strings.Repeat(string(r), abs(n))\n", false},
		{"arguments replaced", "-\th.Push(&heapItem{point: p, distance: d})\n+\th.Push(p, d)\n", false},
		{"a name added outside parentheses", "-\tx := f()\n+\tx, err := f()\n", false},
		{"only a comment", "-// old\n+// new\n", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := Plumbing(diffhunks.Hunk{Diff: tt.diff}); got != tt.want {
				t.Errorf("Plumbing = %v, want %v", got, tt.want)
			}
		})
	}
}
