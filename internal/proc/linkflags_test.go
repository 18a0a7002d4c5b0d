package proc

import "testing"

func TestLinkFlags(t *testing.T) {
	for _, tc := range []struct {
		name  string
		env   []string
		extra []string
		want  string
	}{
		{"no GOFLAGS", nil, nil, "-ldflags=-s -w"},
		{"GOFLAGS without -ldflags", []string{"GOFLAGS=-mod=mod -tags=x"}, nil, "-ldflags=-s -w"},
		{"the user's linker flags are kept", []string{"GOFLAGS=-ldflags=-X=main.version=1"}, nil, "-ldflags=-X=main.version=1 -s -w"},
		{"the last GOFLAGS is the one a child sees", []string{"GOFLAGS=-ldflags=-X=a.b=1", "GOFLAGS=--ldflags=-linkmode=internal"}, nil, "-ldflags=-linkmode=internal -s -w"},
		{"extra flags come last", []string{"GOFLAGS=-ldflags=-X=a.b=1"}, []string{"-checklinkname=0"}, "-ldflags=-X=a.b=1 -s -w -checklinkname=0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := LinkFlags(GoFlags(tc.env), tc.extra...); got != tc.want {
				t.Errorf("LinkFlags = %q, want %q", got, tc.want)
			}
		})
	}
}
