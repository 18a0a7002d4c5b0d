package rt

import (
	"errors"
	"fmt"
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

// errorText returns the message of an interface value whose first word is
// w (an itab when itab is set) and whose data word is data, when its
// dynamic type is one of msgTypes.
func errorText(w unsafe.Pointer, itab bool, data unsafe.Pointer) (string, bool) {
	if w == nil || data == nil {
		return "", false
	}
	typ := dynType(w, itab)
	for _, m := range msgTypes {
		if typ == m {
			return *(*string)(data), true
		}
	}
	return "", false
}
