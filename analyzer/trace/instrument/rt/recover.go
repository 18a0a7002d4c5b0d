package rt

import "sync"

// recovered holds the goroutines in which a deferred call recovered a
// panic. Deferred calls run innermost frame first, so the next frame of
// that goroutine to exit without a return statement is the one whose
// deferred call recovered: it returns normally (Exit).
var recovered sync.Map

// Rec passes on the value of a recover() call and notes a recovered panic.
func Rec(v any) any {
	if v != nil {
		recovered.Store(goid(), struct{}{})
	}
	return v
}
