package trial

import (
	"context"
	"testing"

	"github.com/culprit-dev/culprit/diffhunks"
)

// secretVars are what a runner of the Action holds; none may reach the
// pull request's test.
var secretVars = []string{
	"GITHUB_TOKEN", "GH_TOKEN", "INPUT_GITHUB-TOKEN", "ACTIONS_RUNTIME_TOKEN",
	"ACTIONS_ID_TOKEN_REQUEST_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_URL", "CULPRIT_WEBHOOK_SECRET", "NPM_TOKEN",
}

// A test that reports every secret it can read, and one variable the
// analysis passes through on purpose.
const secretsTest = `package leak

import (
	"os"
	"testing"
)

func TestLeak(t *testing.T) {
	for _, k := range []string{"GITHUB_TOKEN", "GH_TOKEN", "INPUT_GITHUB-TOKEN", "ACTIONS_RUNTIME_TOKEN",
		"ACTIONS_ID_TOKEN_REQUEST_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_URL", "CULPRIT_WEBHOOK_SECRET", "NPM_TOKEN"} {
		if v, ok := os.LookupEnv(k); ok {
			t.Errorf("the test read %s=%s", k, v)
		}
	}
	if os.Getenv("TEST_API_TOKEN") != "for-tests" {
		t.Errorf("the passed-through TEST_API_TOKEN is missing")
	}
}
`

func TestTrialSeesNoSecrets(t *testing.T) {
	for _, k := range secretVars {
		t.Setenv(k, "secret-"+k)
	}
	t.Setenv("TEST_API_TOKEN", "for-tests")
	dir, head := gitRepo(t, map[string]string{
		"go.mod":            "module example.com/m\n\ngo 1.22\n",
		"leak/leak.go":      "package leak\n",
		"leak/leak_test.go": secretsTest,
	})
	for _, mode := range []string{ModeGo, ModeCommand} {
		t.Run(mode, func(t *testing.T) {
			r := newRunner(t, Config{Dir: dir, Head: head, Variants: fileVariants{}, Mode: mode, Pkg: "./leak", Test: "TestLeak",
				TestCommand: "go test -count=1 -run TestLeak ./leak", Passthrough: []string{"TEST_API_TOKEN"}})
			res, err := r.Run(context.Background(), []diffhunks.ID{})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Passed() {
				t.Errorf("outcome %s: the test saw secrets or missed its pass-through:\n%s%s", res.Outcome, res.Message, res.Output)
			}
		})
	}
}
