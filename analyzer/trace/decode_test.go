package trace

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestWalkWindows streams a hand-made event file through windows of every
// size from one word up: the records, the frames they belong to and where
// the words stop as incomplete must not depend on where a window ends.
func TestWalkWindows(t *testing.T) {
	rec := func(site uint64, items ...uint64) []uint64 {
		return append([]uint64{uint64(1+len(items))<<48 | site}, items...)
	}
	block := func(frame uint64, recs ...[]uint64) []uint64 {
		b := []uint64{0, frame}
		for _, r := range recs {
			b = append(b, r...)
		}
		b[0] = blockMark<<56 | uint64(len(b))
		return b
	}
	whole := append(block(16, rec(1, 7), rec(2), rec(3, 8, 9, 10)), block(40, rec(4, 11))...)
	// A block whose records end early (a zero header), then unused words.
	early := block(56, rec(5, 12), []uint64{0, 99, 99})
	tests := []struct {
		name     string
		words    []uint64
		want     []string
		complete bool
	}{
		{"complete", whole, []string{"16:1[7]", "16:2[]", "16:3[8 9 10]", "40:4[11]"}, true},
		{"zero header ends a block", append(early, block(60, rec(6))...), []string{"56:5[12]", "60:6[]"}, true},
		{"block past the tail", append(whole, blockMark<<56|9, 70, (2<<48)|7), []string{"16:1[7]", "16:2[]", "16:3[8 9 10]", "40:4[11]"}, false},
		{"record past its block", block(16, rec(1, 7), []uint64{5<<48 | 2, 1}), []string{"16:1[7]"}, false},
		{"no events", nil, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := make([]uint64, hdrWords, hdrWords+len(tt.words))
			file[0], file[1] = magic, uint64(hdrWords+len(tt.words))
			file = append(file, tt.words...)
			ev := writeEvents(t, file)
			for chunk := uint64(1); chunk <= uint64(len(file))+1; chunk++ {
				var got []string
				w := ev.window()
				w.chunk = chunk
				n, complete, err := ev.walk(w, func(h, frame, _ uint64, items []uint64) {
					got = append(got, fmt.Sprintf("%d:%d%v", frame, h&0xffffffff, items))
				})
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" || n != len(tt.want) || complete != tt.complete {
					t.Fatalf("window of %d words: %d records, complete %v (want %v); (-want +got):\n%s", chunk, n, complete, tt.complete, diff)
				}
			}
		})
	}
}

// TestReadShortFile: a file shorter than the tail its header names is
// read up to its end.
func TestReadShortFile(t *testing.T) {
	file := make([]uint64, hdrWords, hdrWords+3)
	file[0], file[1] = magic, 100
	file = append(file, blockMark<<56|3, 16, 1<<48|1)
	ev := writeEvents(t, file)
	n, complete, err := ev.walk(ev.window(), nil)
	if err != nil || n != 1 || !complete || ev.tail != uint64(len(file)) {
		t.Errorf("walk = %d, %v, %v; tail %d, want 1 record, complete, tail %d", n, complete, err, ev.tail, len(file))
	}
}

// writeEvents writes the words of an event file and opens it; the test
// closes it.
func writeEvents(t *testing.T, words []uint64) *events {
	t.Helper()
	name := filepath.Join(t.TempDir(), eventsFile)
	if err := os.WriteFile(name, asBytes(words), 0o644); err != nil {
		t.Fatal(err)
	}
	ev, err := openEvents(name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ev.Close() })
	return ev
}

// TestWalkRing reads a hand-made ring of three 8-word chunks whose tail
// has gone round: the reading starts at the oldest chunk still whole,
// goes on past the end of the file to its first chunk, skips pads and
// hands out each block's goroutine; the partly overwritten chunk and the
// stale words past the tail are never read.
func TestWalkRing(t *testing.T) {
	const chunk, ring = 8, 24
	file := make([]uint64, hdrWords+ring)
	file[0], file[hChunk] = magic, chunk
	file[2] = uint64(len(file))
	for i := hdrWords; i < len(file); i++ {
		file[i] = blockMark<<56 | 99 // a lap's leftovers, which no read may take
	}
	// Virtual offsets: the tail at 76 has gone round the ring [32, 56)
	// once; 76-24 = 52 lies in the chunk [48, 56), partly overwritten by
	// [72, 76), so the reading starts at 56, which lies at 32.
	file[1] = 76
	put := func(v uint64, ws ...uint64) { copy(file[hdrWords+(v-hdrWords)%ring:], ws) }
	put(56, blockMark<<56|4, 20|7<<idBits, 2<<48|1, 11) // a block of frame 20 on goroutine 7
	put(60, padMark<<56|4)                              // the chunk's unused end
	put(64, blockMark<<56|8, 64|7<<idBits, 1<<48|2, 3<<48|3, 12, 13, 0)
	put(72, blockMark<<56|4, 72|9<<idBits, 1<<48|4, 0)
	ev := writeEvents(t, file)
	if ev.start != 56 || ev.tail != 76 {
		t.Fatalf("start %d, tail %d; want 56 and 76", ev.start, ev.tail)
	}
	var got []string
	n, complete, err := ev.walk(ev.window(), func(h, frame, g uint64, items []uint64) {
		got = append(got, fmt.Sprintf("%d/%d:%d%v", frame, g, h&0xffffffff, items))
	})
	want := []string{"20/7:1[11]", "64/7:2[]", "64/7:3[12 13]", "72/9:4[]"}
	if diff := cmp.Diff(want, got); diff != "" || err != nil || n != len(want) || !complete {
		t.Errorf("walk: %d records, complete %v, err %v; (-want +got):\n%s", n, complete, err, diff)
	}
}

// TestDecodeHashedSlice: a slice item with the hashed flag carries its
// elements' hash after its three words, and the words after it (its
// location) are left for the caller.
func TestDecodeHashedSlice(t *testing.T) {
	tag := uint64(ValSlice) | tagHashed | 5<<8
	v, rest := decodeItem(tag, []uint64{0xc000, 3, 4, 0xfeed, 0xa0})
	want := Value{Kind: ValSlice, Bits: 0xc000, Len: 3, Cap: 4, Hash: 0xfeed}
	if v != want || len(rest) != 1 || rest[0] != 0xa0 {
		t.Errorf("decodeItem = %+v, rest %v; want %+v, rest [0xa0]", v, rest, want)
	}
}

// TestDecodeSliceElements: a hashed slice item with the elements flag
// carries a header word and a word per element after its hash; the words
// after them are left for the caller, and a header that counts more
// elements than the item holds leaves the value undecoded.
func TestDecodeSliceElements(t *testing.T) {
	tag := uint64(ValSlice) | tagHashed | tagElems
	word := func(s string) (w uint64) {
		for i := range len(s) {
			w |= uint64(s[i]) << (8 * i)
		}
		return w
	}
	v, rest := decodeItem(tag, []uint64{0xc000, 2, 2, 0xfeed, 2<<60 | 3<<56 | 12<<16 | 2, word("ab"), word("abcdefgh"), 0xa0})
	if got, ok := v.elems(); !ok || got != `["ab" "abcdefgh"…]` || len(rest) != 1 || rest[0] != 0xa0 {
		t.Errorf("strings: elems %q %v, rest %v; want [\"ab\" \"abcdefgh\"…], rest [0xa0]", got, ok, rest)
	}
	if v.isBytes() || v.Format(Type{}, nil) != `["ab" "abcdefgh"…]` {
		t.Errorf("strings: isBytes %v, shown %q", v.isBytes(), v.Format(Type{}, nil))
	}
	v, _ = decodeItem(tag, []uint64{0xc000, 2, 2, 0xfeed, 2<<60 | 0<<56, 5, 1<<63 | 1})
	if got, _ := v.elems(); got != "[5 -9223372036854775807]" {
		t.Errorf("signed: elems %q", got)
	}
	if v, rest := decodeItem(tag, []uint64{0xc000, 2, 2, 0xfeed, 3 << 60, 1}); v != (Value{}) || rest != nil {
		t.Errorf("short item: %+v, rest %v; want nothing", v, rest)
	}
}
