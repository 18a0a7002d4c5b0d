package instrument

import (
	"testing"
)

// TestInferredGenericCalls: a call of a generic function whose type
// arguments were inferred, inside an expression, has its event recorded
// after its last argument; when that argument is a tuple (`G(f())`) the
// event is recorded by wrapping the function value instead, which must
// then be instantiated explicitly, with the inferred type arguments (a
// type parameter of the enclosing function among them). Such calls were
// left untraced.
func TestInferredGenericCalls(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a traced test binary")
	}
	dir := writeTree(t, moduleP(`package p

type Box[T any] struct{ v T }

func Wrap[T any](v T) Box[T] { return Box[T]{v} }

func Get[T any](b Box[T]) T { return b.v }

func Pair[K comparable, V any](k K, v V) map[K]V { return map[K]V{k: v} }

func Sum() int {
	return Get(Wrap(2)) + len(Pair("a", 1))
}

func Keyed[K comparable](k K) int {
	return len(Pair(k, 1.5))
}

func both[T any](v T) (T, bool) { return v, true }

func FromTuple[T any](v T, ok bool) Box[T] { return Box[T]{v} }

func Tupled[T any](v T) T {
	return Get(FromTuple(both(v)))
}
`, `package p

import "testing"

func TestSum(t *testing.T) {
	if Sum() != 3 || Keyed("x") != 1 || Tupled(4) != 4 {
		t.Fatal("sum")
	}
}
`))
	tr := tracePassing(t, dir, "./p", "TestSum")
	if len(tr.Skipped) > 0 {
		t.Errorf("skipped %+v, want every call traced", tr.Skipped)
	}
	for _, want := range []string{"call Wrap(2)", `call Pair("a", 1)`, "call Pair(k, 1.5)", "call FromTuple(both(v))"} {
		if !hasEvent(tr, want) {
			t.Errorf("no event like %q:\n%s", want, dump(tr))
		}
	}
}
