package action

import (
	"io"
	"testing"

	"github.com/sethvargo/go-githubactions"
)

// TestReadExecutor reads the executor inputs as the composite action
// passes them.
func TestReadExecutor(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		want    string
		runners int
		minutes int
		bad     bool
	}{
		{name: "defaults", want: "local", runners: 8},
		{name: "actions", env: map[string]string{"INPUT_EXECUTOR": "actions", "INPUT_MAX_RUNNERS": "32", "INPUT_RUNNER_MINUTES": "120"}, want: "actions", runners: 32, minutes: 120},
		{name: "unknown executor", env: map[string]string{"INPUT_EXECUTOR": "kubernetes"}, bad: true},
		{name: "no runners", env: map[string]string{"INPUT_MAX_RUNNERS": "0"}, bad: true},
		{name: "negative minutes", env: map[string]string{"INPUT_RUNNER_MINUTES": "-1"}, bad: true},
		{name: "command mode", env: map[string]string{"INPUT_EXECUTOR": "actions", "INPUT_TEST_COMMAND": "make test"}, bad: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := githubactions.New(githubactions.WithGetenv(func(k string) string { return tc.env[k] }), githubactions.WithWriter(io.Discard))
			c := &Config{TestCommand: tc.env["INPUT_TEST_COMMAND"]}
			err := c.readExecutor(a)
			if tc.bad {
				if err == nil {
					t.Errorf("accepted: %+v", c)
				}
				return
			}
			if err != nil || c.Executor != tc.want || c.MaxRunners != tc.runners || c.RunnerMinutes != tc.minutes {
				t.Errorf("got %q, %d runners, %d minutes, %v", c.Executor, c.MaxRunners, c.RunnerMinutes, err)
			}
		})
	}
}
