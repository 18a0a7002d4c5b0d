package semantic

import (
	"os"
	"path/filepath"
	"testing"
)

const srcExample = `package p

func G(a, b int) int {
	s := 0
	for i := 0; i < a; i++ {
		s += i
	}
	if b > 0 {
		s = b
	} else {
		p := &a
		_ = p
	}
	switch {
	case a > 3:
		s++
	}
	return s
}
`

func TestSources(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "p.go"), []byte(srcExample), 0o644); err != nil {
		t.Fatal(err)
	}
	src := newSources(dir)
	at := func(line, col int) *place {
		t.Helper()
		p, err := src.find("p.go", line, col)
		if err != nil || p.block == nil {
			t.Fatalf("p.go:%d:%d: %v (block %v)", line, col, err, p)
		}
		return p
	}
	forCond, loopBody := at(5, 14), at(6, 0)
	ifCond, then := at(8, 5), at(9, 0)
	caseCond, caseBody := at(15, 7), at(16, 0)
	ret := at(18, 0)
	t.Run("post-dominance", func(t *testing.T) {
		tests := []struct {
			name string
			g    *place
			br   *place
			want bool
		}{
			{"loop body under for", loopBody, forCond, false},
			{"then under if", then, ifCond, false},
			{"return after if", ret, ifCond, true},
			{"return after for", ret, forCond, true},
			{"case body under case", caseBody, caseCond, false},
			{"if after for", ifCond, forCond, true},
		}
		for _, tt := range tests {
			if got := postDominatesBranch(tt.g, tt.br); got != tt.want {
				t.Errorf("%s: postDominatesBranch = %v, want %v", tt.name, got, tt.want)
			}
		}
	})
	t.Run("not-taken definitions", func(t *testing.T) {
		tests := []struct {
			name    string
			br      *place
			outcome bool
			loc     string
			local   bool
			want    bool
		}{
			{"if true: else takes &a", ifCond, true, "a", true, true},
			{"if true: else does not assign s", ifCond, true, "s", true, false},
			{"if false: then assigns s", ifCond, false, "s", true, true},
			{"for exits: body assigns s", forCond, false, "s", true, true},
			{"for enters: nothing", forCond, true, "s", true, false},
			{"case not matched: s++", caseCond, false, "s", true, true},
			{"heap: no writes through pointers", ifCond, false, "*p", false, false},
		}
		for _, tt := range tests {
			if got := mayDefine(notTaken(tt.br, tt.outcome, false), tt.loc, tt.local, nil); got != tt.want {
				t.Errorf("%s: mayDefine = %v, want %v", tt.name, got, tt.want)
			}
		}
	})
}
