package diffhunks

import (
	"bytes"
	"fmt"
	"testing"
)

// fuzzTree splits data on '#' into files f0.go, f1.go, …; an empty part is
// an absent file, so fuzzing reaches adds, deletes and renames too.
func fuzzTree(data []byte) map[string][]byte {
	m := map[string][]byte{}
	for i, part := range bytes.Split(data, []byte("#")) {
		if len(part) > 0 && i < 8 {
			m[fmt.Sprintf("f%d.go", i)] = part
		}
	}
	return m
}

func FuzzVariant(f *testing.F) {
	f.Add([]byte("a\nb\nc\nd\ne\n"), []byte("a\nB\nc\nD\ne\nf"), uint64(1))
	f.Add([]byte("package p\n\nfunc F() {\n\tx := 1\n}\n#keep\n"), []byte("package p\n\nfunc F() {\n\ty := 2\n\tx := 1\n}\n##keep\n"), uint64(2))
	f.Add([]byte("one\r\ntwo\r\nthree"), []byte("one\r\n2\r\nthree\r\n"), uint64(3))
	f.Add([]byte("caf\xe9\n\xff\xfe\n#gone\n"), []byte("caf\xe9\n\xfe\n#\x00bin\n"), uint64(5))
	f.Add([]byte("x\n#same\n"), []byte("x\n##same\n"), ^uint64(0))
	f.Add([]byte(""), []byte("\n\n\n"), uint64(0))
	f.Fuzz(func(t *testing.T, base, head []byte, mask uint64) {
		checkInvariants(t, fuzzTree(base), fuzzTree(head), func(id ID) bool {
			return mask>>(uint(id)%64)&1 == 1
		})
	})
}
