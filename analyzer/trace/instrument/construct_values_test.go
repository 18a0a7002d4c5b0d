package instrument

import (
	"strings"
	"testing"
)

// TestConstructValues traces one tiny module per language construct and
// checks the recorded events and values, in order.
func TestConstructValues(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  string // package p, file p/p.go
		test string // body of p/p_test.go after the imports
		want []string
		// goroutines is the number of distinct goroutines with frames.
		goroutines int
	}{
		{"closure", `
func Counter() (func() int, func() int) {
	n := 10
	inc := func() int { n += 5; return n }
	get := func() int { return n }
	return inc, get
}`, `
func TestX(t *testing.T) {
	inc, get := Counter()
	a := inc()
	b := inc()
	if got := get(); got != a+b-15 {
		t.Fatal(got)
	}
}`, []string{
			"assign n := 10 w:n=10",
			"assign n += 5 r:n=10 w:n=15",
			"assign n += 5 r:n=15 w:n=20",
			"return return n r:n=20 v=20",
			"branch got != a+b-15 r:got=20 r:a=15 r:b=20 v=false",
		}, 0},
		{"untyped-header-and-globals", `
type Celsius float64

var limit = 3
var scale float64 = 2
var freezing Celsius = 0

func Sum(n int) (float64, int) {
	var x float64
	total := 0.0
	steps := 0
	for x = 1; x <= float64(n); x++ {
		total += x
	}
	for i := 0; i < n; i++ {
		steps++
	}
	return total * scale, steps + limit + int(freezing)
}`, `
func TestX(t *testing.T) {
	if a, b := Sum(3); a != 12 || b != 6 {
		t.Fatal(a, b)
	}
}`, []string{
			"assign scale float64 = 2 w:scale=2",
			"assign freezing Celsius = 0 w:freezing=0",
			"assign x = 1 w:x=1",
			"assign i := 0 w:i=0",
			"branch i < n r:i=0 r:n=3 v=true",
		}, 0},
		{"parallel-header", `
func Pairs(n int) int {
	sum := 0
	for k, i := 0, 10; k < n; k, i = k+1, i-1 {
		sum += k * i
	}
	return sum
}`, `
func TestX(t *testing.T) {
	if got := Pairs(3); got != 9+16 {
		t.Fatal(got)
	}
}`, []string{
			"assign k, i := 0, 10 w:k=0 w:i=10",
			"branch k < n r:k=0 r:n=3 v=true",
			"assign sum += k * i r:sum=0 r:k=0 r:i=10 w:sum=0",
			"assign k, i = k+1, i-1 r:k=0 r:i=10 w:k=1 w:i=9",
			"assign sum += k * i r:sum=0 r:k=1 r:i=9 w:sum=9",
		}, 0},
		{"post-statements", `
type Cursor struct{ i int }

func next(n int) (int, int) { return n + 1, n * 2 }

func Walk(c *Cursor, xs []int) int {
	sum, calls := 0, 0
	for ; c.i < len(xs); c.i++ {
		sum += xs[c.i]
	}
	for k := 0; k < 2; xs[k-1]++ {
		k++
	}
	for a, b := 0, 0; a < 3; a, b = next(a) {
		calls += b
	}
	return sum + xs[0] + calls
}`, `
func TestX(t *testing.T) {
	if got := Walk(&Cursor{}, []int{4, 5}); got != 9+5+2 {
		t.Fatal(got)
	}
}`, []string{
			"branch c.i < len(xs) r:c.i=0 r:xs=[]{len 2 cap 2} v=true",
			"assign sum += xs[c.i] r:sum=0 r:c.i=0 r:xs[c.i]=4 w:sum=4",
			"assign c.i++ r:c.i=0 w:c.i=1",
			"branch c.i < len(xs) r:c.i=1",
			"assign c.i++ r:c.i=1 w:c.i=2",
			"branch c.i < len(xs) r:c.i=2 r:xs=[]{len 2 cap 2} v=false",
			"assign xs[k-1]++ r:xs[k-1]=4 w:xs[k-1]=5",
			"assign xs[k-1]++ r:xs[k-1]=5 w:xs[k-1]=6",
			"assign a, b = next(a)",
			"w:a=1 w:b=0",
			"w:a=2 w:b=2",
			"w:a=3 w:b=4",
		}, 0},
		{"slice-of-array-pointer", `
// Slicing an array pointer through a generic read wrapper is an internal
// compiler error: the file is traced only when the pointer is sliced as
// it is.
type ID [4]byte

func (u *ID) Set(data []byte) (err error) {
	copy(u[:], data)
	return
}

func (u *ID) Tail() []byte {
	b := u[:]
	return b[2:]
}`, `
func TestX(t *testing.T) {
	var u ID
	if err := u.Set([]byte{1, 2, 3, 4}); err != nil || u != (ID{1, 2, 3, 4}) || len(u.Tail()) != 2 {
		t.Fatal(u)
	}
}`, []string{
			"entry func (u *ID) Set(data []byte) (err error) {",
			"entry func (u *ID) Tail() []byte {",
			// A []byte is recorded with its content's hash and first bytes.
			`assign b := u[:] w:b=[]byte("\x01\x02\x03\x04"){len 4 cap 4}`,
		}, 0},
		{"call-of-slice-element", `
type Ctx struct {
	index    int
	handlers []func(*Ctx) int
}

func Run(c *Ctx) (sum int) {
	for c.index = 0; c.index < 3; c.index++ {
		c.handlers[c.index](c)
	}
	return
}`, `
func TestX(t *testing.T) {
	c := &Ctx{handlers: []func(*Ctx) int{func(*Ctx) int { return 1 }, func(*Ctx) int { return 2 }}}
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	Run(c)
}`, []string{
			"call c.handlers[c.index](c) r:c.handlers=[]{len 2 cap 2} r:c.index=0 r:c=",
			"call c.handlers[c.index](c) r:c.handlers=[]{len 2 cap 2} r:c.index=1 r:c=",
			"panic c.handlers[c.index](c) r:c.handlers=[]{len 2 cap 2} r:c.index=2",
		}, 0},
		{"written-location-with-call", `
type Stats struct{ N int }

type Box struct{ stats []*Stats }

var calls int

func (b *Box) at(i int) *Stats { calls++; return b.stats[i] }

func key(s string) string { calls++; return s }

func Fill() (int, int) {
	b := &Box{stats: []*Stats{{}, {}}}
	b.at(1).N++
	b.at(1).N += 10
	b.at(0).N = 7
	m := map[string]int{}
	m[key("a")] = 2
	m[key("a")] += 3
	return b.stats[1].N + b.stats[0].N + m["a"], calls
}`, `
func TestX(t *testing.T) {
	// Each call in a written location runs once, as without tracing.
	if sum, n := Fill(); sum != 23 || n != 5 {
		t.Fatal(sum, n)
	}
}`, []string{
			"assign b.at(1).N++ r:b.at(1).N=0 w:b.at(1).N=1",
			"assign b.at(1).N += 10 r:b.at(1).N=1 w:b.at(1).N=11",
			"assign b.at(0).N = 7 w:b.at(0).N=7",
			`assign m[key("a")] = 2 w:m[key("a")]=2`,
			`assign m[key("a")] += 3 r:m[key("a")]=2 w:m[key("a")]=5`,
			"r:b.stats[1].N=11",
		}, 0},
		{"defer-recover", `
func Safe(d int) (q int, err string) {
	defer func() {
		if r := recover(); r != nil {
			err = "recovered"
			q = -1
		}
	}()
	q = 100 / d
	return q, ""
}`, `
func TestX(t *testing.T) {
	q1, _ := Safe(4)
	q2, e := Safe(0)
	if q1 != 25 || q2 != -1 || e != "recovered" {
		t.Fatal(q1, q2, e)
	}
}`, []string{
			"assign q = 100 / d r:d=4 w:q=25",
			"branch r != nil r:r=nil v=false",
			"return return q, \"\" r:q=25 v=25",
			"entry func Safe(d int) (q int, err string) { w:d=0 w:q=0",
			"branch r != nil r:r=0x",
			"v=true",
			"assign err = \"recovered\" w:err=\"recovere\"…(len 9)",
			"assign q = -1 w:q=-1",
			// The frame whose deferred call recovered returns normally.
			"return }",
			"assign q2, e := Safe(0) w:q2=-1 w:e=\"recovere\"…(len 9)",
			"r:q1=25 r:q2=-1 r:e=\"recovere\"…(len 9) v=false",
		}, 0},
		{"generics", `
type Num interface{ ~int | ~int64 }

func Sum[T Num](xs ...T) T {
	var s T
	for _, x := range xs {
		s += x
	}
	return s
}

type Celsius int64`, `
func TestX(t *testing.T) {
	a := Sum(1, 2, 3)
	b := Sum[Celsius](40, 2)
	if a != 6 || b != 42 {
		t.Fatal(a, b)
	}
}`, []string{
			"assign s += x r:s=0 r:x=1 w:s=1",
			"assign s += x r:s=3 r:x=3 w:s=6",
			"return return s r:s=6 v=6",
			"assign s += x r:s=40 r:x=2 w:s=42",
			"return return s r:s=42 v=42",
			"assign b := Sum[Celsius](40, 2) r:Sum[Celsius](40, 2)=42 w:b=42",
			"branch a != 6 || b != 42 r:a=6 r:b=42 v=false",
		}, 0},
		{"embedded", `
type Base struct{ ID, Hits int }

func (b *Base) Touch() { b.Hits++ }

type User struct {
	Base
	Name string
}`, `
func TestX(t *testing.T) {
	u := &User{Base: Base{ID: 7}, Name: "ann"}
	u.Touch()
	u.Touch()
	u.ID += 1
	if u.Hits != 2 || u.Base.ID != 8 {
		t.Fatal(u)
	}
}`, []string{
			"assign b.Hits++ r:b.Hits=0 w:b.Hits=1",
			"assign b.Hits++ r:b.Hits=1 w:b.Hits=2",
			"assign u.ID += 1 r:u.ID=7 w:u.ID=8",
			"branch u.Hits != 2 || u.Base.ID != 8 r:u.Hits=2 r:u.Base.ID=8 v=false",
		}, 0},
		{"interface", `
type Shape interface{ Area() int }

type Rect struct{ W, H int }

func (r Rect) Area() int { return r.W * r.H }

type Sq int

func (s Sq) Area() int { return int(s) * int(s) }

func Total(ss []Shape) int {
	t := 0
	for _, s := range ss {
		if r, ok := s.(Rect); ok && r.W > 2 {
			t += 1000
		}
		t += s.Area()
	}
	return t
}`, `
func TestX(t *testing.T) {
	if got := Total([]Shape{Rect{3, 4}, Sq(5)}); got != 1037 {
		t.Fatal(got)
	}
}`, []string{
			"assign r, ok := s.(Rect)",
			"w:ok=true",
			"branch ok && r.W > 2 r:ok=true r:r.W=3 v=true",
			"assign t += 1000 r:t=0 w:t=1000",
			"return return r.W * r.H r:r.W=3 r:r.H=4 v=12",
			"assign t += s.Area() r:t=1000 r:s.Area()=12 w:t=1012",
			"w:ok=false",
			"branch ok && r.W > 2 r:ok=false v=false",
			"entry func (s Sq) Area() int { return int(s) * int(s) } w:s=5",
			"return return int(s) * int(s) r:s=5 r:s=5 v=25",
			"assign t += s.Area() r:t=1012 r:s.Area()=25 w:t=1037",
			"branch got != 1037 r:got=1037 v=false",
		}, 0},
		{"subtests", `
func Double(x int) int { return x * 2 }`, `
func TestX(t *testing.T) {
	for _, c := range []struct{ in, out int }{{1, 2}, {21, 42}} {
		t.Run("", func(t *testing.T) {
			if got := Double(c.in); got != c.out {
				t.Errorf("Double(%d) = %d", c.in, got)
			}
		})
	}
}`, []string{
			"entry func(t *testing.T) {",
			"call Double(c.in) r:c.in=1",
			"entry func Double(x int) int { return x * 2 } w:x=1",
			"return return x * 2 r:x=1 v=2",
			"branch got != c.out r:got=2 r:c.out=2 v=false",
			"callext t.Run(",
			"entry func(t *testing.T) {",
			"call Double(c.in) r:c.in=21",
			"entry func Double(x int) int { return x * 2 } w:x=21",
			"return return x * 2 r:x=21 v=42",
			"branch got != c.out r:got=42 r:c.out=42 v=false",
		}, 3},
		{"nil-deref", `
type N struct {
	V    int
	Next *N
}

func second(n *N) int {
	return n.Next.V
}

func Second(n *N) (v int, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return second(n), true
}`, `
func TestX(t *testing.T) {
	if _, ok := Second(&N{V: 1}); ok {
		t.Fatal("no panic")
	}
}`, []string{
			// The pointer read from memory is kept with the panic; the
			// caller recovers and returns normally.
			"panic return n.Next.V r:n.Next=nil",
			"branch recover() != nil v=true",
			"return }",
		}, 0},
		{"read-before-call", `
func fee(x int) int { return x / 10 }

func Total(a, b int) int {
	y := a*2 + fee(b) + len(fmt.Sprint(a))
	return y
}`, `
func TestX(t *testing.T) {
	if got := Total(1, 100); got != 13 {
		t.Fatal(got)
	}
}`, []string{
			// A call's event has the call's own reads only; what the
			// statement read before the call goes with the statement.
			"call fee(b) r:b=100\n",
			"callext fmt.Sprint(a) r:a=1 v=\"1\"\n",
			"assign y := a*2 + fee(b) + len(fmt.Sprint(a)) r:a=1 r:fee(b)=10 r:fmt.Sprint(a)=\"1\" w:y=13",
		}, 0},
		{"struct-literal", `
type P struct{ X, Y int }

func Flip(a, b int) int {
	p := P{X: a, Y: b * 2}
	q := P{b, a}
	return p.Y + q.X
}`, `
func TestX(t *testing.T) {
	if got := Flip(1, 3); got != 9 {
		t.Fatal(got)
	}
}`, []string{
			// The fields a literal initialises are written with the variable.
			"assign p := P{X: a, Y: b * 2} r:a=1 r:b=3 w:p=… w:p.X=1 w:p.Y=6",
			"assign q := P{b, a} r:b=3 r:a=1 w:q=… w:q.X=3 w:q.Y=1",
			"return return p.Y + q.X r:p.Y=6 r:q.X=3 v=9",
		}, 0},
		{"append", `
func Pairs(xs []int) []int {
	out := make([]int, 0, 4)
	for _, x := range xs {
		out = append(out, x, x*10)
	}
	return out
}`, `
func TestX(t *testing.T) {
	if got := Pairs([]int{2, 3}); got[3] != 30 {
		t.Fatal(got)
	}
}`, []string{
			// Each appended element is written at its address, from its
			// argument; the read of got[3] finds it.
			"assign append(out, x, x*10) r:out=[]{len 0 cap 4} r:x=2 r:x=2 w:out[len(out)-2]=2 w:out[len(out)-1]=20",
			"assign append(out, x, x*10) r:out=[]{len 2 cap 4} r:x=3 r:x=3 w:out[len(out)-2]=3 w:out[len(out)-1]=30",
			"branch got[3] != 30 r:got[3]=30 v=false",
		}, 0},
		{"comparison-result-and-constant-argument", `
type Mode string

const prefix = "ab"

func Match(text, pre string) bool {
	return len(text) >= len(pre) && text[:len(pre)] == pre
}

func Check(m Mode) bool { return m == "x" }

func Both(text string) (bool, bool) {
	return Match(text, prefix), Check("x")
}`, `
func TestX(t *testing.T) {
	text := "abc"
	if a, b := Both(text); !a || !b {
		t.Fatal(a, b)
	}
}`, []string{
			// The call's event comes after its arguments, although the
			// last one is a constant, so it holds the read of text; a
			// comparison returned is recorded as the result.
			"call Match(text, prefix) r:text=\"abc\"",
			"entry func Match(text, pre string) bool { w:text=\"abc\" w:pre=\"ab\"",
			"return return len(text) >= len(pre) && text[:len(pre)] == pre r:text=\"abc\" r:pre=\"ab\" r:text=\"abc\" r:pre=\"ab\" r:pre=\"ab\" v=true",
			"call Check(\"x\")",
			"return return m == \"x\" r:m=\"x\" v=true",
		}, 0},
		{"multi-value-initialisers", `
type ID [2]byte

func parse(s string) (ID, error) {
	if len(s) != 2 {
		return ID{}, fmt.Errorf("bad %q", s)
	}
	return ID{s[0], s[1]}, nil
}

var base, _ = parse("ab")
var bad, errBad = parse("x")
var width, mask = 1 << 3, uint8(7)
var table = map[string]int{"a": 4}
var four, found = table["a"]

func first(xs []int) (int, bool) { return 0, len(xs) > 0 }

func Sum(xs []int) int {
	if errBad == nil || !found {
		return -1
	}
	n := int(base[1]-base[0]) + width + int(mask) + four + int(bad[0])
	for i, ok := first(xs); ok; i++ {
		n += xs[i]
		ok = i+1 < len(xs)
	}
	return n
}`, `
func TestX(t *testing.T) {
	if got := Sum([]int{10, 20}); got != 1+8+7+4+30 {
		t.Fatal(got)
	}
}`, []string{
			// Each value a multi-value initialiser or header assigns is
			// recorded as written, by one event of the statement.
			"assign base, _ = parse(\"ab\") w:base=",
			"w:bad=",
			"w:errBad=",
			"assign width = 1 << 3 w:width=8",
			"assign mask = uint8(7) w:mask=7",
			"assign four, found = table[\"a\"] r:table=",
			"w:four=4 w:found=true",
			"assign i, ok := first(xs) w:i=0 w:ok=true",
			"assign n += xs[i] r:n=20 r:i=0 r:xs[i]=10 w:n=30",
		}, 0},
		{"header-local-types", `
type Num interface{ ~int | ~int64 }

func Total[T Num](xs []T) T {
	var s T
	var i int
	for s = 5; i < len(xs); i++ {
		s += xs[i]
	}
	return s
}

func Steps(n int) int {
	type step int
	var k step
	c := 0
	for k = 1; int(k) <= n; k *= 2 {
		c++
	}
	return c
}`, `
func TestX(t *testing.T) {
	if a, b := Total([]int64{1, 2}), Steps(4); a != 8 || b != 3 {
		t.Fatal(a, b)
	}
}`, []string{
			// An untyped constant assigned in a loop header to a variable
			// of a type parameter's or a local type's type.
			"assign s = 5 w:s=5",
			"assign s += xs[i] r:s=5 r:i=0 r:xs[i]=1 w:s=6",
			"assign k = 1 w:k=1",
			"branch int(k) <= n r:k=1 r:n=4 v=true",
		}, 0},
		{"header-nil-of-composite-types", `
type Box[T any] struct{ v T }

func double(x int) int { return 2 * x }

func Pick(n int) int {
	var f func(int) int
	var p *Box[int]
	steps := 0
	for f = nil; f == nil; f = double {
		steps++
	}
	for p = nil; p == nil; p = (&Box[int]{v: f(n)}) {
		steps++
	}
	return p.v + steps
}`, `
func TestX(t *testing.T) {
	if got := Pick(3); got != 8 {
		t.Fatal(got)
	}
}`, []string{
			// nil assigned in a loop header to a variable of a function
			// type and of a pointer to an instantiated generic type.
			"assign f = nil w:f=",
			"branch f == nil r:f=",
			"assign p = nil w:p=",
			"branch p == nil r:p=",
		}, 0},
		{"goroutines", `
func Squares(n int) int {
	ch := make(chan int)
	for i := 1; i <= n; i++ {
		go func(v int) { ch <- v * v }(i)
	}
	sum := 0
	for k := 0; k < n; k++ {
		sum += <-ch
	}
	return sum
}`, `
func TestX(t *testing.T) {
	if s := Squares(3); s != 14 {
		t.Fatal(s)
	}
}`, []string{
			"branch i <= n r:i=4 r:n=3 v=false",
			"branch k < n r:k=3 r:n=3 v=false",
			"return return sum r:sum=14 v=14",
			"branch s != 14 r:s=14 v=false",
		}, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Each case is its own module, build and run: two at a time
			// overlap one's link and run with the other's build.
			t.Parallel()
			dir := writeTree(t, moduleP("package p\n"+imports(tc.src)+tc.src+"\n", "package p\n\nimport \"testing\"\n"+tc.test+"\n"))
			tr := tracePassing(t, dir, "./p", "TestX")
			got := dump(tr)
			// The test passed: no failure, and no panic that was recovered.
			if f := tr.Failures(); len(f) > 0 {
				t.Errorf("a passing test's trace reports failures at events %v:\n%s", f, got)
			}
			pos := 0
			for _, w := range tc.want {
				k := strings.Index(got[pos:], w)
				if k < 0 {
					t.Fatalf("trace lacks %q after offset %d:\n%s", w, pos, got)
				}
				pos += k + len(w)
			}
			gs := map[int64]bool{}
			for _, f := range tr.Frames[1:] {
				gs[f.Goroutine] = true
			}
			if tc.goroutines > 0 && len(gs) != tc.goroutines {
				t.Errorf("frames on %d goroutines, want %d", len(gs), tc.goroutines)
			}
		})
	}
}

// imports returns the import of fmt when src uses it.
func imports(src string) string {
	if strings.Contains(src, "fmt.") {
		return "\nimport \"fmt\"\n"
	}
	return ""
}
