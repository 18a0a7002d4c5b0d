package rt

import "runtime"

// getg returns the goroutine id parsed from the runtime.Stack header. The
// runtime package is added through an overlay in a directory that does not
// exist on disk, where assembly cannot be assembled, so the portable way is
// the only one.
func getg() uintptr {
	var b [64]byte
	n := runtime.Stack(b[:], false)
	var id uintptr
	for _, c := range b[len("goroutine "):n] {
		if c < '0' || c > '9' {
			break
		}
		id = id*10 + uintptr(c-'0')
	}
	return id
}
