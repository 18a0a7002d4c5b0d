package rt

import "runtime"

// goid returns the id of the calling goroutine, from the runtime when the
// toolchain lets the runtime package reach it (see g_runtime.go), else
// parsed from the runtime.Stack header, which also walks the whole stack.
func goid() uint64 {
	if runtimeGoid != nil {
		return runtimeGoid()
	}
	return stackGoid()
}

func stackGoid() uint64 {
	var b [64]byte
	n := runtime.Stack(b[:], false)
	var id uint64
	for _, c := range b[len("goroutine "):n] {
		if c < '0' || c > '9' {
			break
		}
		id = id*10 + uint64(c-'0')
	}
	return id
}
