package instrument

import (
	"regexp"
	"testing"

	"github.com/culprit-dev/culprit/analyzer/trace"
)

const opaqueModule = `package p

import (
	"reflect"
	"time"
)

type Celsius int

type Config struct{ Name string }

// LongishStringName has a name longer than the recorder keeps.
type LongishStringName string

// Deadline is start plus d.
func Deadline(start time.Time, d time.Duration) time.Time {
	end := start.Add(d)
	return end
}

// Describe is x as a reflect.Value.
func Describe(x any) reflect.Value {
	rv := reflect.ValueOf(x)
	return rv
}
`

const opaqueTest = `package p

import (
	"reflect"
	"testing"
	"time"
)

func TestX(t *testing.T) {
	// Nothing has looked up time.Local yet: first is recorded without its
	// zone. Printing it loads Local; second is then recorded with it.
	first := time.Now()
	t.Logf("first=%s|", first.UTC().Format(time.RFC3339Nano))
	t.Logf("second=%v|", first)
	second := first

	start := time.Date(2024, time.March, 5, 14, 30, 15, 123456789, time.UTC)
	end := Deadline(start, 90*time.Minute)
	cet := end.In(time.FixedZone("CET", 3600))
	cut := end.In(time.FixedZone("Somewhere/Far", -5*3600-1800))
	var zero time.Time
	z := zero
	seen := map[time.Time]int{}
	seen[start] = 1
	seen[end] = 2

	n := Describe(3)
	c := Describe(Celsius(-4))
	s := Describe("hello, world")
	fl := Describe(2.5)
	p := Describe(&Config{})
	var none *Config
	np := Describe(none)
	sl := Describe([]int{1, 2})
	long := Describe(map[string]map[string]*Config{})
	field := reflect.ValueOf(&Config{Name: "x"}).Elem().Field(0)
	var invalid reflect.Value
	inv := invalid
	keys := map[reflect.Value]reflect.Value{}
	keys[Describe(LongishStringName("key"))] = Describe(LongishStringName("value"))

	if second.IsZero() || cet.IsZero() || cut.IsZero() || !z.IsZero() || len(seen) != 2 {
		t.Fatal("times")
	}
	if !n.IsValid() || !c.IsValid() || !s.IsValid() || !fl.IsValid() || !p.IsValid() || !np.IsValid() ||
		!sl.IsValid() || !long.IsValid() || !field.IsValid() || inv.IsValid() || len(keys) != 1 {
		t.Fatal("values")
	}
}

// TestAllocs: recording times and reflect.Values allocates nothing.
func TestAllocs(t *testing.T) {
	tm := time.Date(2024, time.March, 5, 14, 30, 15, 0, time.FixedZone("CET", 3600))
	rvs := []reflect.Value{reflect.ValueOf("hello"), reflect.ValueOf(map[string]*Config{}), reflect.ValueOf(&tm).Elem(), {}}
	var sink time.Time
	var rsink reflect.Value
	if n := testing.AllocsPerRun(100, func() {
		sink = tm
		for _, rv := range rvs {
			rsink = rv
		}
	}); n != 0 {
		t.Errorf("%v allocations per run", n)
	}
	_, _ = sink, rsink
}
`

// TestOpaqueValues traces a program that makes times and reflect.Values
// and checks how the values written to its variables are shown: a time
// as its String method writes it (zone and monotonic reading included),
// or in UTC marked (Local) while the program has not loaded time.Local;
// a reflect.Value by kind, type and what it holds, never an address.
// The times the program printed are compared with the shown values; the
// others are fixed by the program. Two entries of a map keyed by times
// are two locations, and recording either kind allocates nothing (a
// second test of the program measures it).
func TestOpaqueValues(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a traced test binary")
	}
	dir := writeTree(t, moduleP(opaqueModule, opaqueTest))
	tr := tracePassing(t, dir, "./p", "TestX")
	printed := func(name string) string {
		t.Helper()
		m := regexp.MustCompile(name + `=([^|]*)\|`).FindStringSubmatch(tr.Result.Output)
		if m == nil {
			t.Fatalf("the test printed no %s:\n%s", name, tr.Result.Output)
		}
		return m[1]
	}
	mono := regexp.MustCompile(` m=[+-][0-9.]+$`).FindString(printed("second"))
	if mono == "" {
		t.Fatalf("time.Now() printed without its monotonic reading: %q", printed("second"))
	}
	shown := written(tr, "example.com/m/p.TestX")
	wantShown(t, shown, map[string]string{
		"first":  printed("first") + " (Local)" + mono,
		"second": printed("second"),
		"start":  "2024-03-05 14:30:15.123456789 +0000 UTC",
		"end":    "2024-03-05 16:00:15.123456789 +0000 UTC",
		"cet":    "2024-03-05 17:00:15.123456789 +0100 CET",
		"cut":    "2024-03-05T10:30:15.123456789-05:30",
		"z":      "0001-01-01 00:00:00 +0000 UTC",
		"n":      "reflect.Value(int: 3)",
		"c":      "reflect.Value(int Celsius: -4)",
		"s":      `reflect.Value(string: "hello, w"… (len 12))`,
		"fl":     "reflect.Value(float64: 2.5)",
		"p":      "reflect.Value(ptr *Config: non-nil)",
		"np":     "reflect.Value(ptr *Config: nil)",
		"sl":     "reflect.Value(slice []int: len 2)",
		"long":   "reflect.Value(map map[string]map[s…: non-nil)",
		"field":  "reflect.Value(string)",
		"inv":    "<invalid reflect.Value>",
		"keys[Describe(LongishStringName(\"key\"))]": `reflect.Value(string LongishStringNam…: "value")`,
	})

	// Recording them allocates nothing (the program checks).
	if tr := runTrace(t, dir, "./p", "TestAllocs"); !tr.Result.Passed {
		t.Errorf("TestAllocs failed under tracing:\n%s", tr.Result.Output)
	} else if w := written(tr, "example.com/m/p.TestAllocs.func"); w["sink"] == "" || w["rsink"] == "" {
		t.Errorf("TestAllocs's closure recorded the writes %v, want sink and rsink", w)
	}

	// The two entries of a map keyed by times are two locations.
	var keys []trace.Loc
	for _, e := range tr.Events {
		for _, w := range e.Writes {
			text := tr.Site(e.Site).Operands[w.Slot].Text
			if w.Loc.Kind == trace.LocMap && (text == "seen[start]" || text == "seen[end]") {
				keys = append(keys, w.Loc)
			}
		}
	}
	if len(keys) != 2 || keys[0] == keys[1] {
		t.Errorf("the writes of seen[start] and seen[end] are at %v, want two locations", keys)
	}
}

// wantShown checks the shown values (written) of the operands want names.
func wantShown(t *testing.T, shown, want map[string]string) {
	t.Helper()
	for name, w := range want {
		if shown[name] != w {
			t.Errorf("%s shown as %q, want %q", name, shown[name], w)
		}
	}
}

// written is the value last written to each operand of the function fn,
// by its text, as a report shows it.
func written(tr *trace.Trace, fn string) map[string]string {
	out := map[string]string{}
	var objs trace.Objects
	for _, e := range tr.Events {
		s := tr.Site(e.Site)
		if s.Func != fn {
			continue
		}
		for _, w := range e.Writes {
			o := s.Operands[w.Slot]
			out[o.Text] = w.Value.Format(o.Type, &objs)
		}
	}
	return out
}
