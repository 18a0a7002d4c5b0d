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
