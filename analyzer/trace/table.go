package trace

import (
	"encoding/json"
	"fmt"
	"go/types"
	"os"
	"path/filepath"
)

// siteFile is the site table's file name inside a trace directory.
const siteFile = "sites.json"

// table is the site table under construction, shared by all rewritten files.
type table struct {
	Sites   []*Site
	Skipped []Skip
	// Unentered counts the functions left uninstrumented because the probe
	// run never entered them (Config.Probe).
	Unentered int `json:",omitempty"`
	objs      map[types.Object]int
}

func newTable() *table {
	return &table{Sites: []*Site{{}}, objs: map[types.Object]int{}}
}

func (t *table) add(s *Site) *Site {
	s.ID = SiteID(len(t.Sites))
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

func readTable(dir string) (*table, error) {
	b, err := os.ReadFile(filepath.Join(dir, siteFile))
	if err != nil {
		return nil, fmt.Errorf("reading site table: %w", err)
	}
	t := &table{}
	if err := json.Unmarshal(b, t); err != nil {
		return nil, fmt.Errorf("decoding site table: %w", err)
	}
	return t, nil
}

// typeOf converts a go/types type to the encoder's view.
func typeOf(t types.Type) Type {
	if t == nil {
		return Type{}
	}
	out := Type{Name: types.TypeString(t, nil)}
	switch u := t.Underlying().(type) {
	case *types.Basic:
		k := u.Kind()
		switch {
		case u.Info()&types.IsBoolean != 0:
			out.Kind = TypeBool
		case u.Info()&types.IsString != 0:
			out.Kind = TypeString
		case k == types.UnsafePointer:
			out.Kind = TypePointer
		case u.Info()&types.IsUnsigned != 0:
			out.Kind, out.Bits = TypeUint, basicBits(k)
		case u.Info()&types.IsInteger != 0:
			out.Kind, out.Bits = TypeInt, basicBits(k)
		case u.Info()&types.IsFloat != 0:
			out.Kind, out.Bits = TypeFloat, basicBits(k)
		case u.Info()&types.IsComplex != 0:
			out.Kind, out.Bits = TypeComplex, basicBits(k)
		}
	case *types.Pointer:
		out.Kind = TypePointer
	case *types.Slice:
		out.Kind = TypeSlice
	case *types.Map:
		out.Kind = TypeMap
	case *types.Chan:
		out.Kind = TypeChan
	case *types.Signature:
		out.Kind = TypeFunc
	case *types.Interface:
		out.Kind = TypeInterface
	case *types.Struct:
		out.Kind = TypeStruct
	case *types.Array:
		out.Kind = TypeArray
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

// sites returns the site table as values, indexed by SiteID.
func (t *table) sites() []Site {
	out := make([]Site, 0, len(t.Sites))
	for _, s := range t.Sites {
		if s == nil {
			s = &Site{}
		}
		out = append(out, *s)
	}
	return out
}
