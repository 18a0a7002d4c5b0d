package trial

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// BenchmarkTrial measures one uncached Go-mode trial of the AFTER example
// with its root hunks reverted, on a warm build cache. Compare it with
// BenchmarkPlainGoTest, the same variant tested by a plain go test.
func BenchmarkTrial(b *testing.B) {
	r, root := afterExample(b)
	ctx := context.Background()
	if _, err := r.Run(ctx, root); err != nil { // warm the build cache
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		r.mu.Lock()
		r.cache = map[string]*call{}
		r.mu.Unlock()
		res, err := r.Run(ctx, root)
		if err != nil || res.Outcome != Pass {
			b.Fatalf("Run = %v, %v", res.Outcome, err)
		}
	}
}

// BenchmarkPlainGoTest runs go test -run on the same variant written into a
// checkout, the cost a trial is measured against.
func BenchmarkPlainGoTest(b *testing.B) {
	r, root := afterExample(b)
	files, deleted, err := r.cfg.Variants.Variant(root)
	if err != nil {
		b.Fatal(err)
	}
	dir := r.repo
	for p, data := range files {
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(p)), data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	for _, p := range deleted {
		if err := os.Remove(filepath.Join(dir, filepath.FromSlash(p))); err != nil {
			b.Fatal(err)
		}
	}
	// A trial passes -vet=off; a plain go test vets by default.
	b.Run("vet=off", func(b *testing.B) { plainGoTest(b, dir, r.cfg.Pkg, "-vet=off") })
	b.Run("vet=default", func(b *testing.B) { plainGoTest(b, dir, r.cfg.Pkg) })
}

func plainGoTest(b *testing.B, dir, pkg string, flags ...string) {
	goTest := func() {
		cmd := exec.Command("go", append(append([]string{"test"}, flags...), "-count=1", "-run", "^TestF$", pkg)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("go test: %v\n%s", err, out)
		}
	}
	goTest() // warm the build cache
	b.ResetTimer()
	for b.Loop() {
		goTest()
	}
}
