package analyzer

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/culprit-dev/culprit/internal/testfiles"
)

// TestFindTestPackage commits a tree to a real repository and finds each
// test's package at that revision, while the working tree is elsewhere.
func TestFindTestPackage(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":                  "module example.com/m\n",
		"root_test.go":            "package m\nfunc TestRoot(t *testing.T) {}\n",
		"calc/calc_test.go":       "package calc\nfunc TestF(t *testing.T) {}\nfunc (s) TestM() {}\n",
		"a/a_test.go":             "package a\nfunc TestDup(t *testing.T) {}\n",
		"b/b_test.go":             "package b\nfunc TestDup(t *testing.T) {}\n",
		"vendor/v/v_test.go":      "package v\nfunc TestVendored(t *testing.T) {}\n",
		"calc/testdata/x_test.go": "package x\nfunc TestData(t *testing.T) {}\n",
		".hidden/h_test.go":       "package h\nfunc TestHidden(t *testing.T) {}\n",
		"nested/go.mod":           "module example.com/nested\n",
		"nested/n_test.go":        "package n\nfunc TestNested(t *testing.T) {}\n",
		"calc/helper.go":          "package calc\nfunc TestNotATest() {}\n",
		"re/re_test.go":           "package re\nfunc TestAxB(t *testing.T) {}\n",
	}
	testfiles.Write(t, dir, files)
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
			"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	git("add", "-A")
	git("commit", "-qm", "tree")
	// The working tree no longer has the files: only the revision does.
	git("rm", "-rq", ".")

	tests := []struct {
		test, want, wantErr string
	}{
		{test: "TestF", want: "./calc"},
		{test: "TestF/sub case", want: "./calc"},
		{test: "TestRoot", want: "."},
		{test: "TestM", wantErr: "does not exist"},
		{test: "TestNotATest", wantErr: "does not exist"},
		{test: "TestDup", wantErr: "several packages (./a, ./b)"},
		{test: "TestVendored", wantErr: "does not exist"},
		{test: "TestData", wantErr: "does not exist"},
		{test: "TestHidden", wantErr: "does not exist"},
		{test: "TestNested", want: "./nested"},       // a nested module's test is found; its module is found later
		{test: "TestA.B", wantErr: "does not exist"}, // a pattern character is matched literally
	}
	for _, tt := range tests {
		t.Run(tt.test, func(t *testing.T) {
			got, err := findTestPackage(context.Background(), dir, "HEAD", tt.test)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tt.wantErr)
				}
				if tt.wantErr == "does not exist" && !errors.Is(err, ErrNoSuchTest) {
					t.Errorf("error %v does not wrap ErrNoSuchTest", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("package = %q, want %q", got, tt.want)
			}
		})
	}
	if _, err := findTestPackage(context.Background(), dir, "no-such-rev", "TestF"); err == nil || errors.Is(err, ErrNoSuchTest) {
		t.Errorf("bad revision: err = %v, want a git error", err)
	}
}
