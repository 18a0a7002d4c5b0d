package instrument

import (
	gobuild "go/build"
	"go/constant"
	"go/types"
	"strings"

	"github.com/culprit-dev/culprit/analyzer/trace"
)

// table is the site table under construction, shared by all rewritten
// files; it is written as the trace.Table it embeds.
type table struct {
	trace.Table
	objs    map[types.Object]int
	consts  map[*types.TypeName]*trace.Consts // constsOf's answers
	layouts map[types.Type]*trace.Layout      // layoutOf's answers
	sizes   types.Sizes                       // the target's, for layouts
}

func newTable() *table {
	return &table{Table: trace.Table{Sites: []*trace.Site{{}}}, objs: map[types.Object]int{},
		consts: map[*types.TypeName]*trace.Consts{}, layouts: map[types.Type]*trace.Layout{},
		sizes: types.SizesFor("gc", gobuild.Default.GOARCH)}
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
func (tab *table) typeOf(t types.Type) trace.Type {
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
			out.Consts = tab.constsOf(t)
		case u.Info()&types.IsInteger != 0:
			out.Kind, out.Bits = trace.TypeInt, basicBits(k)
			out.Consts = tab.constsOf(t)
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
		out.Layout = tab.layoutOf(u)
	case *types.Array:
		out.Kind = trace.TypeArray
		out.Layout = tab.layoutOf(u)
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

// maxConsts bounds the constants named for one type: a larger set is not
// an enumeration a reader scans.
const maxConsts = 256

// constsOf names the values of a named integer type t by the constants of
// type t its package declares, one name per value (the first in the
// scope's order, which is alphabetical); nil when t is not named or has
// none. The answers are kept for the table's instrumentation, whose
// packages they name.
func (tab *table) constsOf(t types.Type) *trace.Consts {
	named, ok := types.Unalias(t).(*types.Named)
	if !ok || named.Obj().Pkg() == nil || named.TypeArgs().Len() > 0 {
		return nil
	}
	if c, ok := tab.consts[named.Obj()]; ok {
		return c
	}
	var c *trace.Consts
	pkg := named.Obj().Pkg()
	// The standard library's unexported constants (time's minDuration)
	// are no names a reader knows; a module's own are.
	first, _, _ := strings.Cut(pkg.Path(), "/")
	std := !strings.Contains(first, ".")
	seen := map[uint64]bool{}
	for _, name := range pkg.Scope().Names() {
		k, ok := pkg.Scope().Lookup(name).(*types.Const)
		if !ok || !types.Identical(k.Type(), t) || std && !k.Exported() {
			continue
		}
		bits, ok := constBits(k.Val())
		if !ok || seen[bits] {
			continue
		}
		if c == nil {
			c = &trace.Consts{}
		}
		if len(c.Values) == maxConsts {
			c = nil
			break
		}
		seen[bits] = true
		c.Values = append(c.Values, bits)
		c.Names = append(c.Names, pkg.Name()+"."+name)
	}
	tab.consts[named.Obj()] = c
	return c
}

// constBits is an integer constant's value as the trace records it: its
// two's-complement bits.
func constBits(v constant.Value) (uint64, bool) {
	if u, ok := constant.Uint64Val(v); ok {
		return u, true
	}
	if i, ok := constant.Int64Val(v); ok {
		return uint64(i), true
	}
	return 0, false
}

// layoutOf places the fields of struct or array t as the target's
// compiler lays them out, for a value small enough to be recorded by its
// bytes; nil for a larger one, one whose layout depends on a type
// parameter (a generic function's values of it differ per instance), or
// on a target whose words are not the 8 bytes the recorder and decoder
// read. Blank fields are left out; an array's elements have no names.
func (tab *table) layoutOf(t types.Type) *trace.Layout {
	if l, ok := tab.layouts[t]; ok {
		return l
	}
	var l *trace.Layout
	if tab.sizes != nil && tab.sizes.Sizeof(types.Typ[types.UnsafePointer]) == 8 && !dependsOnTypeParam(t) {
		if size := tab.sizes.Sizeof(t); size <= trace.MaxStructSize {
			l = &trace.Layout{Size: int(size)}
			switch u := t.(type) {
			case *types.Struct:
				offs := tab.offsetsof(u)
				for i := range u.NumFields() {
					if f := u.Field(i); f.Name() != "_" {
						l.Fields = append(l.Fields, trace.Field{Name: f.Name(), Offset: int(offs[i]), Type: tab.typeOf(f.Type())})
					}
				}
			case *types.Array:
				// Elements of no size (a [1 << 20]struct{}) are not listed:
				// a length is bounded by the size only when they have one.
				if step := tab.sizes.Sizeof(u.Elem()); step > 0 {
					elem := tab.typeOf(u.Elem())
					for i := range u.Len() {
						l.Fields = append(l.Fields, trace.Field{Offset: int(i * step), Type: elem})
					}
				}
			}
		}
	}
	tab.layouts[t] = l
	return l
}

// offsetsof is the byte offset of each field of struct st on the target.
func (tab *table) offsetsof(st *types.Struct) []int64 {
	fields := make([]*types.Var, st.NumFields())
	for i := range fields {
		fields[i] = st.Field(i)
	}
	return tab.sizes.Offsetsof(fields)
}

// dependsOnTypeParam reports whether the size or layout of t depends on a
// type parameter: t is one, or holds one in a field or array element.
func dependsOnTypeParam(t types.Type) bool {
	switch u := types.Unalias(t).(type) {
	case *types.TypeParam:
		return true
	case *types.Named:
		return dependsOnTypeParam(u.Underlying())
	case *types.Struct:
		for i := 0; i < u.NumFields(); i++ {
			if dependsOnTypeParam(u.Field(i).Type()) {
				return true
			}
		}
	case *types.Array:
		return dependsOnTypeParam(u.Elem())
	}
	return false
}
