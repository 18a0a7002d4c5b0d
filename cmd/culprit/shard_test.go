package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/culprit-dev/culprit/analyzer/trial"
	"github.com/culprit-dev/culprit/diffhunks"
	"github.com/culprit-dev/culprit/internal/shard"
	"github.com/culprit-dev/culprit/internal/testfiles"
	"github.com/google/go-cmp/cmp"
)

// shardRepo is a module whose TestF fails at head (F adds one too many),
// committed in a new repository; it returns the directory and the commit.
func shardRepo(t *testing.T) (string, string) {
	t.Helper()
	dir := t.TempDir()
	testfiles.Write(t, dir, map[string]string{
		"go.mod":       "module example.com/m\n\ngo 1.22\n",
		"calc/calc.go": "package calc\n\nfunc F(x, y int) int {\n\treturn x + y + 1\n}\n",
		"calc/calc_test.go": "package calc\n\nimport \"testing\"\n\nfunc TestF(t *testing.T) {\n\tif got := F(2, 3); got != 5 {\n" +
			"\t\tt.Errorf(\"F(2, 3) = %d, want 5\", got)\n\t}\n}\n",
	})
	gitIn := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
			"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	gitIn("init", "-q", "-b", "main")
	gitIn("add", "-A")
	gitIn("commit", "-q", "-m", "head")
	return dir, gitIn("rev-parse", "HEAD")
}

// shardRound is a round of three trials of shardRepo's TestF: the fix,
// head itself, and a variant that does not compile.
func shardRound(head string) shard.Round {
	req := func(ids []diffhunks.ID, calc string) trial.Request {
		q := trial.Request{Revert: ids, Package: "./calc", Test: "TestF", Timeout: time.Minute}
		if calc != "" {
			q.Files = map[string][]byte{"calc/calc.go": []byte(calc)}
		}
		return q
	}
	return shard.Round{Version: shard.Version, ID: "r1", Head: head, Requests: []trial.Request{
		req([]diffhunks.ID{1}, "package calc\n\nfunc F(x, y int) int {\n\treturn x + y\n}\n"),
		req(nil, ""),
		req([]diffhunks.ID{2}, "package calc\n\nfunc F(x, y int) int {\n\tz := 1\n\treturn x + y\n}\n"),
	}}
}

func writeJSON(t *testing.T, name string, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

// TestShard runs a round of three in two shards on a real checkout: the
// first runs the fix and head, the second the variant that does not
// compile, each with the outcome go test gives.
func TestShard(t *testing.T) {
	repo, head := shardRepo(t)
	tmp := t.TempDir()
	round := writeJSON(t, filepath.Join(tmp, "round.json"), shardRound(head))
	type got struct {
		Revert  []diffhunks.ID
		Outcome trial.Outcome
	}
	want := map[string][]got{
		"0": {{[]diffhunks.ID{1}, trial.Pass}, {nil, trial.Fail}},
		"1": {{[]diffhunks.ID{2}, trial.BuildError}},
	}
	for idx, w := range want {
		out := filepath.Join(tmp, "out"+idx+".json")
		var stdout, stderr bytes.Buffer
		if err := run(t.Context(), []string{"shard", "--round", round, "--out", out, "--repo", repo, "--shard", idx, "--shards", "2"}, &stdout, &stderr); err != nil {
			t.Fatalf("shard %s: %v\n%s", idx, err, stderr.String())
		}
		var f shard.Outcomes
		if err := json.Unmarshal(readFile(t, out), &f); err != nil {
			t.Fatal(err)
		}
		if f.ID != "r1" || f.Version != shard.Version || f.Shards != 2 {
			t.Errorf("shard %s: header %+v", idx, f)
		}
		var g []got
		for _, o := range f.Outcomes {
			g = append(g, got{o.Revert, o.Result.Outcome})
			if o.Result.Duration <= 0 {
				t.Errorf("shard %s: outcome %v has no duration", idx, o.Revert)
			}
		}
		if diff := cmp.Diff(w, g); diff != "" {
			t.Errorf("shard %s outcomes (-want +got):\n%s", idx, diff)
		}
	}
}

// TestShardRejects: a round that is not for the checkout's commit, of
// another version, or that writes outside the repository runs nothing.
func TestShardRejects(t *testing.T) {
	repo, head := shardRepo(t)
	tmp := t.TempDir()
	tests := map[string]func(*shard.Round){
		"other head":     func(r *shard.Round) { r.Head = strings.Repeat("0", 40) },
		"other version":  func(r *shard.Round) { r.Version = 2 },
		"escaping path":  func(r *shard.Round) { r.Requests[0].Files = map[string][]byte{"../x.go": nil} },
		"git directory":  func(r *shard.Round) { r.Requests[0].Deleted = []string{".git/config"} },
		"other test":     func(r *shard.Round) { r.Requests[1].Test = "TestG" },
		"no timeout":     func(r *shard.Round) { r.Requests[0].Timeout = 0 },
		"absolute path":  func(r *shard.Round) { r.Requests[2].Files = map[string][]byte{"/etc/x": nil} },
		"unclean path":   func(r *shard.Round) { r.Requests[2].Files = map[string][]byte{"calc/../calc/calc.go": nil} },
		"no round id":    func(r *shard.Round) { r.ID = "" },
		"timeout varies": func(r *shard.Round) { r.Requests[1].Timeout = time.Hour },
	}
	for name, edit := range tests {
		t.Run(name, func(t *testing.T) {
			r := shardRound(head)
			edit(&r)
			round := writeJSON(t, filepath.Join(tmp, strings.ReplaceAll(name, " ", "-")+".json"), r)
			out := filepath.Join(tmp, "out.json")
			var stdout, stderr bytes.Buffer
			if err := run(t.Context(), []string{"shard", "--round", round, "--out", out, "--repo", repo}, &stdout, &stderr); err == nil {
				t.Errorf("ran the round")
			}
		})
	}
}
