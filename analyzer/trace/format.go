package trace

import (
	"fmt"
	"math"
	"strconv"
	"strings"
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
	case ValNone:
		return "?"
	}
	return "…"
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
