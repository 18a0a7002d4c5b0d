package contrast

import (
	"testing"
)

// TestStatementShowsDifferingFields: the change moves a segment's start;
// where a step of the path shows the segment in both runs, it shows the
// fields that differ, not the ones both runs agree on (a step the passing
// run did not take, the failure, shows it whole).
func TestStatementShowsDifferingFields(t *testing.T) {
	src := func(start string) map[string]string {
		return moduleP(
			"package p\n\ntype Segment struct{ Start, Stop int32 }\n\n"+
				"func Make(n int32) Segment {\n\tseg := Segment{Start: "+start+", Stop: 9}\n\treturn seg\n}\n",
			"package p\n\nimport \"testing\"\n\nfunc TestMake(t *testing.T) {\n\ts := Make(8)\n\tif s != (Segment{Start: 8, Stop: 9}) {\n\t\tt.Fatal(s)\n\t}\n}\n",
		)
	}
	c, p := pathReaches(t, src("n"), src("n + 2"), "TestMake")
	shown := map[string][2]string{}
	for _, s := range p.Steps {
		st := c.Statement(s)
		if st.Passing == nil {
			continue
		}
		for name, v := range st.Values {
			shown[st.Text+" "+name] = [2]string{v, st.Passing.Values[name]}
		}
	}
	want := [2]string{"Segment{Start: 10}", "{Start: 8}"}
	found := false
	for k, v := range shown {
		if v == want {
			found = true
		}
		if v[0] == "Segment{Start: 10, Stop: 9}" && v[1] != "" {
			t.Errorf("%s shown in full beside %q", k, v[1])
		}
	}
	if !found {
		t.Errorf("no step shows the segment as %q against %q: %v", want[0], want[1], shown)
	}
}

// TestPathSkipsAlikeStructs: a struct of numbers that both runs made
// alike is handed to the call whose other argument the change altered.
// The comparison sees the two structs are one value, so the path goes
// back through the differing argument only, not through the struct's
// making.
func TestPathSkipsAlikeStructs(t *testing.T) {
	src := func(scale string) map[string]string {
		return moduleP(
			"package p\n\ntype Box struct {\n\tW, H int32\n\tOn   bool\n}\n\n"+
				"func area(b Box, k int32) int32 { return b.W * b.H * k }\n\n"+
				"func Area(n int32) int32 {\n\tb := Box{W: n, H: 3, On: true}\n\tc := b\n\treturn area(c, "+scale+")\n}\n",
			"package p\n\nimport \"testing\"\n\nfunc TestArea(t *testing.T) {\n\tif got := Area(2); got != 6 {\n\t\tt.Fatal(got)\n\t}\n}\n",
		)
	}
	c, p := pathReaches(t, src("1"), src("2"), "TestArea")
	for _, s := range p.Steps {
		if st := c.Statement(s); st.Text == "b := Box{W: n, H: 3, On: true}" || st.Text == "c := b" {
			t.Errorf("the path goes through the alike struct's making, at %s:%d %s", st.File, st.Line, st.Text)
		}
	}
}
