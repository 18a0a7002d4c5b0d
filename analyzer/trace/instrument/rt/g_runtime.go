//go:build go1.26 && !culprit_stackgoid

package rt

import _ "unsafe" // for go:linkname

// runtimeGoid is the runtime's hook returning getg().goid, set by the
// runtime's own initialisation before any other package's. Referring to it
// needs the linker flag -checklinkname=0, which the tracer passes with
// toolchains from go1.26 on; it builds with the tag culprit_stackgoid when
// it cannot.
//
//go:linkname runtimeGoid internal/runtime/exithook.Goid
var runtimeGoid func() uint64
