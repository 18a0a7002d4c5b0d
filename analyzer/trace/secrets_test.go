package trace

import (
	"context"
	"testing"
	"time"
)

// TestTracedRunSeesNoSecrets: the traced test binary and its build run
// the pull request's code, so they get none of the runner's secrets; a
// variable passed through by name stays.
func TestTracedRunSeesNoSecrets(t *testing.T) {
	for _, k := range []string{"GITHUB_TOKEN", "GH_TOKEN", "INPUT_GITHUB-TOKEN", "ACTIONS_RUNTIME_TOKEN",
		"ACTIONS_ID_TOKEN_REQUEST_TOKEN", "CULPRIT_WEBHOOK_SECRET"} {
		t.Setenv(k, "secret")
	}
	t.Setenv("TEST_API_TOKEN", "for-tests")
	dir := writeTree(t, map[string][]byte{
		"go.mod": []byte("module example.com/m\n\ngo 1.22\n"),
		"p/p.go": []byte("package p\n\nfunc Get(k string, look func(string) (string, bool)) bool {\n\t_, ok := look(k)\n\treturn ok\n}\n"),
		"p/p_test.go": []byte(`package p

import (
	"os"
	"testing"
)

func TestLeak(t *testing.T) {
	for _, k := range []string{"GITHUB_TOKEN", "GH_TOKEN", "INPUT_GITHUB-TOKEN", "ACTIONS_RUNTIME_TOKEN",
		"ACTIONS_ID_TOKEN_REQUEST_TOKEN", "CULPRIT_WEBHOOK_SECRET"} {
		if Get(k, os.LookupEnv) {
			t.Errorf("the traced test read %s", k)
		}
	}
	if os.Getenv("TEST_API_TOKEN") != "for-tests" {
		t.Errorf("the passed-through TEST_API_TOKEN is missing")
	}
}
`),
	})
	tr, err := Run(context.Background(), Config{Dir: dir, Pkg: "./p", Test: "TestLeak", Timeout: time.Minute,
		TraceDir: t.TempDir(), Passthrough: []string{"TEST_API_TOKEN"}})
	if err != nil {
		t.Fatal(err)
	}
	if !tr.Result.Passed {
		t.Errorf("the traced test saw secrets:\n%s", tr.Result.Output)
	}
}
