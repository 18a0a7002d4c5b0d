package instrument

import (
	"go/types"

	"github.com/culprit-dev/culprit/analyzer/trace"
)

// table is the site table under construction, shared by all rewritten
// files; it is written as the trace.Table it embeds.
type table struct {
	trace.Table
	objs map[types.Object]int
}

func newTable() *table {
	return &table{Table: trace.Table{Sites: []*trace.Site{{}}}, objs: map[types.Object]int{}}
}

func (t *table) add(s *trace.Site) *trace.Site {
	s.ID = trace.SiteID(len(t.Sites))
	t.Sites = append(t.Sites, s)
	return s
}

// obj returns the site-table-wide id of a variable or field.
func (t *table) obj(o types.Object) int {
	id, ok := t.objs[o]
	if !ok {
		id = len(t.objs) + 1
		t.objs[o] = id
	}
	return id
}

// typeOf converts a go/types type to the encoder's view.
func typeOf(t types.Type) trace.Type {
	if t == nil {
		return trace.Type{}
	}
	out := trace.Type{Name: types.TypeString(t, nil)}
	switch u := t.Underlying().(type) {
	case *types.Basic:
		k := u.Kind()
		switch {
		case u.Info()&types.IsBoolean != 0:
			out.Kind = trace.TypeBool
		case u.Info()&types.IsString != 0:
			out.Kind = trace.TypeString
		case k == types.UnsafePointer:
			out.Kind = trace.TypePointer
		case u.Info()&types.IsUnsigned != 0:
			out.Kind, out.Bits = trace.TypeUint, basicBits(k)
		case u.Info()&types.IsInteger != 0:
			out.Kind, out.Bits = trace.TypeInt, basicBits(k)
		case u.Info()&types.IsFloat != 0:
			out.Kind, out.Bits = trace.TypeFloat, basicBits(k)
		case u.Info()&types.IsComplex != 0:
			out.Kind, out.Bits = trace.TypeComplex, basicBits(k)
		}
	case *types.Pointer:
		out.Kind = trace.TypePointer
	case *types.Slice:
		out.Kind = trace.TypeSlice
	case *types.Map:
		out.Kind = trace.TypeMap
	case *types.Chan:
		out.Kind = trace.TypeChan
	case *types.Signature:
		out.Kind = trace.TypeFunc
	case *types.Interface:
		out.Kind = trace.TypeInterface
	case *types.Struct:
		out.Kind = trace.TypeStruct
	case *types.Array:
		out.Kind = trace.TypeArray
	}
	return out
}

func basicBits(k types.BasicKind) int {
	switch k {
	case types.Int8, types.Uint8:
		return 8
	case types.Int16, types.Uint16:
		return 16
	case types.Int32, types.Uint32, types.Float32, types.UntypedRune:
		return 32
	case types.Complex64:
		return 64
	case types.Complex128:
		return 128
	}
	return 64
}
