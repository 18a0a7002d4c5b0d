package diffhunks_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/culprit-dev/culprit/diffhunks"
	"github.com/culprit-dev/culprit/internal/scenario"
	"github.com/google/go-cmp/cmp"
)

// TestAfterExample checks the paper's running example: four one-line
// changes in calc.go are four hunks, whether read from memory or from git.
func TestAfterExample(t *testing.T) {
	sc, err := scenario.Load(filepath.Join("..", "testdata", "after-example.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	type brief struct {
		File string
		Head diffhunks.LineRange
		Func string
		Diff string
	}
	want := []brief{
		{"calc/calc.go", diffhunks.LineRange{Start: 3, End: 3}, "", "-var sorted = true\n+var sorted = false\n"},
		{"calc/calc.go", diffhunks.LineRange{Start: 8, End: 8}, "F", "-\t\tif x > y {\n+\t\tif x < y {\n"},
		{"calc/calc.go", diffhunks.LineRange{Start: 17, End: 17}, "F", "-\t\tsum += z\n+\t\tsum += z + 1\n"},
		{"calc/calc.go", diffhunks.LineRange{Start: 19, End: 19}, "F", "-\t\tsum -= z\n+\t\tsum += -z\n"},
	}
	summarize := func(s *diffhunks.Set) []brief {
		var got []brief
		for _, h := range s.Hunks() {
			got = append(got, brief{h.File, h.Head, h.Func, h.Diff})
		}
		return got
	}

	mem, err := diffhunks.FromFiles(sc.Base, sc.Head)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, summarize(mem)); diff != "" {
		t.Errorf("FromFiles hunks (-want +got):\n%s", diff)
	}

	t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	repo, err := sc.Materialize(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	fromGit, err := diffhunks.FromGit(context.Background(), repo.Dir, repo.Base, repo.Head)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(mem.Hunks(), fromGit.Hunks()); diff != "" {
		t.Errorf("FromGit and FromFiles disagree (-files +git):\n%s", diff)
	}

	root, err := scenario.Resolve(mem.Hunks(), sc.Root)
	if err != nil {
		t.Fatal(err)
	}
	files, deleted, err := mem.Variant(root)
	if err != nil {
		t.Fatal(err)
	}
	wantCalc := string(sc.Head["calc/calc.go"])
	wantCalc = replaceOnce(t, wantCalc, "x < y", "x > y")
	wantCalc = replaceOnce(t, wantCalc, "sum += z + 1", "sum += z")
	if diff := cmp.Diff(map[string]string{"calc/calc.go": wantCalc}, strs(files)); diff != "" || len(deleted) > 0 {
		t.Errorf("variant reverting the root (-want +got):\n%s\ndeleted %v", diff, deleted)
	}
}

func replaceOnce(t *testing.T, s, old, new string) string {
	t.Helper()
	if strings.Count(s, old) != 1 {
		t.Fatalf("%q not found exactly once", old)
	}
	return strings.Replace(s, old, new, 1)
}

func strs(m map[string][]byte) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		out[k] = string(v)
	}
	return out
}
