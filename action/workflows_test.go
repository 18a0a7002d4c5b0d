package action_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestExampleCommentJobNeedsNoGo: the example's comment job, which holds a
// write token, neither checks out nor sets up Go; it downloads the report
// and runs the action, which then uses the release binary.
func TestExampleCommentJobNeedsNoGo(t *testing.T) {
	doc := readYAML(t, "../.github/workflows/culprit-example.yml")
	job := doc["jobs"].(map[string]any)["comment"].(map[string]any)
	var uses []string
	for _, s := range job["steps"].([]any) {
		step := s.(map[string]any)
		if u, ok := step["uses"].(string); ok {
			uses = append(uses, u)
		}
		if _, ok := step["run"]; ok {
			t.Errorf("comment job runs a command: %v", step["run"])
		}
	}
	want := []string{"actions/download-artifact@v4", "culprit-dev/culprit@v1"}
	if d := cmp.Diff(want, uses); d != "" {
		t.Errorf("comment job steps (-want +got):\n%s", d)
	}
}

// TestReleaseMatchesTheAction: the release workflow publishes the files
// the action downloads, under the names it asks for, and records the
// sources with the same script.
func TestReleaseMatchesTheAction(t *testing.T) {
	release, err := os.ReadFile("../.github/workflows/release.yml")
	if err != nil {
		t.Fatal(err)
	}
	action, err := os.ReadFile("../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`"dist/culprit-action-linux-$ARCH"`, "bash action/sourcehash.sh . > \"dist/SOURCE-$ARCH\"",
		"sha256sum culprit-* > SHA256SUMS", "arch: amd64", "arch: arm64", `tags: ["v*"]`, `"v$(cat VERSION)" != "$TAG"`} {
		if !strings.Contains(string(release), s) {
			t.Errorf("release.yml lacks %s", s)
		}
	}
	for _, s := range []string{`name="culprit-action-linux-$arch"`, `"$base/SOURCE"`, `"$base/SHA256SUMS"`,
		`"$GITHUB_ACTION_PATH/action/sourcehash.sh"`, `"$GITHUB_ACTION_PATH/VERSION"`, `/v$version"`} {
		if !strings.Contains(string(action), s) {
			t.Errorf("action.yml lacks %s", s)
		}
	}
	v, err := os.ReadFile("../VERSION")
	if err != nil {
		t.Fatal(err)
	}
	if ok, _ := regexp.MatchString(`^[0-9]+\.[0-9]+\.[0-9]+\n$`, string(v)); !ok {
		t.Errorf("VERSION = %q, want X.Y.Z and a newline", v)
	}
}

// TestWorkflowsLint runs actionlint (a tool dependency in go.mod) on every
// workflow of the repository, the example among them.
func TestWorkflowsLint(t *testing.T) {
	cmd := exec.Command("go", "tool", "actionlint", "-no-color")
	cmd.Dir = ".."
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("actionlint: %v\n%s", err, out)
	}
}

// TestReadmeSnippetsLint checks every YAML block of the README and the
// docs as a user would paste it: a list of steps goes into a job of a
// pull_request workflow, an `on:` block gets a job, and actionlint must find
// nothing.
func TestReadmeSnippetsLint(t *testing.T) {
	files, _ := filepath.Glob("../docs/*.md")
	files = append([]string{"../README.md"}, files...)
	var blocks [][]string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		blocks = append(blocks, regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(string(data), -1)...)
	}
	if len(blocks) < 2 {
		t.Fatalf("%d yaml blocks in the README and docs, want the one-job snippet and the bot's trigger", len(blocks))
	}
	for i, b := range blocks {
		snippet := b[1]
		var wf string
		switch {
		case strings.HasPrefix(snippet, "- "):
			wf = "on: pull_request\npermissions:\n  contents: read\n  pull-requests: write\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n" + indent(snippet, "      ")
		case strings.HasPrefix(snippet, "on:"):
			wf = snippet + "jobs:\n  explain:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo \"${{ inputs.pr-number }}\"\n"
		default:
			t.Errorf("README yaml block %d is neither a list of steps nor a workflow trigger:\n%s", i+1, snippet)
			continue
		}
		cmd := exec.Command("go", "tool", "actionlint", "-no-color", "-stdin-filename", fmt.Sprintf("README-block-%d.yml", i+1), "-")
		cmd.Stdin = strings.NewReader(wf)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("README yaml block %d: actionlint: %v\n%s\nas checked:\n%s", i+1, err, out, wf)
		}
	}
}

func indent(s, by string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = by + l
		}
	}
	return strings.Join(lines, "\n") + "\n"
}
