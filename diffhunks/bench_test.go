package diffhunks

import (
	"fmt"
	"strings"
	"testing"
)

// synthetic builds nfiles Go-like files of nlines lines in which every
// 20th line (5%) differs between base and head, each change its own hunk.
func synthetic(nfiles, nlines int) (base, head map[string][]byte) {
	base, head = map[string][]byte{}, map[string][]byte{}
	for f := 0; f < nfiles; f++ {
		var b, h strings.Builder
		b.WriteString("package p\n\nfunc F() {\n")
		h.WriteString("package p\n\nfunc F() {\n")
		for l := 0; l < nlines; l++ {
			fmt.Fprintf(&b, "\tx%d := %d // file %d\n", l, l, f)
			if l%20 == 10 {
				fmt.Fprintf(&h, "\tx%d := %d // changed\n", l, l+1)
			} else {
				fmt.Fprintf(&h, "\tx%d := %d // file %d\n", l, l, f)
			}
		}
		b.WriteString("}\n")
		h.WriteString("}\n")
		name := fmt.Sprintf("pkg%03d/file.go", f)
		base[name], head[name] = []byte(b.String()), []byte(h.String())
	}
	return base, head
}

func BenchmarkFromFiles(b *testing.B) {
	base, head := synthetic(200, 2000)
	b.ResetTimer()
	for b.Loop() {
		s, err := FromFiles(base, head)
		if err != nil {
			b.Fatal(err)
		}
		if n := len(s.Hunks()); n != 200*100 {
			b.Fatalf("%d hunks, want %d", n, 200*100)
		}
	}
}

// BenchmarkVariant reverts every other hunk of a 20,000-hunk set; its cost
// must grow with the bytes touched, not with hunks × hunks.
func BenchmarkVariant(b *testing.B) {
	base, head := synthetic(200, 2000)
	s, err := FromFiles(base, head)
	if err != nil {
		b.Fatal(err)
	}
	var ids []ID
	for _, h := range s.Hunks() {
		if h.ID%2 == 0 {
			ids = append(ids, h.ID)
		}
	}
	b.ResetTimer()
	for b.Loop() {
		if _, _, err := s.Variant(ids); err != nil {
			b.Fatal(err)
		}
	}
}
