package action_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fakeGo is a go command that records each call (its arguments and the
// variables that steer a build) and, for a build, writes the stand-in
// binary where -o says.
const fakeGo = `#!/bin/bash
{
  printf 'args=%s\n' "$*"
  for v in GOENV GOFLAGS GOTOOLCHAIN GOCACHE GOWORK; do
    printf '%s=%s\n' "$v" "${!v-<unset>}"
  done
  echo ---
} >> "$FAKE_GO_LOG"
while [ $# -gt 0 ]; do
  if [ "$1" = -o ]; then cp "$FAKE_GO_STANDIN" "$2"; chmod 755 "$2"; fi
  shift
done
`

// TestActionBinaryWriteTokenNeverRestored replays the cache poisoning of a
// job that holds a write token: a job running pull-request code left a
// binary and a stamp matching the sources where the cache is restored, and
// a go env file that asks every build to run a tool of its choosing. The
// comment mode and the one-job mode must not restore a cache, must not run
// that binary, and must build in an environment that ignores the env file
// and any earlier build cache.
func TestActionBinaryWriteTokenNeverRestored(t *testing.T) {
	for _, mode := range []string{"comment", "analyze-and-comment"} {
		t.Run(mode, func(t *testing.T) {
			actionPath, env := binTestEnv(t)
			tmp := t.TempDir()

			// What the poisoned cache holds: a binary of "these sources".
			planted := installedBin(env)
			ran := filepath.Join(tmp, "planted-ran")
			os.MkdirAll(filepath.Dir(planted), 0o755)
			os.WriteFile(planted, []byte("#!/bin/bash\ntouch "+ran+"\n"+strings.TrimPrefix(standIn, "#!/bin/bash\n")), 0o755)
			os.WriteFile(planted+".source", []byte(sourceHash(t, actionPath)+"\n"), 0o644)
			// What the pull request's job left for later builds.
			goenv := filepath.Join(tmp, "go.env")
			os.WriteFile(goenv, []byte("GOFLAGS=-toolexec=/planted/tool\n"), 0o644)
			oldCache := filepath.Join(tmp, "gocache")
			os.MkdirAll(oldCache, 0o755)

			bin := filepath.Join(tmp, "bin")
			os.MkdirAll(bin, 0o755)
			os.WriteFile(filepath.Join(bin, "go"), []byte(fakeGo), 0o755)
			os.WriteFile(filepath.Join(tmp, "standin"), []byte(standIn), 0o755)
			log := filepath.Join(tmp, "go.log")
			env["PATH"] = bin + ":" + noGoPath
			env["FAKE_GO_LOG"] = log
			env["FAKE_GO_STANDIN"] = filepath.Join(tmp, "standin")
			env["GOENV"] = goenv
			env["GOFLAGS"] = "-toolexec=/planted/tool"
			env["GOCACHE"] = oldCache
			env["GOTOOLCHAIN"] = "go1.99.0"

			run := runComposite(t, actionPath, map[string]string{"mode": mode}, env)
			if run.err != nil {
				t.Fatalf("%v\n%s", run.err, run.log)
			}
			if _, err := os.Stat(ran); err == nil {
				t.Errorf("the binary restored from the cache ran\n%s", run.log)
			}
			if len(run.uses) != 0 {
				t.Errorf("actions used %v; want no cache restored or saved", run.uses)
			}
			if d := cmp.Diff(wantStandInOutputs, run.outputs); d != "" {
				t.Errorf("outputs (-want +got): the fresh build did not run\n%s\n%s", d, run.log)
			}
			data, err := os.ReadFile(log)
			if err != nil {
				t.Fatalf("go was never run: %v\n%s", err, run.log)
			}
			var calls []string
			for _, call := range strings.Split(strings.TrimSuffix(string(data), "---\n"), "---\n") {
				vars := map[string]string{}
				for _, l := range strings.Split(strings.TrimSpace(call), "\n") {
					k, v, _ := strings.Cut(l, "=")
					vars[k] = v
				}
				args := strings.Fields(vars["args"])
				if len(args) > 1 {
					calls = append(calls, args[0]+" "+args[1])
				}
				if vars["GOENV"] != "off" || vars["GOFLAGS"] != "" || vars["GOTOOLCHAIN"] != "local" || vars["GOWORK"] != "off" {
					t.Errorf("go %s ran with GOENV=%q GOFLAGS=%q GOTOOLCHAIN=%q GOWORK=%q; want off, empty, local, off",
						vars["args"], vars["GOENV"], vars["GOFLAGS"], vars["GOTOOLCHAIN"], vars["GOWORK"])
				}
				if c := vars["GOCACHE"]; c == oldCache || !strings.HasPrefix(c, env["RUNNER_TEMP"]+"/culprit-build.") {
					t.Errorf("go %s ran with GOCACHE=%q; want a new directory of this step", vars["args"], c)
				}
			}
			if d := cmp.Diff([]string{"mod verify", "build -mod=readonly"}, calls); d != "" {
				t.Errorf("go commands (-want +got):\n%s", d)
			}
			if b, err := os.ReadFile(freshBin(t, env)); err != nil || string(b) != standIn {
				t.Errorf("the fresh directory holds %q (%v), want the built binary", b, err)
			}
		})
	}
}

// TestActionBinaryDispatchNotSaved: an analyze run that was dispatched runs
// on the default branch, whose caches every later run restores; it builds
// but does not save. A pull_request analyze run saves its build.
func TestActionBinaryDispatchNotSaved(t *testing.T) {
	for _, tc := range []struct {
		event    string
		wantSave bool
	}{{"workflow_dispatch", false}, {"pull_request", true}} {
		t.Run(tc.event, func(t *testing.T) {
			actionPath, env := binTestEnv(t)
			tmp := t.TempDir()
			bin := filepath.Join(tmp, "bin")
			os.MkdirAll(bin, 0o755)
			os.WriteFile(filepath.Join(bin, "go"), []byte(fakeGo), 0o755)
			os.WriteFile(filepath.Join(tmp, "standin"), []byte(standIn), 0o755)
			env["PATH"] = bin + ":" + noGoPath
			env["FAKE_GO_LOG"] = filepath.Join(tmp, "go.log")
			env["FAKE_GO_STANDIN"] = filepath.Join(tmp, "standin")
			env["GITHUB_EVENT_NAME"] = tc.event

			run := runComposite(t, actionPath, map[string]string{"mode": "analyze"}, env)
			if run.err != nil {
				t.Fatalf("%v\n%s", run.err, run.log)
			}
			var got []string
			for _, u := range run.uses {
				got = append(got, u.uses)
			}
			want := []string{"actions/cache/restore@v4"}
			if tc.wantSave {
				want = append(want, "actions/cache/save@v4")
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("actions used (-want +got):\n%s", d)
			}
			if d := cmp.Diff(wantStandInOutputs, run.outputs); d != "" {
				t.Errorf("outputs (-want +got)\n%s\n%s", d, run.log)
			}
		})
	}
}
