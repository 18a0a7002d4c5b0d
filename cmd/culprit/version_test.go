package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/culprit-dev/culprit/report"
)

// TestVersion: `culprit version` and `culprit --version` print the
// module version and the VCS revision the binary was built from.
func TestVersion(t *testing.T) {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		t.Skip("no build information")
	}
	for _, args := range [][]string{{"version"}, {"--version"}} {
		t.Run(args[0], func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if err := run(context.Background(), args, &stdout, &stderr); err != nil {
				t.Fatalf("%v\n%s", err, stderr.String())
			}
			lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
			if len(lines) != 2 || lines[0] != "culprit "+bi.Main.Version || !strings.HasPrefix(lines[1], "revision ") {
				t.Errorf("output %q, want \"culprit %s\" and a revision line", lines, bi.Main.Version)
			}
		})
	}
}

// TestVersionOfABuild builds culprit from this repository with VCS
// stamping on and checks that `culprit version` names a commit of it.
func TestVersionOfABuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds culprit")
	}
	bin := filepath.Join(t.TempDir(), "culprit")
	build := exec.Command("go", "build", "-buildvcs=true", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatalf("culprit version: %v", err)
	}
	m := regexp.MustCompile(`(?m)^revision ([0-9a-f]{40})( \(modified\))?$`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("culprit version printed %q, want a line \"revision <40 hex digits>\"", out)
	}
	if err := exec.Command("git", "cat-file", "-e", string(m[1])+"^{commit}").Run(); err != nil {
		t.Errorf("revision %s is no commit of this repository: %v", m[1], err)
	}
	if first, _, _ := strings.Cut(string(out), "\n"); first == "culprit (devel)" || first == "culprit " {
		t.Errorf("first line %q: a build from a git checkout has a pseudo-version", first)
	}
}

// TestReportNamesCommits: the JSON report keeps the revisions as they were
// named and adds the commits they resolved to and the build of culprit
// that wrote it.
func TestReportNamesCommits(t *testing.T) {
	sc, repo := materialize(t, "../../testdata/unused-var.txtar")
	var stdout, stderr bytes.Buffer
	args := []string{"explain", "--repo", repo.Dir, "--base", "HEAD~1", "--head", "main", "--run", sc.Test,
		"--strategy", "dynamic", "--format", "json", "--quiet"}
	if err := run(context.Background(), args, &stdout, &stderr); err != nil {
		t.Fatalf("explain: %v\n%s", err, stderr.String())
	}
	var doc struct {
		Base    string `json:"base"`
		Head    string `json:"head"`
		BaseSHA string `json:"base_sha"`
		HeadSHA string `json:"head_sha"`
		Tool    struct {
			Version  string `json:"version"`
			Revision string `json:"revision"`
		} `json:"tool"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil {
		t.Fatalf("report is not JSON: %v\n%s", err, stdout.String())
	}
	if doc.Base != "HEAD~1" || doc.Head != "main" {
		t.Errorf("base %q head %q, want the revisions as named: HEAD~1 main", doc.Base, doc.Head)
	}
	if doc.BaseSHA != repo.Base || doc.HeadSHA != repo.Head {
		t.Errorf("base_sha %q head_sha %q, want %s %s", doc.BaseSHA, doc.HeadSHA, repo.Base, repo.Head)
	}
	if bi, ok := debug.ReadBuildInfo(); ok && doc.Tool.Version != bi.Main.Version {
		t.Errorf("tool.version %q, want %q", doc.Tool.Version, bi.Main.Version)
	}
	// The Action's comment mode reads the artifact back: the new fields
	// survive it.
	r, err := report.ReadJSON(bytes.NewReader(stdout.Bytes()))
	if err != nil {
		t.Fatalf("ReadJSON: %v", err)
	}
	if r.BaseSHA != repo.Base || r.HeadSHA != repo.Head || r.Tool == nil || r.Tool.Version != doc.Tool.Version {
		t.Errorf("read back: base_sha %q head_sha %q tool %+v", r.BaseSHA, r.HeadSHA, r.Tool)
	}
}
