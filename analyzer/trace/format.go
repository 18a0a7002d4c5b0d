package trace

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// String renders a value exactly, for tests and debugging: pointers by
// address, slices with their capacity. Reports use Format.
func (v Value) String() string {
	switch v.Kind {
	case ValPointer, ValIface:
		if v.Nil {
			return "nil"
		}
		return fmt.Sprintf("0x%x", v.Bits)
	case ValSlice:
		return fmt.Sprintf("[]{len %d cap %d}", v.Len, v.Cap)
	case ValString:
		if int64(len(v.Prefix)) == v.Len {
			return strconv.Quote(v.Prefix)
		}
		return fmt.Sprintf("%q…(len %d)", v.Prefix, v.Len)
	}
	return v.Format(Type{}, nil)
}

// Format renders a value for a reader: numbers and strings as Go writes
// them (long strings cut, with their length), a value of a type with
// named constants by the constant's name ("reflect.Struct"), slices by length, and
// pointers never by address: objs names the object by its type and order
// of first appearance in the run ("*FlagSet#1"); without objs, or without
// a type, a non-nil pointer is just "non-nil".
func (v Value) Format(t Type, objs *Objects) string {
	switch v.Kind {
	case ValBool:
		return strconv.FormatBool(v.Bits != 0)
	case ValInt:
		if name := t.Consts.Name(v.Bits); name != "" {
			return name
		}
		return strconv.FormatInt(int64(v.Bits), 10)
	case ValUint:
		if name := t.Consts.Name(v.Bits); name != "" {
			return name
		}
		return strconv.FormatUint(v.Bits, 10)
	case ValFloat:
		return strconv.FormatFloat(math.Float64frombits(v.Bits), 'g', -1, 64)
	case ValComplex:
		return fmt.Sprintf("(%s+%si)", strconv.FormatFloat(math.Float64frombits(v.Bits), 'g', -1, 64),
			strconv.FormatFloat(math.Float64frombits(v.Hash), 'g', -1, 64))
	case ValString:
		if int64(len(v.Prefix)) == v.Len {
			return strconv.Quote(v.Prefix)
		}
		return fmt.Sprintf("%q… (len %d)", v.Prefix, v.Len)
	case ValSlice:
		if v.Nil {
			return "nil"
		}
		return fmt.Sprintf("len %d", v.Len)
	case ValPointer, ValIface:
		if v.Nil {
			return "nil"
		}
		if objs == nil || t.Name == "" || v.Kind == ValIface {
			return "non-nil"
		}
		return objs.name(v.Bits, t.Name)
	case ValTime:
		return v.time()
	case ValOpaque:
		if v.Cap&reflectMark != 0 {
			return v.reflectValue()
		}
	case ValNone:
		return "?"
	}
	return "…"
}

// time.Time's representation (see its declaration): with the monotonic
// flag set, wall holds the seconds since 1885 above the nanoseconds and
// ext the monotonic reading; without it, ext holds the seconds since
// year 1.
const (
	hasMonotonic   = 1 << 63
	nsecMask       = 1<<30 - 1
	nsecShift      = 30
	wallToUnix     = -(1969*365 + 1969/4 - 1969/100 + 1969/400 - (1884*365 + 1884/4 - 1884/100 + 1884/400)) * 86400
	internalToUnix = -(1969*365 + 1969/4 - 1969/100 + 1969/400) * 86400
)

// time renders a ValTime as time.Time's String method writes it, the
// monotonic reading included. A time in time.Local whose zone was not
// recorded is the same instant in UTC, marked (Local); a zone whose name
// was cut shows its offset alone, in RFC 3339.
func (v Value) time() string {
	wall, ext := v.Bits, v.Len
	unix := ext + internalToUnix
	if wall&hasMonotonic != 0 {
		unix = int64(wall<<1>>(nsecShift+1)) + wallToUnix
	}
	t := time.Unix(unix, int64(wall&nsecMask))
	zone := uint64(v.Cap)
	off, nameLen := int(int32(uint32(zone))), int(zone>>32&0xff)
	var s string
	switch {
	case zone&zoneLocal != 0:
		s = t.UTC().Format(time.RFC3339Nano) + " (Local)"
	case nameLen > len(v.Prefix):
		s = t.In(time.FixedZone("", off)).Format(time.RFC3339Nano)
	default:
		s = t.In(time.FixedZone(v.Prefix, off)).Format("2006-01-02 15:04:05.999999999 -0700 MST")
	}
	if wall&hasMonotonic != 0 {
		m, sign := uint64(ext), "+"
		if ext < 0 {
			m, sign = -m, "-"
		}
		s += fmt.Sprintf(" m=%s%d.%09d", sign, m/1e9, m%1e9)
	}
	return s
}

// reflectValue renders a described reflect.Value as "reflect.Value(kind
// type: value)": the type by its name without package qualifiers, after
// the kind when it says more than the kind ("ptr *Config", "int Celsius",
// "int"), and the value held where it was recorded: a bool, number or
// string, the length of a slice or array, nil or non-nil.
func (v Value) reflectValue() string {
	h := uint64(v.Cap)
	k := reflect.Kind(h & 0xff)
	if k == reflect.Invalid {
		return "<invalid reflect.Value>"
	}
	name, str, _ := strings.Cut(v.Prefix, "\x00")
	if int(h>>16&0xff) > len(name) {
		name += "…"
	}
	desc := k.String()
	if name != desc {
		desc += " " + name
	}
	var held string
	switch {
	case h&rvString != 0:
		held = Value{Kind: ValString, Len: v.Len, Prefix: str}.Format(Type{}, nil)
	case h&rvLen != 0 && h&rvNil != 0:
		held = "nil"
	case h&rvLen != 0:
		held = fmt.Sprintf("len %d", v.Len)
	case h&rvBits != 0:
		held = reflectBits(k, v.Bits)
	case h&rvNil != 0:
		held = "nil"
	case h&rvAddr == 0 && nilable(k):
		held = "non-nil"
	}
	if held == "" {
		return "reflect.Value(" + desc + ")"
	}
	return "reflect.Value(" + desc + ": " + held + ")"
}

// reflectBits renders the bits of a bool or number of kind k.
func reflectBits(k reflect.Kind, bits uint64) string {
	switch {
	case k == reflect.Bool:
		return strconv.FormatBool(bits != 0)
	case k >= reflect.Int && k <= reflect.Int64:
		return strconv.FormatInt(int64(bits), 10)
	case k >= reflect.Uint && k <= reflect.Uintptr:
		return strconv.FormatUint(bits, 10)
	}
	return strconv.FormatFloat(math.Float64frombits(bits), 'g', -1, 64)
}

// nilable reports whether a value of kind k can be nil.
func nilable(k reflect.Kind) bool {
	switch k {
	case reflect.Pointer, reflect.Map, reflect.Chan, reflect.Func, reflect.Interface, reflect.UnsafePointer, reflect.Slice:
		return true
	}
	return false
}

// Objects names the objects of one run by type and first appearance, so
// that two runs' names agree where they allocate alike, and no report
// shows an address. The zero value is ready to use.
type Objects struct {
	ids  map[objKey]int
	next map[string]int
}

type objKey struct {
	addr uint64
	typ  string
}

func (o *Objects) name(addr uint64, typ string) string {
	short := ShortType(typ)
	k := objKey{addr, short}
	if o.ids == nil {
		o.ids, o.next = map[objKey]int{}, map[string]int{}
	}
	n, ok := o.ids[k]
	if !ok {
		o.next[short]++
		n = o.next[short]
		o.ids[k] = n
	}
	return short + "#" + strconv.Itoa(n)
}

// ShortType drops package qualifiers from a type name, as the code in
// the package itself writes it: "*github.com/a/b.FlagSet" is "*FlagSet",
// "map[string]*b.T" is "map[string]*T".
func ShortType(name string) string {
	var b strings.Builder
	word := 0 // start of the current qualified word in name
	flush := func(end int) {
		w := name[word:end]
		if i := strings.LastIndexByte(w, '.'); i >= 0 {
			w = w[i+1:]
		}
		b.WriteString(w)
	}
	for i := 0; i < len(name); i++ {
		switch c := name[i]; c {
		case '*', '[', ']', '(', ')', ',', ' ', '{', '}', ';':
			flush(i)
			b.WriteByte(c)
			word = i + 1
		}
	}
	flush(len(name))
	return b.String()
}
