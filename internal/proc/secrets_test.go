package proc_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/culprit-dev/culprit/analyzer/trace/instrument"
	"github.com/culprit-dev/culprit/analyzer/trial"
	"github.com/culprit-dev/culprit/diffhunks"
)

// secrets are what a GitHub runner (and the bot's host) holds that a pull
// request's test must not read: credentials named like them or not, and a
// harmless setting that is on no allow-list either.
var secrets = []string{
	"GITHUB_TOKEN", "GH_TOKEN", "INPUT_GITHUB-TOKEN", "INPUT_GITHUB_TOKEN",
	"ACTIONS_RUNTIME_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_URL",
	"ACTIONS_CACHE_URL", "ACTIONS_RUNTIME_URL", "ACTIONS_RESULTS_URL",
	"CULPRIT_WEBHOOK_SECRET", "CULPRIT_PRIVATE_KEY", "CULPRIT_APP_ID",
	"NPM_TOKEN", "AWS_SECRET_ACCESS_KEY", "DB_PASSWORD", "SIGNING_KEY", "MY_SECRET",
	"GITHUB_ENV", "GITHUB_OUTPUT", "GITHUB_PATH", "GITHUB_STATE",
	"GH_PAT", "NPM_AUTH", "DATABASE_URL", "OPENAI_APIKEY", "GITHUB_TOKEN_2",
	"PLAIN_SETTING",
}

// setSecrets puts every secret, one credential to pass through (passed)
// and an allow-listed variable into this process's environment.
func setSecrets(t *testing.T) {
	for _, s := range secrets {
		t.Setenv(s, "leaked-"+s)
	}
	t.Setenv("DEPLOY_KEY", "passed")
	t.Setenv("CI", "kept")
	t.Setenv("GOTOOLCHAIN", "auto")
}

// passed is the passthrough list the runs below are given.
var passed = []string{"DEPLOY_KEY"}

// leakModule writes a git repository whose TestLeak fails when it can read
// any secret, misses the passed-through or the allow-listed variable, or runs
// with a toolchain other than the local one.
func leakModule(t *testing.T) (dir, head string) {
	dir = t.TempDir()
	var b strings.Builder
	b.WriteString("package leak\n\nimport (\n\t\"os\"\n\t\"testing\"\n)\n\nfunc TestLeak(t *testing.T) {\n")
	for _, s := range secrets {
		fmt.Fprintf(&b, "\tif v, ok := os.LookupEnv(%q); ok {\n\t\tt.Errorf(\"LEAK %%s=%%s\", %q, v)\n\t}\n", s, s)
	}
	b.WriteString("\tfor _, kv := range os.Environ() {\n\t\tif len(kv) > 7 && kv[:7] == \"leaked-\" {\n\t\t\tt.Errorf(\"LEAK %s\", kv)\n\t\t}\n\t}\n")
	b.WriteString("\tif os.Getenv(\"DEPLOY_KEY\") != \"passed\" || os.Getenv(\"CI\") != \"kept\" {\n\t\tt.Errorf(\"MISSING passthrough or allow-listed variable\")\n\t}\n")
	b.WriteString("\tif os.Getenv(\"GOTOOLCHAIN\") != \"local\" {\n\t\tt.Errorf(\"GOTOOLCHAIN=%s\", os.Getenv(\"GOTOOLCHAIN\"))\n\t}\n}\n")
	files := map[string]string{
		"go.mod":       "module example.com/leak\n\ngo 1.22\n",
		"leak_test.go": b.String(),
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{
		{"init", "-q"}, {"add", "."},
		{"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "leak"},
	} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	out, err := exec.Command("git", "-C", dir, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	return dir, strings.TrimSpace(string(out))
}

type noVariants struct{}

func (noVariants) Variant([]diffhunks.ID) (map[string][]byte, []string, error) { return nil, nil, nil }

func TestTrialSeesNoSecret(t *testing.T) {
	setSecrets(t)
	dir, head := leakModule(t)
	ctx := context.Background()
	r, err := trial.New(ctx, trial.Config{Dir: dir, Head: head, Variants: noVariants{}, Pkg: ".", Test: "TestLeak", Timeout: 2 * time.Minute, Passthrough: passed})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	res, err := r.Run(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != trial.Pass {
		t.Fatalf("trial outcome %s; the test saw:\n%s", res.Outcome, res.Output)
	}
}

func TestTraceSeesNoSecret(t *testing.T) {
	setSecrets(t)
	dir, _ := leakModule(t)
	tr, err := instrument.Run(context.Background(), instrument.Config{Dir: dir, Pkg: ".", Test: "TestLeak", TraceDir: t.TempDir(), Passthrough: passed})
	if err != nil {
		t.Fatal(err)
	}
	if !tr.Result.Passed {
		t.Fatalf("traced run failed; the test saw:\n%s", tr.Result.Output)
	}
}

// TestLeakTestCatchesLeaks runs the same test with the parent's whole
// environment, so that the two tests above cannot pass because the probe
// is blind.
func TestLeakTestCatchesLeaks(t *testing.T) {
	setSecrets(t)
	dir, _ := leakModule(t)
	cmd := exec.Command("go", "test", "-count=1", "-run", "^TestLeak$", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the probe passed with every secret in its environment:\n%s", out)
	}
	for _, s := range secrets {
		if !strings.Contains(string(out), "LEAK "+s+"=") {
			t.Errorf("the probe did not report %s:\n%s", s, out)
		}
	}
}
