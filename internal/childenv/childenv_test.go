package childenv

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFilter(t *testing.T) {
	environ := []string{
		"PATH=/usr/bin", "HOME=/root", "GOFLAGS=-mod=mod", "GOPATH=/go", "CI=true",
		"GITHUB_TOKEN=ghs_x", "GH_TOKEN=ghp_x", "INPUT_GITHUB-TOKEN=ghs_y", "INPUT_MODE=analyze",
		"ACTIONS_RUNTIME_TOKEN=rt", "ACTIONS_ID_TOKEN_REQUEST_TOKEN=id", "ACTIONS_ID_TOKEN_REQUEST_URL=https://x",
		"CULPRIT_WEBHOOK_SECRET=s", "NPM_TOKEN=n", "AWS_SECRET_ACCESS_KEY=a", "DB_PASSWORD=p", "SIGNING_KEY=k",
		"GITHUB_REPOSITORY=o/r", "GITHUB_SHA=abc", "RUNNER_TEMP=/tmp", "TEST_DB_PASSWORD=local",
	}
	got := Filter(environ, []string{"TEST_DB_PASSWORD"})
	want := []string{
		"PATH=/usr/bin", "HOME=/root", "GOFLAGS=-mod=mod", "GOPATH=/go", "CI=true",
		"GITHUB_REPOSITORY=o/r", "GITHUB_SHA=abc", "RUNNER_TEMP=/tmp", "TEST_DB_PASSWORD=local",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Filter (-want +got):\n%s", diff)
	}
}
