package instrument

import (
	"fmt"
	"maps"
	"strings"
	"testing"

	"github.com/culprit-dev/culprit/analyzer/trace"
)

// TestUntracedCallOperands: the calls into code the tracer does not enter
// read what they were handed, as the statement holding them records it.
// A call with several results inside an assignment has no event of its
// own, so its reads are the assignment's (they once landed in the
// assignment's slots and showed the argument as the error written); a
// method with a pointer receiver on a variable reads the variable's
// address, and `&buf` as an argument reads that address too: the same
// object, named by one pointer in every call.
func TestUntracedCallOperands(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a traced test binary")
	}
	dir := writeTree(t, moduleP(`package p

import (
	"bytes"
	"fmt"
)

func Render(s string) string {
	var buf bytes.Buffer
	_, err := buf.WriteString(s)
	buf.WriteByte(' ')
	fmt.Fprint(&buf, s)
	if err != nil {
		return ""
	}
	return buf.String()
}
`, `package p

import "testing"

func TestRender(t *testing.T) {
	if Render("ab") != "ab ab" {
		t.Fatal("render")
	}
}
`))
	tr := tracePassing(t, dir, "./p", "TestRender")
	reads := readsBySite(tr, "example.com/m/p.Render")
	var objs trace.Objects
	writes := map[string]string{}
	for _, e := range tr.Events {
		s := tr.Site(e.Site)
		if s.Func != "example.com/m/p.Render" {
			continue
		}
		for _, w := range e.Writes {
			writes[s.Text+" "+s.Operands[w.Slot].Text] = w.Value.Format(s.Operands[w.Slot].Type, &objs)
		}
	}
	assign := map[string]trace.Value{}
	for _, rd := range reads["_, err := buf.WriteString(s)"] {
		assign[rd.text] = rd.value
	}
	if v, ok := assign["s"]; !ok || v.Format(trace.Type{Kind: trace.TypeString}, &objs) != `"ab"` {
		t.Errorf("the assignment's read of s = %+v (recorded: %v), want \"ab\"", v, ok)
	}
	if got := writes["_, err := buf.WriteString(s) err"]; got != "nil" {
		t.Errorf("err written as %s, want nil", got)
	}
	buf, ok := assign["&buf"]
	if !ok || buf.Kind != trace.ValPointer || buf.Nil {
		t.Fatalf("the assignment reads no address of buf: %v", assign)
	}
	for _, text := range []string{"buf.WriteByte(' ')", "fmt.Fprint(&buf, s)", "return buf.String()"} {
		var v trace.Value
		for _, rd := range reads[text] {
			if rd.text == "&buf" {
				v = rd.value
			}
		}
		if v.Kind != trace.ValPointer || v.Bits != buf.Bits {
			t.Errorf("%s reads &buf as %+v, want the pointer %#x", text, v, buf.Bits)
		}
	}
}

// TestReceiverCallReads: a method of code the tracer does not enter,
// called on a call's result, with a call of the same kind as argument
// (`get().MatchString(f.Name().String())`). Each call's event reads its
// own receiver: the outer one's read once came before its mark and was
// taken, under the wrong slot, by the inner call's event.
func TestReceiverCallReads(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a traced test binary")
	}
	dir := writeTree(t, moduleP(`package p

import (
	"regexp"
	"strings"
)

type F struct{ s string }

func (f *F) Name() *strings.Builder {
	var b strings.Builder
	b.WriteString(f.s)
	return &b
}

var re = regexp.MustCompile("^a")

func get() *regexp.Regexp { return re }

func Is(f *F) bool {
	return get().MatchString(f.Name().String())
}
`, `package p

import "testing"

func TestIs(t *testing.T) {
	if !Is(&F{"ab"}) {
		t.Fatal("no match")
	}
}
`))
	tr := tracePassing(t, dir, "./p", "TestIs")
	reads := map[string][]string{}
	for site, rds := range readsBySite(tr, "example.com/m/p.Is") {
		for _, rd := range rds {
			reads[site] = append(reads[site], rd.text)
		}
	}
	if got := reads["f.Name().String()"]; len(got) != 1 || got[0] != "f.Name()" {
		t.Errorf("the inner call reads %q, want its receiver f.Name() once", got)
	}
	if got := reads["get().MatchString(f.Name().String())"]; len(got) != 2 || got[0] != "get()" || got[1] != "f.Name().String()" {
		t.Errorf("the outer call reads %q, want get() and f.Name().String()", got)
	}
}

// operandRead is one read of an event: its operand's text and the value.
type operandRead struct {
	text  string
	value trace.Value
}

// readsBySite lists, by site text, the reads of the events of function fn,
// in the order the events recorded them.
func readsBySite(tr *trace.Trace, fn string) map[string][]operandRead {
	out := map[string][]operandRead{}
	for _, e := range tr.Events {
		s := tr.Site(e.Site)
		if s.Func != fn {
			continue
		}
		for _, r := range e.Reads {
			out[s.Text] = append(out[s.Text], operandRead{s.Operands[r.Slot].Text, r.Value})
		}
	}
	return out
}

// TestValueReceiverOffsets: a method with a value receiver works on a
// copy, as a function does on a struct parameter. Their reads of the
// copy's fields carry their byte offsets in it, and a method's call reads
// the address its receiver is copied from: that address plus a field's
// offset is where the caller wrote the field through a pointer.
func TestValueReceiverOffsets(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a traced test binary")
	}
	dir := writeTree(t, moduleP(`package p

type Table struct {
	rows   []string
	cursor int
	widths [4]int
}

func (t *Table) Move(n int) {
	t.cursor = n
	t.widths[2] = n * 10
}

func (t Table) Cursor() int {
	return t.cursor + t.widths[2]
}

func Use(p *Table) int {
	return p.Cursor()
}

func Width(n int, t Table) int {
	return n * t.widths[1]
}

func Local() int {
	var t Table
	t.cursor = 1
	return t.Cursor()
}
`, `package p

import "testing"

func TestCursor(t *testing.T) {
	var tb Table
	tb.Move(2)
	if tb.Cursor() != 22 || Use(&tb) != 22 || Local() != 1 || Width(2, tb) != 0 {
		t.Fatal("cursor")
	}
}
`))
	tr := tracePassing(t, dir, "./p", "TestCursor")
	offsets := map[string]int{}
	writes := map[string]uint64{} // field written by Move → address
	var recvAddrs []uint64
	for _, e := range tr.Events {
		s := tr.Site(e.Site)
		for _, it := range e.Reads {
			switch o := s.Operands[it.Slot]; {
			case o.InCopy:
				offsets[fmt.Sprintf("%s %d", o.Text, o.Param)] = o.Offset
			case o.RecvFrom:
				recvAddrs = append(recvAddrs, it.Value.Bits)
			}
		}
		if strings.HasSuffix(s.Func, "Move") {
			for _, w := range e.Writes {
				writes[s.Operands[w.Slot].Text] = w.Loc.Addr
			}
		}
	}
	// Param 0 is the receiver, Param 2 Width's second parameter.
	want := map[string]int{"t.cursor 0": 24, "t.widths[2] 0": 48, "t.widths[1] 2": 40}
	if !maps.Equal(offsets, want) {
		t.Errorf("offsets in the copies %v, want %v", offsets, want)
	}
	if len(recvAddrs) != 2 {
		t.Fatalf("%d receiver addresses read, want 2 (tb.Cursor() and p.Cursor())", len(recvAddrs))
	}
	// The local t of Local is no memory: the call names it.
	var named []string
	for _, s := range tr.Sites {
		for _, o := range s.Operands {
			if o.RecvFrom && o.Obj != 0 {
				named = append(named, s.Text+" "+o.Text)
			}
		}
	}
	if len(named) != 1 || named[0] != "t.Cursor() t" {
		t.Errorf("receivers named by their variable %q, want [\"t.Cursor() t\"]", named)
	}
	for _, a := range recvAddrs {
		if a == 0 || writes["t.cursor"] != a+24 || writes["t.widths[2]"] != a+48 {
			t.Errorf("receiver copied from %#x; Move wrote t.cursor at %#x and t.widths[2] at %#x", a, writes["t.cursor"], writes["t.widths[2]"])
		}
	}
}
