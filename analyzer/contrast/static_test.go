package contrast

import (
	"slices"
	"strings"
	"testing"
)

// TestPathSkipsStaticAddresses: a cache keyed by a type descriptor's
// address (read through unsafe, as go-json keys its encoders) holds a
// count that the change computes wrongly. The changed code reads the
// descriptor too, before the key is made, so the two runs first see its
// address at events that do not correspond. The descriptor is static
// data, laid out by the linker: first sightings do not tell which object
// it is, and the key names the same type in both runs. The path goes from
// the failure to the changed line, and not back through the key.
func TestPathSkipsStaticAddresses(t *testing.T) {
	src := func(count string) string {
		return "package p\n\nimport (\n\t\"reflect\"\n\t\"unsafe\"\n)\n\n" +
			"type iface struct{ typ, ptr unsafe.Pointer }\n\n" +
			"func key(v any) uintptr {\n\ttyp := (*iface)(unsafe.Pointer(&v)).typ\n\treturn uintptr(typ)\n}\n\n" +
			"type plan struct {\n\ttyp uintptr\n\tn   int\n}\n\nvar plans = map[uintptr]*plan{}\n\n" +
			"func planFor(v any) *plan {\n\tn := count(v)\n\tk := key(v)\n\tif p := plans[k]; p != nil {\n\t\treturn p\n\t}\n\tp := &plan{typ: k, n: n}\n\tplans[k] = p\n\treturn p\n}\n\n" +
			"// Fields counts the fields of v's type.\nfunc Fields(v any) int {\n\tp := planFor(v)\n\treturn int(reflect.ValueOf(p).Elem().Field(1).Int())\n}\n\n" +
			"type B struct{ X, Y int }\n\nfunc count(v any) int {\n" + count + "}\n"
	}
	test := "package p\n\nimport \"testing\"\n\nfunc TestFields(t *testing.T) {\n\tif n := Fields(B{}); n != 2 {\n\t\tt.Fatal(n)\n\t}\n}\n"
	base := moduleP(src("\treturn reflect.TypeOf(v).NumField()\n"), test)
	head := moduleP(src("\tif (*iface)(unsafe.Pointer(&v)).typ != nil {\n\t\treturn reflect.TypeOf(v).NumField() + 1\n\t}\n\treturn 0\n"), test)
	c, p := pathReaches(t, base, head, "TestFields")
	var lines []string
	for _, s := range p.Steps {
		lines = append(lines, c.Statement(s).Text)
	}
	if i := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "typ := ") || strings.HasPrefix(l, "k := key(v)") }); i >= 0 {
		t.Errorf("the path goes back through the type's address (%s):\n%s", lines[i], strings.Join(lines, "\n"))
	}
}
