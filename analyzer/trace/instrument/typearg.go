package instrument

import (
	"go/token"
	"go/types"
	"strconv"
	"strings"
)

// typeArg spells t as a type argument valid in the file being rewritten,
// so that an untyped or converted value can pass through a generic
// recorder as W1[T](…) and keep the type of the variable it is assigned
// to. It reports false for types it cannot spell safely there: local named
// types, instantiated generics, types of packages the file does not import.
func (r *rewriter) typeArg(t types.Type) (string, bool) { return r.typeArgAt(t, token.NoPos) }

// typeArgAt is typeArg for text inserted at pos: there a type parameter or
// a type declared inside a function is spelled by its name too, when that
// name denotes it at pos.
func (r *rewriter) typeArgAt(t types.Type, pos token.Pos) (string, bool) {
	switch t := t.(type) {
	case *types.TypeParam:
		return r.localName(t.Obj(), pos)
	case *types.Basic:
		if t.Info()&types.IsUntyped != 0 || t.Kind() == types.UnsafePointer {
			return "", false
		}
		return t.Name(), true
	case *types.Pointer:
		e, ok := r.typeArgAt(t.Elem(), pos)
		return "*" + e, ok
	case *types.Slice:
		e, ok := r.typeArgAt(t.Elem(), pos)
		return "[]" + e, ok
	case *types.Array:
		e, ok := r.typeArgAt(t.Elem(), pos)
		return "[" + strconv.FormatInt(t.Len(), 10) + "]" + e, ok
	case *types.Map:
		k, ok1 := r.typeArgAt(t.Key(), pos)
		v, ok2 := r.typeArgAt(t.Elem(), pos)
		return "map[" + k + "]" + v, ok1 && ok2
	case *types.Interface:
		if t.Empty() {
			return "any", true
		}
	case *types.Chan:
		e, ok := r.typeArgAt(t.Elem(), pos)
		switch t.Dir() {
		case types.SendOnly:
			return "chan<- (" + e + ")", ok
		case types.RecvOnly:
			return "<-chan (" + e + ")", ok
		}
		return "chan (" + e + ")", ok
	case *types.Signature:
		if t.TypeParams().Len() > 0 || t.Recv() != nil {
			return "", false
		}
		params, ok1 := r.tupleArg(t.Params(), t.Variadic(), pos)
		results, ok2 := r.tupleArg(t.Results(), false, pos)
		return "func(" + params + ") (" + results + ")", ok1 && ok2
	case *types.Named:
		if t.TypeArgs().Len() > 0 {
			name, ok := r.objName(t.Origin().Obj())
			if !ok {
				return "", false
			}
			args := make([]string, t.TypeArgs().Len())
			for k := range args {
				if args[k], ok = r.typeArgAt(t.TypeArgs().At(k), pos); !ok {
					return "", false
				}
			}
			return name + "[" + strings.Join(args, ", ") + "]", true
		}
		if name, ok := r.objName(t.Obj()); ok {
			return name, true
		}
		return r.localName(t.Obj(), pos)
	case *types.Alias:
		if t.TypeArgs().Len() > 0 {
			return "", false
		}
		if name, ok := r.objName(t.Obj()); ok {
			return name, true
		}
		return r.localName(t.Obj(), pos)
	}
	return "", false
}

// tupleArg spells the types of a parameter or result list, separated by
// commas; variadic marks the last one as ...T.
func (r *rewriter) tupleArg(tu *types.Tuple, variadic bool, pos token.Pos) (string, bool) {
	l := make([]string, tu.Len())
	for k := range l {
		t := tu.At(k).Type()
		prefix := ""
		if variadic && k == len(l)-1 {
			sl, ok := t.(*types.Slice)
			if !ok {
				return "", false // func(...string) taking a string: not spelled
			}
			t, prefix = sl.Elem(), "..."
		}
		e, ok := r.typeArgAt(t, pos)
		if !ok {
			return "", false
		}
		l[k] = prefix + e
	}
	return strings.Join(l, ", "), true
}

// localName spells a type name declared inside a function (a local type or
// a type parameter) when, at pos, its name resolves to it.
func (r *rewriter) localName(obj *types.TypeName, pos token.Pos) (string, bool) {
	ps := r.pkgScope()
	if !pos.IsValid() || ps == nil || obj.Parent() == nil || obj.Parent() == ps {
		return "", false
	}
	sc := ps.Innermost(pos)
	if sc == nil {
		return "", false
	}
	if _, found := sc.LookupParent(obj.Name(), pos); found != obj {
		return "", false
	}
	return obj.Name(), true
}

// objName spells a type name declared at package level, in the universe,
// or in a package this file imports under a usable name.
func (r *rewriter) objName(obj *types.TypeName) (string, bool) {
	switch {
	case obj.Parent() == types.Universe:
		return obj.Name(), true
	case obj.Pkg() == nil || obj.Parent() != obj.Pkg().Scope():
		return "", false // declared inside a function
	case obj.Pkg().Scope() == r.pkgScope():
		return obj.Name(), true
	}
	for _, imp := range r.file.Imports {
		path, err := strconv.Unquote(imp.Path.Value)
		if err != nil || path != obj.Pkg().Path() || !obj.Exported() {
			continue
		}
		name := obj.Pkg().Name()
		if imp.Name != nil {
			name = imp.Name.Name
		}
		if name == "_" || name == "." {
			return "", false
		}
		return name + "." + obj.Name(), true
	}
	return "", false
}

// pkgScope is the scope of the package the rewritten file belongs to.
func (r *rewriter) pkgScope() *types.Scope {
	if s := r.info.Scopes[r.file]; s != nil {
		return s.Parent()
	}
	return nil
}
