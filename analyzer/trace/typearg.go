package trace

import (
	"go/types"
	"strconv"
)

// typeArg spells t as a type argument valid in the file being rewritten,
// so that an untyped or converted value can pass through a generic
// recorder as W1[T](…) and keep the type of the variable it is assigned
// to. It reports false for types it cannot spell safely there: local named
// types, instantiated generics, types of packages the file does not import.
func (r *rewriter) typeArg(t types.Type) (string, bool) {
	switch t := t.(type) {
	case *types.Basic:
		if t.Info()&types.IsUntyped != 0 || t.Kind() == types.UnsafePointer {
			return "", false
		}
		return t.Name(), true
	case *types.Pointer:
		e, ok := r.typeArg(t.Elem())
		return "*" + e, ok
	case *types.Slice:
		e, ok := r.typeArg(t.Elem())
		return "[]" + e, ok
	case *types.Array:
		e, ok := r.typeArg(t.Elem())
		return "[" + strconv.FormatInt(t.Len(), 10) + "]" + e, ok
	case *types.Map:
		k, ok1 := r.typeArg(t.Key())
		v, ok2 := r.typeArg(t.Elem())
		return "map[" + k + "]" + v, ok1 && ok2
	case *types.Interface:
		if t.Empty() {
			return "any", true
		}
	case *types.Named:
		if t.TypeArgs().Len() > 0 {
			return "", false
		}
		return r.objName(t.Obj())
	case *types.Alias:
		if t.TypeArgs().Len() > 0 {
			return "", false
		}
		return r.objName(t.Obj())
	}
	return "", false
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
