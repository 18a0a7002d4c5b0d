package trial

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/culprit-dev/culprit/diffhunks"
	"github.com/culprit-dev/culprit/internal/scenario"
	"github.com/google/go-cmp/cmp"
)

// afterExample returns a runner over the AFTER running example, with the
// hunks computed by diffhunks, and the root hunks the scenario expects.
func afterExample(tb testing.TB) (*Runner, []diffhunks.ID) {
	tb.Helper()
	s, err := scenario.Load("../../testdata/after-example.txtar")
	if err != nil {
		tb.Fatal(err)
	}
	repo, err := s.Materialize(filepath.Join(tb.TempDir(), "repo"))
	if err != nil {
		tb.Fatal(err)
	}
	set, err := diffhunks.FromFiles(s.Base, s.Head)
	if err != nil {
		tb.Fatal(err)
	}
	root, err := scenario.Resolve(set.Hunks(), s.Root)
	if err != nil {
		tb.Fatal(err)
	}
	r, err := New(context.Background(), Config{Dir: repo.Dir, Head: repo.Head, Variants: set, Pkg: s.Pkg, Test: s.Test})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := r.Close(); err != nil {
			tb.Errorf("Close: %v", err)
		}
	})
	return r, root
}

func TestAfterExample(t *testing.T) {
	r, root := afterExample(t)
	type got struct {
		Outcome   Outcome
		Signature string
	}
	tests := []struct {
		name   string
		revert []diffhunks.ID
		want   got
	}{
		{"head fails", nil, got{Fail, "calc/calc_test.go:7"}},
		{"root reverted passes", root, got{Pass, ""}},
		{"one root hunk still fails", root[:1], got{Fail, "calc/calc_test.go:7"}},
	}
	// go test reports the line of the t.Errorf call, the line after the
	// condition that failed.
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := r.Run(context.Background(), tt.revert)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got{res.Outcome, res.Signature}); diff != "" {
				t.Errorf("Run(%v) (-want +got):\n%s\n%s", tt.revert, diff, res.Output)
			}
		})
	}
}
