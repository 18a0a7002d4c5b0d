package contrast

import (
	"slices"
	"strings"
	"testing"

	"github.com/culprit-dev/culprit/diffhunks"
)

// TestPathToCachedEntryRewrite: the change makes CSS read its map from a
// cache whose entries a loop compressed when Inline first asked for it,
// where the passing run builds a fresh map. The loop's writes are alike
// in both runs; what differs is which write the read saw. The path goes
// from the failure to the loop's write.
func TestPathToCachedEntryRewrite(t *testing.T) {
	lib := func(css string) string {
		return "package p\n\nimport \"strings\"\n\nfunc build() map[int]string {\n\treturn map[int]string{1: \"color: red\", 2: \"margin: 0\"}\n}\n\n" +
			"type cache struct{ entries map[string]map[int]string }\n\n" +
			"func (c *cache) get(key string) map[int]string {\n\tif m, ok := c.entries[key]; ok {\n\t\treturn m\n\t}\n\tm := build()\n\tfor k, v := range m {\n\t\tm[k] = strings.ReplaceAll(v, \" \", \"\")\n\t}\n\tc.entries[key] = m\n\treturn m\n}\n\n" +
			"// Inline is the compressed style.\nfunc Inline(c *cache) string {\n\tm := c.get(\"x\")\n\treturn m[1]\n}\n\n" +
			"// CSS is the stylesheet's rule.\nfunc CSS(c *cache) string {\n" + css + "\treturn m[1]\n}\n"
	}
	test := "package p\n\nimport \"testing\"\n\nfunc TestCSS(t *testing.T) {\n\tc := &cache{entries: map[string]map[int]string{}}\n\tInline(c)\n\tif got := CSS(c); got != \"color: red\" {\n\t\tt.Errorf(\"got %q\", got)\n\t}\n}\n"
	_, _, _, lines := comparePath(t, moduleP(lib("\tm := build()\n"), test), moduleP(lib("\tm := c.get(\"x\")\n"), test), "TestCSS",
		func(h []diffhunks.Hunk) []diffhunks.ID { return []diffhunks.ID{h[0].ID} })
	if !slices.Contains(lines, `p/p.go:17 m[k] = strings.ReplaceAll(v, " ", "")`) {
		t.Errorf("the path does not reach the write the failing run's read saw:\n%s", strings.Join(lines, "\n"))
	}
}
