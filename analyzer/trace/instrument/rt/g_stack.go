//go:build !go1.26 || culprit_stackgoid

package rt

// runtimeGoid is nil: goid parses runtime.Stack.
var runtimeGoid func() uint64
