package main

import "testing"

func TestModulePackage(t *testing.T) {
	tests := []struct {
		mod, pkg, want string
		bad            bool
	}{
		{mod: ".", pkg: ".", want: "."},
		{mod: ".", pkg: "./calc", want: "./calc"},
		{mod: "tools/x", pkg: "./tools/x", want: "."},
		{mod: "tools/x", pkg: "./tools/x/api/p", want: "./api/p"},
		{mod: "./tools/x", pkg: "tools/x/api", want: "./api"},
		{mod: "tools/x", pkg: "./tools/xy/api", bad: true},
		{mod: "tools/x", pkg: ".", bad: true},
	}
	for _, tt := range tests {
		got, err := modulePackage(tt.mod, tt.pkg)
		if tt.bad {
			if err == nil {
				t.Errorf("modulePackage(%q, %q) = %q, want an error", tt.mod, tt.pkg, got)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("modulePackage(%q, %q) = %q, %v, want %q", tt.mod, tt.pkg, got, err, tt.want)
		}
	}
}
