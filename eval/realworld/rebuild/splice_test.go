package main

import (
	"strings"
	"testing"
)

func TestSplice(t *testing.T) {
	const fix = `package p

import (
	"errors"
	"strings"
	"testing"
)

// TestA is the fixed test.
func TestA(t *testing.T) {
	if strings.ToUpper("a") != "A" || helper() == nil {
		t.Fatal("x")
	}
}

func helper() error { return errors.New("h") }

var table = []int{1, 2}

type box struct{}

func (*box) String() string { return "new" }
`
	tests := []struct {
		name    string
		dst     string // "" means the file is absent
		names   []string
		want    string
		wantErr string
	}{
		{
			name:  "absent file is created with the needed imports only",
			names: []string{"TestA", "helper"},
			want: `package p

import (
	"errors"
	"strings"
	"testing"
)

// TestA is the fixed test.
func TestA(t *testing.T) {
	if strings.ToUpper("a") != "A" || helper() == nil {
		t.Fatal("x")
	}
}

func helper() error { return errors.New("h") }
`,
		},
		{
			name: "same-named declaration is replaced in place, unused import dropped",
			dst: `package p

import (
	"fmt"
	"testing"
)

func TestZ(t *testing.T) {}

func TestA(t *testing.T) {
	fmt.Println("old")
}

func TestB(t *testing.T) {}
`,
			names: []string{"TestA"},
			want: `package p

import (
	"strings"
	"testing"
)

func TestZ(t *testing.T) {}

// TestA is the fixed test.
func TestA(t *testing.T) {
	if strings.ToUpper("a") != "A" || helper() == nil {
		t.Fatal("x")
	}
}

func TestB(t *testing.T) {}
`,
		},
		{
			name: "new declarations are appended, imports of untouched code kept",
			dst: `package p

import "os"

var _ = os.Args
`,
			names: []string{"table"},
			want: `package p

import "os"

var _ = os.Args

var table = []int{1, 2}
`,
		},
		{
			name: "a method is named after its receiver type",
			dst: `package p

type box struct{}

func String() string { return "func" }

func (b *box) String() string { return "old" }
`,
			names: []string{"box.String"},
			want: `package p

type box struct{}

func String() string { return "func" }

func (*box) String() string { return "new" }
`,
		},
		{
			name:    "unknown name is an error",
			dst:     "package p\n",
			names:   []string{"TestMissing"},
			wantErr: `"TestMissing" not in fix file`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var dst []byte
			if tc.dst != "" {
				dst = []byte(tc.dst)
			}
			got, err := splice(dst, []byte(fix), tc.names)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

func TestRunPattern(t *testing.T) {
	if got, want := runPattern("TestFoo/a+b"), `^TestFoo$/^a\+b$`; got != want {
		t.Errorf("runPattern = %q, want %q", got, want)
	}
}
