package trace

import "testing"

func TestInStatic(t *testing.T) {
	tr := &Trace{Static: []Span{{Lo: 0x400000, Hi: 0x400100}, {Lo: 0x500000, Hi: 0x500010}}}
	for _, tc := range []struct {
		a    uint64
		want bool
	}{
		{0x3fffff, false}, {0x400000, true}, {0x4000ff, true}, {0x400100, false},
		{0x4fffff, false}, {0x500008, true}, {0x500010, false}, {0xc000010000, false},
	} {
		if got := tr.InStatic(tc.a); got != tc.want {
			t.Errorf("InStatic(%#x) = %v, want %v", tc.a, got, tc.want)
		}
	}
	if (&Trace{}).InStatic(0x400000) {
		t.Error("a trace with no spans holds no static address")
	}
}
