package rt

import (
	"errors"
	"fmt"
	"reflect"
	"unsafe"
)

// The errors that errors.New and fmt.Errorf make hold their message in
// the first field of the struct they point at, a string: an interface
// holding one is recorded with the message (length, hash and first bytes)
// after its two words, so that a report can show which error it was. The
// message is read from memory, not asked of the Error method, which for
// other types could run traced code in the middle of an event.
var msgTypes = [3]unsafe.Pointer{
	typeWord(errors.New("")),
	typeWord(fmt.Errorf("%w", errors.ErrUnsupported)),
	typeWord(fmt.Errorf("%w%w", errors.ErrUnsupported, errors.ErrUnsupported)),
}

// typeWord is the dynamic type word of e.
func typeWord(e any) unsafe.Pointer { return (*[2]unsafe.Pointer)(unsafe.Pointer(&e))[0] }

// rtypeWord is the dynamic type of a reflect.Type: an interface holding
// one is recorded with the type's name in the place of a message, so that
// a report shows which type it was, not the descriptor's Go type. Its
// String method reads the descriptor and runs no traced code.
var rtypeWord = typeWord(reflect.TypeOf(0))

// heldText returns the text an interface value whose first word is w (an
// itab when itab is set) and whose data word is data is recorded with:
// the message of an error of one of msgTypes, or the name of a
// reflect.Type.
func heldText(w unsafe.Pointer, itab bool, data unsafe.Pointer) (string, bool) {
	if w == nil || data == nil {
		return "", false
	}
	typ := dynType(w, itab)
	if typ == rtypeWord {
		var e any
		*(*[2]unsafe.Pointer)(unsafe.Pointer(&e)) = [2]unsafe.Pointer{typ, data}
		if t, ok := e.(reflect.Type); ok {
			return t.String(), true
		}
		return "", false
	}
	for _, m := range msgTypes {
		if typ == m {
			return *(*string)(data), true
		}
	}
	return "", false
}
