package scenario

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/culprit-dev/culprit/diffhunks"
)

func TestParseErrors(t *testing.T) {
	for name, src := range map[string]string{
		"no test":     "status: explained\n-- base/a.go --\nx\n-- head/a.go --\ny\n",
		"bad header":  "test TestX\n-- base/a.go --\nx\n-- head/a.go --\ny\n",
		"no head":     "test: TestX\n-- base/a.go --\nx\n",
		"bad timeout": "test: TestX\ntimeout: soon\n-- base/a.go --\nx\n-- head/a.go --\ny\n",
		"bad size":    "test: TestX\ntrace-bytes: 16MB\n-- base/a.go --\nx\n-- head/a.go --\ny\n",
		"zero size":   "test: TestX\ntrace-bytes: 0\n-- base/a.go --\nx\n-- head/a.go --\ny\n",
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := Parse(name, []byte(src)); err == nil {
				t.Fatal("Parse accepted a malformed scenario")
			}
		})
	}
}

func TestParseTraceBytes(t *testing.T) {
	for v, want := range map[string]int64{"4096": 4096, "16MiB": 16 << 20, "64KiB": 64 << 10, "1GiB": 1 << 30} {
		sc, err := Parse("sizes", []byte("test: TestX\ntrace-bytes: "+v+"\n-- base/a.go --\nx\n-- head/a.go --\ny\n"))
		if err != nil {
			t.Fatalf("trace-bytes %s: %v", v, err)
		}
		if sc.TraceBytes != want {
			t.Errorf("trace-bytes %s = %d, want %d", v, sc.TraceBytes, want)
		}
	}
}

// TestResolve materializes the AFTER example and a deletion, and resolves
// references against the hunks git and diffhunks really produce.
func TestResolve(t *testing.T) {
	sc, err := Load("../../testdata/sem-omission.txtar")
	if err != nil {
		t.Fatal(err)
	}
	repo, err := sc.Materialize(filepath.Join(t.TempDir(), "repo"))
	if err != nil {
		t.Fatal(err)
	}
	set, err := diffhunks.FromGit(context.Background(), repo.Dir, repo.Base, repo.Head)
	if err != nil {
		t.Fatal(err)
	}
	hunks := set.Hunks()
	ids, err := Resolve(hunks, sc.Root)
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != 1 {
		t.Fatalf("root %v resolved to %v", sc.Root, ids)
	}
	h, _ := set.Hunk(ids[0])
	if h.Head.Len() != 0 || !strings.Contains(h.Diff, "x = -x") {
		t.Errorf("root resolved to %+v, want the deletion of x = -x", h)
	}
	for _, bad := range []string{"norm.go:1", "nosuch.go", "norm.go:x"} {
		if _, err := Resolve(hunks, []string{bad}); err == nil {
			t.Errorf("Resolve(%q) named a hunk", bad)
		}
	}
	all, err := Resolve(hunks, []string{"norm.go:14", "norm.go:-8"})
	if err != nil || !slices.IsSorted(all) || len(all) != 2 {
		t.Errorf("Resolve = %v, %v", all, err)
	}
}
