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
		if v.isBytes() {
			return fmt.Sprintf("[]byte(%s){len %d cap %d}", strconv.Quote(v.Prefix), v.Len, v.Cap)
		}
		return fmt.Sprintf("[]{len %d cap %d}", v.Len, v.Cap)
	case ValString:
		if int64(len(v.Prefix)) == v.Len {
			return strconv.Quote(v.Prefix)
		}
		return fmt.Sprintf("%q…(len %d)", v.Prefix, v.Len)
	}
	return v.Format(Type{}, nil)
}

// isBytes reports whether v is a []byte recorded with its content: a
// slice of other plain elements has a hash of them, but no first bytes
// (and is never empty).
func (v Value) isBytes() bool {
	_, elems := v.elems()
	return v.Kind == ValSlice && v.Hash != 0 && (v.Prefix != "" || v.Len == 0) && !elems
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
		switch {
		case v.Nil:
			return "nil"
		case v.isBytes() && int64(len(v.Prefix)) == v.Len:
			return fmt.Sprintf("[]byte(%s)", strconv.Quote(v.Prefix))
		case v.isBytes():
			return fmt.Sprintf("[]byte(%q…) (len %d)", v.Prefix, v.Len)
		}
		if text, ok := v.elems(); ok {
			return text
		}
		return fmt.Sprintf("len %d", v.Len)
	case ValPointer, ValIface:
		switch {
		case v.Nil:
			return "nil"
		case v.Kind == ValIface && v.Prefix != "":
			if name, b, l, ok := v.boxed(); ok {
				return structName(name) + formatFields(b, l, 0)
			}
			if name, _, ok := strings.Cut(v.Prefix, boxedMark); ok {
				return strings.TrimSpace("non-nil " + name)
			}
			typ, msg, ok := strings.Cut(v.Prefix, "\x00")
			if !ok {
				return "non-nil " + typ // the dynamic type
			}
			shown := Value{Kind: ValString, Len: v.Len, Prefix: msg}.Format(Type{}, nil)
			switch typ {
			case "":
				return "error " + shown
			case "*reflect.rtype":
				return "reflect.Type " + shown // the type's name
			}
			return "non-nil " + typ + " " + shown
		case objs == nil || t.Name == "" || v.Kind == ValIface:
			return "non-nil"
		}
		return objs.name(v.Bits, t.Name)
	case ValTime:
		return v.time()
	case ValOpaque:
		if v.Cap&reflectMark != 0 {
			return v.reflectValue()
		}
		if v.isStruct() && t.Layout != nil && int64(t.Layout.Size) == v.Len {
			return structName(t.Name) + formatFields(v.Prefix, t.Layout, 0)
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

// structName is how a struct value's type is written before its fields:
// its name as ShortType gives it, nothing for a struct literal type.
func structName(name string) string {
	if strings.HasPrefix(name, "struct{") {
		return ""
	}
	return ShortType(name)
}

// formatFields renders the fields of layout l, placed at off in the
// value's bytes b, as Go writes a composite literal with keys (an array's
// elements without): numbers and bools as Format writes them, named
// constants by name, strings and slices by length, pointer-like fields as
// nil or non-nil, a nested small struct or array by its fields, other
// fields as "…".
func formatFields(b string, l *Layout, off int) string {
	var sb strings.Builder
	sb.WriteByte('{')
	for i, f := range l.Fields {
		if i > 0 {
			sb.WriteString(", ")
		}
		if f.Name != "" {
			sb.WriteString(f.Name)
			sb.WriteString(": ")
		}
		at := off + f.Offset
		switch {
		case f.Type.Layout != nil:
			sb.WriteString(structName(f.Type.Name) + formatFields(b, f.Type.Layout, at))
		case f.Type.Kind == TypeStruct || at+fieldSize(f.Type) > len(b) || fieldSize(f.Type) == 0:
			sb.WriteString("…")
		default:
			sb.WriteString(formatField(b[at:at+fieldSize(f.Type)], f.Type))
		}
	}
	sb.WriteByte('}')
	return sb.String()
}

// formatField renders a field of type t whose bytes (fieldSize of them)
// are b.
func formatField(b string, t Type) string {
	word := func(i int) uint64 { return leUint(b[8*i : 8*i+8]) }
	switch t.Kind {
	case TypeBool:
		return strconv.FormatBool(b[0] != 0)
	case TypeInt:
		x := leUint(b)
		shift := 64 - 8*len(b)
		return Value{Kind: ValInt, Bits: uint64(int64(x<<shift) >> shift)}.Format(t, nil)
	case TypeUint:
		return Value{Kind: ValUint, Bits: leUint(b)}.Format(t, nil)
	case TypeFloat:
		return Value{Kind: ValFloat, Bits: floatBits(b)}.Format(t, nil)
	case TypeComplex:
		h := len(b) / 2
		return Value{Kind: ValComplex, Bits: floatBits(b[:h]), Hash: floatBits(b[h:])}.Format(t, nil)
	case TypeString:
		return fmt.Sprintf("len %d", word(1))
	case TypeSlice:
		if word(0) == 0 {
			return "nil"
		}
		return fmt.Sprintf("len %d", word(1))
	}
	if word(0) == 0 {
		return "nil"
	}
	return "non-nil"
}

// leUint is the little-endian unsigned integer of up to 8 bytes b.
func leUint(b string) uint64 {
	var x uint64
	for i := len(b) - 1; i >= 0; i-- {
		x = x<<8 | uint64(b[i])
	}
	return x
}

// floatBits is the float64 bits of the float32 or float64 in b, as the
// trace records a float.
func floatBits(b string) uint64 {
	if len(b) == 4 {
		return math.Float64bits(float64(math.Float32frombits(uint32(leUint(b)))))
	}
	return leUint(b)
}

// DifferingFields reduces two renderings of a struct value by Format, in
// the failing and the passing run, to the fields that differ between
// them: "Segment{Start: 10}" against "{Start: 8}" for Segment{Start: 10,
// Stop: 9} and Segment{Start: 8, Stop: 9}. Anything else (values that
// are not two such renderings of one type, or that are equal) is
// returned as it is.
func DifferingFields(failing, passing string) (string, string) {
	fname, ffields, ok1 := splitFields(failing)
	pname, pfields, ok2 := splitFields(passing)
	if !ok1 || !ok2 || fname != pname || len(ffields) != len(pfields) || failing == passing {
		return failing, passing
	}
	var fs, ps []string
	for i := range ffields {
		fk, _, _ := strings.Cut(ffields[i], ": ")
		pk, _, _ := strings.Cut(pfields[i], ": ")
		if fk != pk {
			return failing, passing
		}
		if ffields[i] != pfields[i] {
			fs, ps = append(fs, ffields[i]), append(ps, pfields[i])
		}
	}
	return fname + "{" + strings.Join(fs, ", ") + "}", "{" + strings.Join(ps, ", ") + "}"
}

// splitFields splits a struct value as formatFields writes it, after its
// type's name, into the name and its top-level "name: value" fields.
func splitFields(s string) (name string, fields []string, ok bool) {
	open := strings.IndexByte(s, '{')
	if open < 0 || !strings.HasSuffix(s, "}") || strings.ContainsAny(s[:open], " \"(") {
		return "", nil, false
	}
	body := s[open+1 : len(s)-1]
	depth, start := 0, 0
	for i := 0; i < len(body); i++ {
		switch body[i] {
		case '{':
			depth++
		case '}':
			depth--
		case ',':
			if depth == 0 && strings.HasPrefix(body[i:], ", ") {
				fields = append(fields, body[start:i])
				start = i + 2
			}
		}
	}
	if body != "" {
		fields = append(fields, body[start:])
	}
	for _, f := range fields {
		if !strings.Contains(f, ": ") {
			return "", nil, false
		}
	}
	return s[:open], fields, true
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
