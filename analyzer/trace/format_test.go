package trace

import (
	"math"
	"testing"
)

func TestFormatNamesObjectsNotAddresses(t *testing.T) {
	fs := Type{Kind: TypePointer, Name: "*github.com/spf13/pflag.FlagSet"}
	node := Type{Kind: TypePointer, Name: "*example.com/list.Node"}
	var objs Objects
	for _, tc := range []struct {
		v    Value
		t    Type
		want string
	}{
		{Value{Kind: ValPointer, Bits: 0xc000010000}, fs, "*FlagSet#1"},
		{Value{Kind: ValPointer, Bits: 0xc000020000}, node, "*Node#1"},
		{Value{Kind: ValPointer, Bits: 0xc000030000}, fs, "*FlagSet#2"},
		{Value{Kind: ValPointer, Bits: 0xc000010000}, fs, "*FlagSet#1"}, // seen before
		{Value{Kind: ValPointer, Nil: true}, fs, "nil"},
		{Value{Kind: ValPointer, Bits: 0xc000010000}, Type{}, "non-nil"},
		{Value{Kind: ValIface, Bits: 0x1, Hash: 0x2}, Type{Name: "error"}, "non-nil"},
		{Value{Kind: ValSlice, Bits: 0xc0000, Len: 3, Cap: 4}, Type{}, "len 3"},
		{Value{Kind: ValSlice, Bits: 0xc0000, Len: 3, Cap: 4, Hash: 77}, Type{}, "len 3"}, // a []int with its elements' hash
		{Value{Kind: ValSlice, Bits: 0xc0000, Len: 9, Cap: 9, Hash: 77, Prefix: "abcdefgh"}, Type{}, `[]byte("abcdefgh"…) (len 9)`},
		{Value{Kind: ValIface, Bits: 0x1, Hash: 0x2, Prefix: "*errors.errorString\x00EOF", Len: 3, Cap: 5}, Type{Name: "error"}, `non-nil *errors.errorString "EOF"`},
		{Value{Kind: ValFloat, Bits: math.Float64bits(0.1)}, Type{}, "0.1"},
		{Value{Kind: ValString, Len: 2, Prefix: "hi"}, Type{}, `"hi"`},
		{Value{Kind: ValString, Len: 900, Prefix: "ab"}, Type{}, `"ab"… (len 900)`},
		{Value{Kind: ValInt, Bits: uint64(0xffffffffffffffff)}, Type{}, "-1"},
	} {
		if got := tc.v.Format(tc.t, &objs); got != tc.want {
			t.Errorf("Format(%+v, %s) = %q, want %q", tc.v, tc.t.Name, got, tc.want)
		}
	}
}

func TestShortType(t *testing.T) {
	for in, want := range map[string]string{
		"*github.com/a/b.FlagSet":                   "*FlagSet",
		"map[string]*example.com/x.T":               "map[string]*T",
		"[]github.com/a/b.Item":                     "[]Item",
		"func(int) (example.com/p.R, error)":        "func(int) (R, error)",
		"int":                                       "int",
		"*github.com/a/b.Pair[int,example.com/c.K]": "*Pair[int,K]",
	} {
		if got := ShortType(in); got != want {
			t.Errorf("ShortType(%q) = %q, want %q", in, got, want)
		}
	}
}
