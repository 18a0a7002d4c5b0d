package instrument

import "testing"

const sliceElemsTest = `package p

import "testing"

type Meters float64

func TestX(t *testing.T) {
	args := []string{"baz"}
	pair := []string{"a b", "a long string"}
	nums := []int{1, -2, 3}
	sizes := []uint64{7}
	dist := []Meters{0.5, 2}
	many := []int{1, 2, 3, 4}
	small := []int32{1, 2}
	if len(args)+len(pair)+len(nums)+len(sizes)+len(dist)+len(many)+len(small) != 15 {
		t.Fatal("lengths")
	}
}
`

// TestSliceElements: a slice of at most three numbers of eight bytes or
// strings is recorded with its elements, each string by its first bytes,
// and shown as Go prints it (strings quoted); a longer one, or one of
// narrower numbers, by its length.
func TestSliceElements(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a traced test binary")
	}
	dir := writeTree(t, moduleP(`package p
`, sliceElemsTest))
	tr := tracePassing(t, dir, "./p", "TestX")
	shown := written(tr, "example.com/m/p.TestX")
	wantShown(t, shown, map[string]string{
		"args":  `["baz"]`,
		"pair":  `["a b" "a long s"…]`,
		"nums":  "[1 -2 3]",
		"sizes": "[7]",
		"dist":  "[0.5 2]",
		"many":  "len 4",
		"small": "len 2",
	})
}
