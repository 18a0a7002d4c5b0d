package action_test

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestTrialsWorkflowIsReadOnly: the trials workflow runs pull-request
// code, so it may read and nothing more, uses no secret, keeps no
// credentials in its checkouts, checks out the head it is given, and
// uploads the outcomes under the name the analyze job looks for.
func TestTrialsWorkflowIsReadOnly(t *testing.T) {
	const path = "../.github/workflows/culprit-trials.yml"
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), "secrets.") {
		t.Error("the trials workflow uses a secret")
	}
	doc := readYAML(t, path)
	if diff := cmp.Diff(map[string]any{"contents": "read", "actions": "read"}, doc["permissions"]); diff != "" {
		t.Errorf("permissions (-want +got):\n%s", diff)
	}
	on := doc["on"].(map[string]any)
	for _, trigger := range []string{"workflow_dispatch", "workflow_call"} {
		if _, ok := on[trigger]; !ok {
			t.Errorf("not triggered by %s", trigger)
		}
	}
	job := doc["jobs"].(map[string]any)["shard"].(map[string]any)
	if _, ok := job["permissions"]; ok {
		t.Error("the shard job sets its own permissions")
	}
	var checkouts, uploads int
	for _, s := range job["steps"].([]any) {
		step := s.(map[string]any)
		with, _ := step["with"].(map[string]any)
		switch step["uses"] {
		case "actions/checkout@v4":
			checkouts++
			if with["persist-credentials"] != "false" {
				t.Errorf("checkout keeps credentials: %v", with)
			}
			if with["repository"] == nil && with["ref"] != "${{ inputs.head }}" {
				t.Errorf("the repository's checkout is at %v, want inputs.head", with["ref"])
			}
		case "actions/upload-artifact@v4":
			uploads++
			if with["name"] != "culprit-outcomes-${{ inputs.round-id }}-${{ matrix.shard }}" {
				t.Errorf("outcomes uploaded as %v", with["name"])
			}
		}
		if env, ok := step["env"].(map[string]any); ok {
			for k, v := range env {
				if strings.Contains(v.(string), "token") {
					t.Errorf("step env %s = %v hands a token to a command", k, v)
				}
			}
		}
	}
	if checkouts != 2 || uploads != 1 {
		t.Errorf("%d checkouts and %d uploads, want 2 and 1", checkouts, uploads)
	}
}
