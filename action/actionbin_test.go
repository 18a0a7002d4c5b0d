package action_test

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// These tests run action.yml with a stand-in for the culprit binary (a
// script writing the outputs), to check how the action finds its binary:
// the cache, a release, or a build. The build itself is TestActionYAML's.

// standIn is a culprit-action that only reports.
const standIn = "#!/bin/bash\n{ echo status=explained; echo culprits=2; echo report-json=; } >> \"$GITHUB_OUTPUT\"\n"

var wantStandInOutputs = map[string]string{"status": "explained", "culprits": "2", "report-json": "", "comment-id": "", "comment-url": ""}

// noGoPath is a PATH with the shell tools a runner has but no Go.
const noGoPath = "/usr/bin:/bin"

func binTestEnv(t *testing.T) (actionPath string, env map[string]string) {
	t.Helper()
	if _, err := os.Stat("/usr/include/z3.h"); err != nil {
		t.Skip("libz3-dev is not installed; the action's first step would install it with sudo")
	}
	for _, dir := range filepath.SplitList(noGoPath) {
		if _, err := os.Stat(filepath.Join(dir, "go")); err == nil {
			t.Skipf("%s has go; the tests need a PATH without it", dir)
		}
	}
	actionPath, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	env = map[string]string{
		"RUNNER_TEMP":      filepath.Join(tmp, "runner-temp"),
		"GITHUB_WORKSPACE": filepath.Join(tmp, "workspace"),
		// Any release download goes to a test's server, or nowhere.
		"CULPRIT_RELEASE_URL": "http://127.0.0.1:1/releases/download",
	}
	for _, d := range []string{env["RUNNER_TEMP"], env["GITHUB_WORKSPACE"]} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return actionPath, env
}

// sourceHash is the action's own identity of its sources.
func sourceHash(t *testing.T, actionPath string) string {
	t.Helper()
	out, err := exec.Command("bash", filepath.Join(actionPath, "action", "sourcehash.sh"), actionPath).Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// installedBin is where the analyze mode keeps its binary: the directory
// it caches.
func installedBin(env map[string]string) string {
	return filepath.Join(env["RUNNER_TEMP"], "culprit-action", "culprit-action")
}

// freshBin is the binary the modes with a write token installed: the one
// in the fresh directory of this run.
func freshBin(t *testing.T, env map[string]string) string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(env["RUNNER_TEMP"], "culprit-fresh.*", "culprit-action"))
	if len(m) != 1 {
		t.Fatalf("fresh binaries %v, want one", m)
	}
	return m[0]
}

// TestActionBinaryCached: in the analyze mode with Go, the binary is cached
// under a key of the runner, Go, Z3 and the sources, and a restored binary
// of these sources is used without building (and not saved again).
func TestActionBinaryCached(t *testing.T) {
	actionPath, env := binTestEnv(t)
	bin := installedBin(env)
	os.MkdirAll(filepath.Dir(bin), 0o755)
	src := sourceHash(t, actionPath)
	if err := os.WriteFile(bin, []byte(standIn), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(bin+".source", []byte(src+"\n"), 0o644)

	gover := exec.Command("go", "env", "GOVERSION")
	gover.Dir, gover.Env = "/", append(os.Environ(), "GOTOOLCHAIN=local")
	goVersion, err := gover.Output()
	if err != nil {
		t.Fatal(err)
	}
	z3, err := os.ReadFile("/usr/include/z3_version.h")
	if err != nil {
		t.Fatal(err)
	}
	z3Sum := sha256.Sum256(z3)

	run := runComposite(t, actionPath, map[string]string{"mode": "analyze"}, env)
	if run.err != nil {
		t.Fatalf("%v\n%s", run.err, run.log)
	}
	if d := cmp.Diff(wantStandInOutputs, run.outputs); d != "" {
		t.Errorf("outputs (-want +got): the restored binary did not run\n%s\n%s", d, run.log)
	}
	want := []usedAction{{uses: "actions/cache/restore@v4", with: map[string]string{
		"path": filepath.Join(env["RUNNER_TEMP"], "culprit-action"),
		"key": "culprit-action-Linux-X64-" + strings.TrimSpace(string(goVersion)) +
			"-linux-z3" + hex.EncodeToString(z3Sum[:])[:12] + "-" + src,
	}}}
	if d := cmp.Diff(want, run.uses, cmp.AllowUnexported(usedAction{})); d != "" {
		t.Errorf("actions used (-want +got):\n%s", d)
	}
}

// TestActionBinaryFromRelease: without Go, the release binary of VERSION
// is used when it was built from the action's own sources and matches
// the release's checksums; anything else fails with a clear error rather
// than running a binary of other sources.
func TestActionBinaryFromRelease(t *testing.T) {
	version, err := os.ReadFile("../VERSION")
	if err != nil {
		t.Fatal(err)
	}
	sum := func(b string) string {
		s := sha256.Sum256([]byte(b))
		return hex.EncodeToString(s[:])
	}
	for _, tc := range []struct {
		name      string
		arch      string
		source    string // the release's SOURCE; "" is the action's own
		sums      string // the release's SHA256SUMS; "" is the right one
		noRelease bool
		stale     bool   // a cached binary of other sources is present
		version   string // the version input
		wantFiles []string
		wantError string // a line of the log; "" means success
	}{
		{name: "release of these sources", wantFiles: []string{"SOURCE", "SHA256SUMS", "culprit-action-linux-amd64"}},
		{name: "arm64 runner", arch: "ARM64", wantFiles: []string{"SOURCE", "SHA256SUMS", "culprit-action-linux-arm64"}},
		{name: "stale cached binary replaced", stale: true, wantFiles: []string{"SOURCE", "SHA256SUMS", "culprit-action-linux-amd64"}},
		{name: "release of other sources", source: "0123456789abcdef0123456789abcdef", wantFiles: []string{"SOURCE"},
			wantError: "::error::culprit needs Go to build itself: add actions/setup-go before this action, or use it at a release version (see docs/action.md)"},
		{name: "no release", noRelease: true, wantFiles: []string{"SOURCE"},
			wantError: "::error::culprit needs Go to build itself: add actions/setup-go before this action, or use it at a release version (see docs/action.md)"},
		{name: "binary not the one released", sums: sum("another binary") + "  culprit-action-linux-amd64\n",
			wantFiles: []string{"SOURCE", "SHA256SUMS", "culprit-action-linux-amd64"},
			wantError: "::error::culprit: the release binary culprit-action-linux-amd64 of v" + strings.TrimSpace(string(version)) + " does not match the release's SHA256SUMS"},
		// The version input runs another release's binary, whatever
		// sources it was built from, and never builds in its place.
		{name: "version input", version: "0.9.1", source: "0123456789abcdef0123456789abcdef",
			wantFiles: []string{"SHA256SUMS", "culprit-action-linux-amd64"}},
		{name: "version input with a v", version: "v0.9.1", wantFiles: []string{"SHA256SUMS", "culprit-action-linux-amd64"}},
		{name: "version input not released", version: "0.9.1", noRelease: true, wantFiles: []string{"SHA256SUMS"},
			wantError: "::error::culprit: no binary of release v0.9.1 for this runner (input version); nothing is built in its place"},
		{name: "version input, binary not the one released", version: "0.9.1", sums: sum("another binary") + "  culprit-action-linux-amd64\n",
			wantFiles: []string{"SHA256SUMS", "culprit-action-linux-amd64"},
			wantError: "::error::culprit: the release binary culprit-action-linux-amd64 of v0.9.1 does not match the release's SHA256SUMS"},
		{name: "version input not a release number", version: "latest; curl evil.example", wantFiles: nil,
			wantError: "::error::culprit: input version must be a release number like 1.2.3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			actionPath, env := binTestEnv(t)
			env["PATH"] = noGoPath
			if tc.arch != "" {
				env["RUNNER_ARCH"] = tc.arch
			}
			src := sourceHash(t, actionPath)
			if tc.source == "" {
				tc.source = src
			}
			if tc.sums == "" {
				tc.sums = sum(standIn) + "  culprit-action-linux-amd64\n" + sum(standIn) + "  culprit-action-linux-arm64\n"
			}
			files := map[string]string{
				"SOURCE": tc.source + "\n", "SHA256SUMS": tc.sums,
				"culprit-action-linux-amd64": standIn, "culprit-action-linux-arm64": standIn,
			}
			if tc.stale {
				bin := installedBin(env)
				os.MkdirAll(filepath.Dir(bin), 0o755)
				os.WriteFile(bin, []byte("#!/bin/bash\nexit 3\n"), 0o755)
				os.WriteFile(bin+".source", []byte("old sources\n"), 0o644)
			}
			var (
				mu  sync.Mutex
				got []string
			)
			released := strings.TrimSpace(string(version))
			if tc.version != "" {
				released = strings.TrimPrefix(tc.version, "v")
			}
			prefix := "/releases/download/v" + released + "/"
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				name, ok := strings.CutPrefix(r.URL.Path, prefix)
				body, known := files[name]
				if r.Method != http.MethodGet || !ok || !known {
					t.Errorf("release server: unexpected %s %s", r.Method, r.URL.Path)
					http.NotFound(w, r)
					return
				}
				mu.Lock()
				got = append(got, name)
				mu.Unlock()
				if tc.noRelease {
					http.NotFound(w, r)
					return
				}
				w.Write([]byte(body))
			}))
			defer srv.Close()
			env["CULPRIT_RELEASE_URL"] = srv.URL + "/releases/download"

			var with map[string]string
			if tc.version != "" {
				with = map[string]string{"version": tc.version}
			}
			run := runComposite(t, actionPath, with, env)
			if d := cmp.Diff(tc.wantFiles, got); d != "" {
				t.Errorf("release files fetched (-want +got):\n%s", d)
			}
			if len(run.uses) != 0 {
				t.Errorf("actions used without Go: %v; want no cache step", run.uses)
			}
			if tc.wantError != "" {
				if run.err == nil || !strings.Contains(run.log, "\n"+tc.wantError+"\n") {
					t.Errorf("err %v; want a failure with the line %q\n%s", run.err, tc.wantError, run.log)
				}
				m, _ := filepath.Glob(filepath.Join(env["RUNNER_TEMP"], "*", "culprit-action"))
				for _, bin := range m {
					if b, err := os.ReadFile(bin); err == nil && string(b) == standIn {
						t.Errorf("the refused binary was installed at %s", bin)
					}
				}
				return
			}
			if run.err != nil {
				t.Fatalf("%v\n%s", run.err, run.log)
			}
			if d := cmp.Diff(wantStandInOutputs, run.outputs); d != "" {
				t.Errorf("outputs (-want +got): the release binary did not run\n%s\n%s", d, run.log)
			}
			want := src
			if tc.version != "" {
				want = "release-v" + released
			}
			if b, _ := os.ReadFile(freshBin(t, env) + ".source"); strings.TrimSpace(string(b)) != want {
				t.Errorf("stamp %q, want %s", b, want)
			}
		})
	}
}
