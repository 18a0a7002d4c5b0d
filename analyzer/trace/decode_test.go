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
