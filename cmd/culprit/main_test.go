package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/culprit-dev/culprit/internal/scenario"
)

// TestExplainJSON runs the CLI end to end on a real repository and checks
// the JSON report against the contract's field names and the expected root.
func TestExplainJSON(t *testing.T) {
	sc, repo := materialize(t, "../../testdata/unused-var.txtar")
	out := filepath.Join(t.TempDir(), "report.json")
	var stdout, stderr bytes.Buffer
	args := []string{"explain", "--repo", repo.Dir, "--base", repo.Base, "--head", repo.Head,
		"--run", sc.Test, "--strategy", "dynamic", "--format", "json", "--out", out}
	if err := run(context.Background(), args, &stdout, &stderr); err != nil {
		t.Fatalf("explain: %v\n%s", err, stderr.String())
	}
	data := readFile(t, out)
	var doc struct {
		Version int    `json:"version"`
		Status  string `json:"status"`
		Test    struct {
			Package, Name string
		} `json:"test"`
		Hunks []struct {
			ID        int    `json:"id"`
			File      string `json:"file"`
			HeadLines [2]int `json:"head_lines"`
		} `json:"hunks"`
		Root  []int `json:"root"`
		Aux   []int `json:"aux"`
		Proof struct {
			Reverted []int  `json:"reverted"`
			Outcome  string `json:"outcome"`
		} `json:"proof"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("report is not JSON: %v\n%s", err, data)
	}
	if doc.Version != 1 || doc.Status != "explained" || doc.Test.Name != "TestTotal" || doc.Test.Package != "." {
		t.Errorf("header = %d %s %+v", doc.Version, doc.Status, doc.Test)
	}
	if len(doc.Hunks) != 2 || len(doc.Root) != 1 || len(doc.Aux) != 1 || doc.Proof.Outcome != "pass" || len(doc.Proof.Reverted) != 2 {
		t.Errorf("hunks %v root %v aux %v proof %+v", doc.Hunks, doc.Root, doc.Aux, doc.Proof)
	}
}

func TestUsageErrors(t *testing.T) {
	need := []string{"explain", "--base", "HEAD~1", "--head", "HEAD", "--run", "TestX"}
	for name, tt := range map[string]struct {
		args []string
		want string // what stderr must name
	}{
		"no command":        {nil, "usage"},
		"unknown command":   {[]string{"frobnicate"}, "usage"},
		"missing head":      {[]string{"explain", "--base", "HEAD~1", "--run", "TestX"}, "required"},
		"bad flag":          {[]string{"explain", "--no-such-flag"}, "flag"},
		"bad format":        {append(need, "--format", "xml"), "--format"},
		"no workers":        {append(need, "--workers", "0"), "--workers"},
		"negative timeout":  {append(need, "--timeout", "-1s"), "--timeout"},
		"budget too short":  {append(need, "--budget", "1m", "--timeout", "2m"), "--budget"},
		"bad strategy":      {append(need, "--strategy", "guess"), "--strategy"},
		"bad mode":          {append(need, "--mode", "python"), "--mode"},
		"negative trials":   {append(need, "--max-trials", "-1"), "--max-trials"},
		"demo bad format":   {[]string{"demo", "--format", "yaml"}, "--format"},
		"bench bad corpus":  {[]string{"bench", "--corpus", "/no/such/dir"}, "/no/such/dir"},
		"bench both inputs": {[]string{"bench", "--corpus", ".", "--scenarios", "."}, "--corpus"},
		"replay bad seed":   {[]string{"trace", "--replay", "x/16", "--run", "TestX", "--pkg", "./p"}, "SEED/N"},
		"replay zero seed":  {[]string{"trace", "--replay", "0/16", "--run", "TestX", "--pkg", "./p"}, "SEED/N"},
		"replay no rate":    {[]string{"trace", "--replay", "42/0", "--run", "TestX", "--pkg", "./p"}, "SEED/N"},
		"replay no test":    {[]string{"trace", "--replay", "42/16", "--pkg", "./p"}, "--run"},
		"replay pattern":    {[]string{"trace", "--replay", "42/16", "--run", "TestX"}, "--pkg"},
		"trace no mode":     {[]string{"trace"}, "--replay"},
	} {
		t.Run(name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := run(context.Background(), tt.args, &stdout, &stderr)
			if !errors.Is(err, errUsage) {
				t.Fatalf("err = %v, want a usage error", err)
			}
			if code := exitCode(err, &stderr); code != 2 {
				t.Errorf("exit code %d, want 2", code)
			}
			if !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("stderr = %q, want it to name %q", stderr.String(), tt.want)
			}
			if stdout.Len() != 0 {
				t.Errorf("a usage error printed a report: %q", stdout.String())
			}
		})
	}
}

// TestExplainBudget gives the analysis fewer trials than it needs: it must
// still end with a report that says the budget ran out, and print progress.
func TestExplainBudget(t *testing.T) {
	sc, repo := materialize(t, "../../testdata/decoy-rich.txtar")
	var stdout, stderr bytes.Buffer
	args := []string{"explain", "--repo", repo.Dir, "--base", repo.Base, "--head", repo.Head,
		"--run", sc.Test, "--strategy", "dynamic", "--format", "json", "--max-trials", "8"}
	if err := run(context.Background(), args, &stdout, &stderr); err != nil {
		t.Fatalf("explain: %v\n%s", err, stderr.String())
	}
	var doc struct {
		Status string `json:"status"`
		Stats  struct {
			Trials int `json:"trials"`
		} `json:"stats"`
		Notes []string `json:"notes"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil {
		t.Fatalf("report is not JSON: %v\n%s", err, stdout.String())
	}
	t.Logf("status %s after %d trials; notes %q", doc.Status, doc.Stats.Trials, doc.Notes)
	if doc.Stats.Trials > 8 {
		t.Errorf("ran %d trials with --max-trials 8", doc.Stats.Trials)
	}
	if !slices.ContainsFunc(doc.Notes, func(n string) bool { return strings.Contains(n, "budget") }) {
		t.Errorf("notes %q do not say the budget ran out", doc.Notes)
	}
	if doc.Status != "explained" && doc.Status != "unexplained" {
		t.Errorf("status %s, want explained (not minimised) or unexplained", doc.Status)
	}
	for _, phase := range []string{"classify", "search", "done"} {
		if !strings.Contains(stderr.String(), phase) {
			t.Errorf("progress on stderr never names phase %s:\n%s", phase, stderr.String())
		}
	}
}

func TestExplainBadRevision(t *testing.T) {
	_, repo := materialize(t, "../../testdata/unused-var.txtar")
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"explain", "--repo", repo.Dir, "--base", "no-such-rev", "--head", repo.Head, "--run", "TestTotal"}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "no-such-rev") {
		t.Fatalf("err = %v, want one naming the bad revision", err)
	}
	if stdout.Len() != 0 {
		t.Errorf("a failed explain printed a report: %q", stdout.String())
	}
}

func readFile(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestDemo runs `culprit demo` as `make demo` does and checks that the
// bundled regression is explained with a causal tree and the paper's root.
func TestDemo(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"demo", "--format", "json"}, &stdout, &stderr); err != nil {
		t.Fatalf("demo: %v\n%s", err, stderr.String())
	}
	var doc struct {
		Status string `json:"status"`
		Root   []int  `json:"root"`
		Tree   *struct {
			Target struct {
				File string `json:"file"`
			} `json:"target"`
		} `json:"tree"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil {
		t.Fatalf("demo output is not JSON: %v", err)
	}
	if doc.Status != "explained" || len(doc.Root) != 2 || doc.Root[0] != 2 || doc.Root[1] != 3 {
		t.Errorf("status %s root %v, want explained [2 3]", doc.Status, doc.Root)
	}
	if doc.Tree == nil || doc.Tree.Target.File != "calc/calc_test.go" {
		t.Errorf("tree = %+v, want one rooted at the failed assertion in calc/calc_test.go", doc.Tree)
	}
}

// TestTraceSkipped instruments a small module and lists what stays
// untraced, by reason.
func TestTraceSkipped(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"go.mod":      "module example.com/m\n\ngo 1.22\n",
		"p/p.go":      "package p\n\nvar x any = 1\n\nvar m, ok = x.(interface{ M() })\n\nvar lo, hi = 1, 2\n\nfunc Span() int {\n\tfor i := 0; i < 3; i++ {\n\t\thi++\n\t}\n\tif ok || m != nil {\n\t\treturn 0\n\t}\n\treturn hi - lo\n}\n",
		"p/p_test.go": "package p\n\nimport \"testing\"\n\nfunc TestSpan(t *testing.T) {\n\tif Span() != 4 {\n\t\tt.Fatal(Span())\n\t}\n}\n",
	})
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"trace", "--skipped", "--dir", dir, "--pkg", "./p", "-v"}, &stdout, &stderr); err != nil {
		t.Fatalf("trace: %v\n%s", err, stderr.String())
	}
	out := strings.Join(strings.Fields(stdout.String()), " ")
	for _, want := range []string{
		"1 package-level multi-variable initialiser of a type that cannot be named 1 total",
		"p/p.go:5:5: package-level multi-variable initialiser of a type that cannot be named",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestTraceReplay replays a perturbed run: the test, built with the
// tracing runtime, must get the seed and rate as the runtime's spec and
// the GOMAXPROCS asked for; it fails only when it does, and the replay's
// verdicts, count and exit code follow its runs.
func TestTraceReplay(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"go.mod": "module example.com/m\n\ngo 1.22\n",
		"p/p.go": "package p\n\nfunc Add(a, b int) int { return a + b }\n",
		"p/p_test.go": "package p\n\nimport (\n\t\"os\"\n\t\"runtime\"\n\t\"testing\"\n)\n\n" +
			"func TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal(\"sum\")\n\t}\n" +
			"\tif iv := os.Getenv(\"CULPRIT_INTERVENE\"); runtime.GOMAXPROCS(0) == 3 && iv == \"perturb:42/16\" {\n\t\tt.Errorf(\"replayed with %s\", iv)\n\t}\n}\n",
	})
	replay := func(procs string) (string, error) {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), []string{"trace", "--replay", "42/16", "--run", "TestAdd", "--dir", dir, "--pkg", "./p", "--gomaxprocs", procs, "--count", "2"}, &stdout, &stderr)
		return stdout.String(), err
	}
	out, err := replay("3")
	if !errors.Is(err, errReplayFailed) || exitCode(err, io.Discard) != 1 {
		t.Fatalf("replay with GOMAXPROCS=3: err %v, want the test's failure (exit 1)\n%s", err, out)
	}
	for _, want := range []string{"run 1: FAIL (seed 42, 1 in 16 points, GOMAXPROCS=3)", "run 2: FAIL", "the test failed in 2 of 2 runs", "replayed with perturb:42/16"} {
		if !strings.Contains(out, want) {
			t.Errorf("replay with GOMAXPROCS=3: output lacks %q:\n%s", want, out)
		}
	}
	out, err = replay("2")
	if err != nil || !strings.Contains(out, "the test failed in 0 of 2 runs") {
		t.Errorf("replay with GOMAXPROCS=2: err %v, want both runs passing:\n%s", err, out)
	}
}

// writeModule writes files (path relative to the module root: source) into
// a new directory and returns it.
func writeModule(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, src := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// materialize makes a bundled scenario into a git repository.
func materialize(t *testing.T, path string) (*scenario.Scenario, *scenario.Repo) {
	t.Helper()
	sc, err := scenario.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	repo, err := sc.Materialize(filepath.Join(t.TempDir(), "repo"))
	if err != nil {
		t.Fatal(err)
	}
	return sc, repo
}

// --env-passthrough hands a variable beyond the allow-list to the tests of
// that analysis: with it the regression is explained; without it the test
// fails on base as well.
func TestEnvPassthroughReachesTheTests(t *testing.T) {
	t.Setenv("CULPRIT_SUM_FIXTURE", "on")
	sc, repo := materialize(t, "testdata/env-passthrough.txtar")
	status := func(extra ...string) string {
		var stdout, stderr bytes.Buffer
		args := append([]string{"explain", "--repo", repo.Dir, "--base", repo.Base, "--head", repo.Head,
			"--run", sc.Test, "--strategy", "dynamic", "--format", "json", "--quiet"}, extra...)
		if err := run(context.Background(), args, &stdout, &stderr); err != nil {
			t.Fatalf("explain %v: %v\n%s", extra, err, stderr.String())
		}
		var doc struct {
			Status string `json:"status"`
		}
		if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil {
			t.Fatalf("report is not JSON: %v\n%s", err, stdout.String())
		}
		return doc.Status
	}
	if got := status("--env-passthrough", "CULPRIT_SUM_FIXTURE"); got != "explained" {
		t.Errorf("with the variable passed through: status %s, want explained", got)
	}
	if got := status(); got == "explained" {
		t.Errorf("without it: status %s, but the tests should not have seen the variable", got)
	}
}

// A module that builds in a go.work above the repository, or one GOWORK
// names, is refused with the reason before any trial: each trial checks
// out the repository alone, where that workspace does not apply.
func TestWorkspaceOutsideRepositoryRefused(t *testing.T) {
	parent := t.TempDir()
	sc, err := scenario.Load("../../testdata/unused-var.txtar")
	if err != nil {
		t.Fatal(err)
	}
	repo, err := sc.Materialize(filepath.Join(parent, "repo"))
	if err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(parent, "go.work")
	if err := os.WriteFile(work, []byte("go 1.22\n\nuse ./repo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	explain := func() string {
		var stdout, stderr bytes.Buffer
		args := []string{"explain", "--repo", repo.Dir, "--base", repo.Base, "--head", repo.Head, "--run", sc.Test, "--quiet",
			"--strategy", "dynamic", "--out", filepath.Join(t.TempDir(), "report.md")}
		if err := run(context.Background(), args, &stdout, &stderr); err != nil {
			return err.Error()
		}
		return "no error"
	}
	if got := explain(); !strings.Contains(got, "Go workspace "+work) || !strings.Contains(got, "GOWORK=off") {
		t.Errorf("with %s above the repository: %s", work, got)
	}
	t.Setenv("GOWORK", work)
	if got := explain(); !strings.Contains(got, "GOWORK names the Go workspace "+work) {
		t.Errorf("with GOWORK=%s: %s", work, got)
	}
	// The module builds on its own: GOWORK=off, as the message says.
	t.Setenv("GOWORK", "off")
	if got := explain(); got != "no error" {
		t.Errorf("with GOWORK=off: %s", got)
	}
}
