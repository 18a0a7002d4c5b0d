package proc

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestEnvDropsUnlistedSecrets sets credentials that no name pattern
// recognises; each must be missing from Env.
func TestEnvDropsUnlistedSecrets(t *testing.T) {
	for _, tc := range []struct{ name, value string }{
		{"GH_PAT", "ghp_leaked"},
		{"NPM_AUTH", "npm_leaked"},
		{"DATABASE_URL", "postgres://u:pw@db.example.com/app"},
		{"OPENAI_APIKEY", "sk-leaked"},
		{"GITHUB_TOKEN_2", "ghs_leaked"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(tc.name, tc.value)
			if i := slices.IndexFunc(Env(nil), func(kv string) bool { return strings.HasPrefix(kv, tc.name+"=") }); i >= 0 {
				t.Errorf("Env(nil) has %s", Env(nil)[i])
			}
		})
	}
}

func TestEnv(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  []string // NAME=value, set in this process
		pass []string
		want []string // what Env holds of the names in set, sorted
	}{{
		name: "allow-listed names are kept",
		set: []string{
			"GOPROXY=https://proxy.golang.org,direct", "GOPRIVATE=example.com/*", "GONOSUMDB=example.com",
			"GOMAXPROCS=2", "GODEBUG=panicnil=1", "CGO_ENABLED=1", "CGO_CFLAGS=-O2", "CC=gcc",
			"LC_ALL=C", "TZ=UTC", "XDG_CACHE_HOME=/c", "SSL_CERT_FILE=/etc/ca.pem",
			"HTTPS_PROXY=http://proxy:3128", "no_proxy=localhost",
			"CI=true", "GITHUB_ACTIONS=true", "RUNNER_OS=Linux", "RUNNER_ARCH=X64",
		},
		want: []string{
			"CC=gcc", "CGO_CFLAGS=-O2", "CGO_ENABLED=1", "CI=true",
			"GITHUB_ACTIONS=true", "GODEBUG=panicnil=1", "GOMAXPROCS=2", "GONOSUMDB=example.com",
			"GOPRIVATE=example.com/*", "GOPROXY=https://proxy.golang.org,direct", "GOTOOLCHAIN=local",
			"HTTPS_PROXY=http://proxy:3128", "LC_ALL=C", "RUNNER_ARCH=X64", "RUNNER_OS=Linux",
			"SSL_CERT_FILE=/etc/ca.pem", "TZ=UTC", "XDG_CACHE_HOME=/c", "no_proxy=localhost",
		},
	}, {
		name: "look-alikes and the runner's own variables are dropped",
		set: []string{
			"GO_TOKEN=x", "GOOGLE_API_KEY=x", "GOPASS=x", "CGO_TOKEN=x", "LC_SECRET=x", "Path=x",
			"GITHUB_TOKEN=x", "INPUT_GITHUB_TOKEN=x", "ACTIONS_RUNTIME_TOKEN=x", "CULPRIT_PRIVATE_KEY=x",
			"GITHUB_ENV=x", "GITHUB_WORKSPACE=x", "RUNNER_TEMP=x", "SSH_AUTH_SOCK=x", "PLAIN_SETTING=x",
		},
		want: []string{"GOTOOLCHAIN=local"},
	}, {
		name: "passed-through names are kept whatever they look like",
		set:  []string{"GH_PAT=ghp_x", "API_KEY=k", "UNLISTED=u"},
		pass: ParsePassthrough("GH_PAT, API_KEY\nNOT_SET"),
		want: []string{"API_KEY=k", "GH_PAT=ghp_x", "GOTOOLCHAIN=local"},
	}, {
		// The workflow's own setting, which the go command needs to
		// download modules at all (see the allow-list's comment).
		name: "a proxy with credentials in it is kept",
		set:  []string{"GOPROXY=https://u:pw@proxy.example.com", "https_proxy=http://u:pw@proxy:3128"},
		want: []string{"GOPROXY=https://u:pw@proxy.example.com", "GOTOOLCHAIN=local", "https_proxy=http://u:pw@proxy:3128"},
	}, {
		name: "GOTOOLCHAIN is local even when passed through",
		set:  []string{"GOTOOLCHAIN=go1.99.0"},
		pass: []string{"GOTOOLCHAIN"},
		want: []string{"GOTOOLCHAIN=local"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			names := map[string]bool{"GOTOOLCHAIN": true}
			for _, kv := range tc.set {
				name, value, _ := strings.Cut(kv, "=")
				t.Setenv(name, value)
				names[name] = true
			}
			var got []string
			for _, kv := range Env(tc.pass) {
				if name, _, _ := strings.Cut(kv, "="); names[name] {
					got = append(got, kv)
				}
			}
			slices.Sort(got)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Env() (-want +got):\n%s", diff)
			}
		})
	}
}

// A passthrough list holds for the command it is given to only.
func TestPassthroughPerCommand(t *testing.T) {
	t.Setenv("API_KEY", "k")
	if !slices.Contains(Env([]string{"API_KEY"}), "API_KEY=k") {
		t.Fatal("API_KEY dropped although passed through")
	}
	if slices.Contains(Env(nil), "API_KEY=k") {
		t.Error("API_KEY kept for a command that did not pass it through")
	}
}

func TestParsePassthrough(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []string
	}{
		{"empty", "", []string{}},
		{"commas and spaces", " A,B  C\n", []string{"A", "B", "C"}},
		{"lines", "A\r\nB\tC", []string{"A", "B", "C"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, ParsePassthrough(tc.in)); diff != "" {
				t.Errorf("ParsePassthrough(%q) (-want +got):\n%s", tc.in, diff)
			}
		})
	}
}

// TestEnvRunsGo runs the go command under Env as culprit does: it must find
// the same toolchain, paths and caches as under the full environment, and
// build and test a module that uses cgo and reads a passed-through and an
// allow-listed variable.
func TestEnvRunsGo(t *testing.T) {
	t.Setenv("GH_PAT", "ghp_leaked")
	t.Setenv("API_TOKEN", "passed")
	t.Setenv("CI", "true")
	ctx := context.Background()

	vars := []string{"GOROOT", "GOPATH", "GOCACHE", "GOMODCACHE", "GOENV", "GOPROXY", "GOFLAGS", "CGO_ENABLED", "CC"}
	full, err := exec.Command("go", append([]string{"env"}, vars...)...).Output()
	if err != nil {
		t.Fatalf("go env: %v", err)
	}
	res, err := Run(ctx, Cmd{Name: "go", Args: append([]string{"env"}, vars...), Timeout: time.Minute})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("go env under Env: exit %d, %v\n%s", res.ExitCode, err, res.Stderr)
	}
	if diff := cmp.Diff(string(full), string(res.Stdout)); diff != "" {
		t.Errorf("go env %s (-full environment +Env):\n%s", strings.Join(vars, " "), diff)
	}

	dir := t.TempDir()
	for name, content := range map[string]string{
		"go.mod": "module example.com/probe\n\ngo 1.22\n",
		"abs.go": "package probe\n\n// #include <stdlib.h>\nimport \"C\"\n\nfunc Abs(x int) int { return int(C.abs(C.int(x))) }\n",
		"probe_test.go": `package probe

import (
	"os"
	"testing"
)

func TestProbe(t *testing.T) {
	if Abs(-2) != 2 {
		t.Error("cgo Abs(-2) != 2")
	}
	if _, ok := os.LookupEnv("GH_PAT"); ok {
		t.Error("LEAK GH_PAT")
	}
	if os.Getenv("API_TOKEN") != "passed" || os.Getenv("CI") != "true" {
		t.Error("MISSING API_TOKEN or CI")
	}
}
`,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res, err = Run(ctx, Cmd{Name: "go", Args: []string{"test", "-count=1", "."}, Dir: dir, Passthrough: []string{"API_TOKEN"}, Timeout: 2 * time.Minute})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("go test under Env: exit %d, %v\n%s%s", res.ExitCode, err, res.Stdout, res.Stderr)
	}
}
