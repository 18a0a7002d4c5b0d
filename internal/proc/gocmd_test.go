package proc

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fakeGo puts a program named go first on PATH that prints its arguments
// and its environment, and returns its directory.
func fakeGo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	script := "#!/bin/sh\nfor a in \"$@\"; do printf 'arg %s\\n' \"$a\"; done\nexec env\n"
	if err := os.WriteFile(filepath.Join(dir, "go"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return dir
}

func TestGoInvocation(t *testing.T) {
	// The variables whose values the cases decide; absent ones are left
	// out of the comparison.
	watched := []string{"GOTOOLCHAIN", "GOFLAGS", "GOTMPDIR", "CULPRIT_TEST_SECRET", "CULPRIT_TEST_PASS", "PWD"}
	for _, tc := range []struct {
		name     string
		set      []string // NAME=value, set in this process
		inv      GoInvocation
		wantArgs []string
		wantEnv  map[string]string // of the watched names
	}{{
		name:     "flags come between the verb and the arguments",
		set:      []string{"GOFLAGS=-tags=x"},
		inv:      GoInvocation{Verb: "test", BuildFlags: []string{"-json", "-run", "^TestF$"}, Args: []string{"./calc"}},
		wantArgs: []string{"test", "-json", "-run", "^TestF$", "./calc"},
		wantEnv:  map[string]string{"GOTOOLCHAIN": "local", "GOFLAGS": "-tags=x"},
	}, {
		name: "neither passthrough nor Env choose the toolchain",
		set:  []string{"GOTOOLCHAIN=go1.99.0"},
		inv: GoInvocation{Verb: "env", Args: []string{"GOWORK"},
			Passthrough: []string{"GOTOOLCHAIN"}, Env: []string{"GOTOOLCHAIN=auto", "GOTMPDIR=/tmp/gotmp"}},
		wantArgs: []string{"env", "GOWORK"},
		wantEnv:  map[string]string{"GOTOOLCHAIN": "local", "GOTMPDIR": "/tmp/gotmp"},
	}, {
		name:     "unlisted variables are dropped, passed-through ones kept",
		set:      []string{"CULPRIT_TEST_SECRET=s3cret", "CULPRIT_TEST_PASS=p"},
		inv:      GoInvocation{Verb: "list", Args: []string{"./..."}, Passthrough: []string{"CULPRIT_TEST_PASS"}},
		wantArgs: []string{"list", "./..."},
		wantEnv:  map[string]string{"GOTOOLCHAIN": "local", "CULPRIT_TEST_PASS": "p"},
	}, {
		name:     "ModFlag joins the inherited GOFLAGS",
		set:      []string{"GOFLAGS=-tags=x"},
		inv:      GoInvocation{Verb: "build", Args: []string{"."}, ModFlag: "mod"},
		wantArgs: []string{"build", "."},
		wantEnv:  map[string]string{"GOTOOLCHAIN": "local", "GOFLAGS": "-tags=x -mod=mod"},
	}, {
		name:     "ModFlag without GOFLAGS",
		set:      []string{"GOFLAGS="},
		inv:      GoInvocation{Verb: "build", Args: []string{"."}, ModFlag: "mod"},
		wantArgs: []string{"build", "."},
		wantEnv:  map[string]string{"GOTOOLCHAIN": "local", "GOFLAGS": "-mod=mod"},
	}, {
		name:     "a -mod in the inherited GOFLAGS is kept",
		set:      []string{"GOFLAGS=-mod=vendor"},
		inv:      GoInvocation{Verb: "build", Args: []string{"."}, ModFlag: "mod"},
		wantArgs: []string{"build", "."},
		wantEnv:  map[string]string{"GOTOOLCHAIN": "local", "GOFLAGS": "-mod=vendor"},
	}, {
		name:     "a -mod in Env is kept",
		set:      []string{"GOFLAGS=-tags=x"},
		inv:      GoInvocation{Verb: "build", Args: []string{"."}, ModFlag: "mod", Env: []string{"GOFLAGS=-mod=readonly"}},
		wantArgs: []string{"build", "."},
		wantEnv:  map[string]string{"GOTOOLCHAIN": "local", "GOFLAGS": "-mod=readonly"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			fakeGo(t)
			for _, kv := range tc.set {
				name, value, _ := strings.Cut(kv, "=")
				t.Setenv(name, value)
			}
			dir := t.TempDir()
			tc.inv.Dir = dir
			res, err := tc.inv.Run(context.Background())
			if err != nil || res.ExitCode != 0 {
				t.Fatalf("exit %d, err %v: %s", res.ExitCode, err, res.Stderr)
			}
			var args []string
			env := map[string]string{}
			for _, line := range strings.Split(strings.TrimSuffix(string(res.Stdout), "\n"), "\n") {
				if a, ok := strings.CutPrefix(line, "arg "); ok {
					args = append(args, a)
					continue
				}
				name, value, _ := strings.Cut(line, "=")
				env[name] = value
			}
			if diff := cmp.Diff(tc.wantArgs, args); diff != "" {
				t.Errorf("arguments (-want +got):\n%s", diff)
			}
			want := map[string]string{"PWD": dir}
			for k, v := range tc.wantEnv {
				want[k] = v
			}
			got := map[string]string{}
			for _, name := range watched {
				if v, ok := env[name]; ok {
					got[name] = v
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("environment (-want +got):\n%s", diff)
			}
		})
	}
}

func TestGoInvocationNeedsAVerb(t *testing.T) {
	if _, err := (GoInvocation{Args: []string{"./..."}}).Run(context.Background()); err == nil {
		t.Error("a go command without a verb ran")
	}
}
