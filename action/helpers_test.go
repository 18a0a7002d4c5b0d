package action_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/culprit-dev/culprit/action"
	"github.com/culprit-dev/culprit/analyzer"
	"github.com/culprit-dev/culprit/analyzer/result"
	"github.com/culprit-dev/culprit/analyzer/trial"
	"github.com/culprit-dev/culprit/diffhunks"
	"github.com/culprit-dev/culprit/internal/fakegh"
	"github.com/culprit-dev/culprit/internal/scenario"
	"github.com/google/go-cmp/cmp"
)

const (
	token = "ghs_secret_token_for_tests"
	owner = "octo"
	name  = "calc"
	prNum = 7
)

// loadScenario materializes the AFTER running example, optionally edited,
// in a fresh git repository.
func loadScenario(t *testing.T, edit func(s *scenario.Scenario)) *scenario.Repo {
	t.Helper()
	s, err := scenario.Load("../testdata/after-example.txtar")
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(s)
	}
	repo, err := s.Materialize(filepath.Join(t.TempDir(), "repo"))
	if err != nil {
		t.Fatal(err)
	}
	return repo
}

// runnerEnv is the environment a runner gives a step, with files in a
// temporary directory.
type runnerEnv struct {
	t    *testing.T
	vars map[string]string
	out  bytes.Buffer
}

func newRunnerEnv(t *testing.T, srv *fakegh.Server, repo *scenario.Repo, event string, payload any) *runnerEnv {
	t.Helper()
	tmp := t.TempDir()
	data, err := json.Marshal(payload)
	if err != nil {
		t.Fatal(err)
	}
	eventPath := filepath.Join(tmp, "event.json")
	if err := os.WriteFile(eventPath, data, 0o644); err != nil {
		t.Fatal(err)
	}
	e := &runnerEnv{t: t, vars: map[string]string{
		"GITHUB_ACTIONS":      "true",
		"GITHUB_EVENT_NAME":   event,
		"GITHUB_EVENT_PATH":   eventPath,
		"GITHUB_REPOSITORY":   owner + "/" + name,
		"GITHUB_API_URL":      srv.APIURL(),
		"GITHUB_SERVER_URL":   "https://github.example",
		"GITHUB_RUN_ID":       "4242",
		"GITHUB_WORKFLOW":     "culprit",
		"GITHUB_WORKSPACE":    repo.Dir,
		"GITHUB_OUTPUT":       filepath.Join(tmp, "output"),
		"GITHUB_STEP_SUMMARY": filepath.Join(tmp, "summary"),
		"RUNNER_TEMP":         filepath.Join(tmp, "runner-temp"),
		"INPUT_GITHUB_TOKEN":  token,
		// The tests of posting are not about failing the step; TestFailOn
		// sets it.
		"INPUT_FAIL_ON": "errors",
	}}
	for _, f := range []string{"output", "summary"} {
		if err := os.WriteFile(filepath.Join(tmp, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

func (e *runnerEnv) set(kv ...string) *runnerEnv {
	for i := 0; i+1 < len(kv); i += 2 {
		e.vars[kv[i]] = kv[i+1]
	}
	return e
}

func (e *runnerEnv) run(ex action.Explainer) error {
	e.t.Helper()
	r := &action.Job{
		Getenv:    func(k string) string { return e.vars[k] },
		Stdout:    &e.out,
		Explainer: ex,
		Sleep:     func(context.Context, time.Duration) error { return nil },
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	err := r.Run(ctx)
	// The runner hides the token once it is masked: it may appear only
	// in the mask command itself.
	log := strings.Replace(e.out.String(), "::add-mask::"+token+"\n", "", 1)
	if !strings.Contains(e.out.String(), "::add-mask::"+token) || strings.Contains(log, token) {
		e.t.Errorf("the token is not masked before use, or appears in the log")
	}
	return err
}

// outputs parses the runner's output file (name<<delimiter blocks).
func (e *runnerEnv) outputs() map[string]string {
	e.t.Helper()
	return parseOutputFile(e.t, e.vars["GITHUB_OUTPUT"])
}

func parseOutputFile(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if k, delim, ok := strings.Cut(line, "<<"); ok {
			var val []string
			for sc.Scan() && sc.Text() != delim {
				val = append(val, sc.Text())
			}
			out[k] = strings.Join(val, "\n")
		} else if k, v, ok := strings.Cut(line, "="); ok {
			out[k] = v
		}
	}
	return out
}

func (e *runnerEnv) summary() string {
	data, err := os.ReadFile(e.vars["GITHUB_STEP_SUMMARY"])
	if err != nil {
		e.t.Fatal(err)
	}
	return string(data)
}

func prPayload(repo *scenario.Repo, baseSHA, headSHA string) map[string]any {
	return map[string]any{
		"action": "synchronize",
		"number": prNum,
		"pull_request": map[string]any{
			"number":   prNum,
			"state":    "open",
			"html_url": "https://github.example/octo/calc/pull/7",
			"user":     map[string]any{"login": "alice"},
			"base":     map[string]any{"ref": "main", "sha": baseSHA, "repo": map[string]any{"full_name": "octo/calc"}},
			"head":     map[string]any{"ref": "feature", "sha": headSHA, "repo": map[string]any{"full_name": "alice/calc"}},
		},
		"repository": map[string]any{"full_name": "octo/calc", "name": "calc", "owner": map[string]any{"login": "octo"}},
		"sender":     map[string]any{"login": "alice"},
	}
}

func newServer(t *testing.T, repo *scenario.Repo) *fakegh.Server {
	srv := fakegh.New(t, owner, name, token)
	srv.PRs[prNum] = fakegh.PR{Number: prNum, BaseSHA: repo.Base, HeadSHA: repo.Head}
	return srv
}

// goTestJSON runs `go test -json` on the scenario's head (its working tree)
// and writes the output to a file, as a workflow's test step would.
func goTestJSON(t *testing.T, dir string) string {
	t.Helper()
	cmd := exec.Command("go", "test", "-json", "-count=1", "./...")
	cmd.Dir = dir
	out, _ := cmd.Output() // the test fails: that is the point
	if !bytes.Contains(out, []byte(`"Action":"fail"`)) {
		t.Fatalf("go test -json on head did not fail:\n%s", out)
	}
	p := filepath.Join(t.TempDir(), "results.json")
	if err := os.WriteFile(p, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// canned is an Explainer that answers the AFTER example's explanation
// without running anything, and records the requests it got.
type canned struct {
	mu    sync.Mutex
	reqs  []analyzer.Request
	diff  string // the diff of each hunk; long ones make long reports
	hunks int
}

func (c *canned) Explain(_ context.Context, req analyzer.Request) (*analyzer.Result, error) {
	c.mu.Lock()
	c.reqs = append(c.reqs, req)
	c.mu.Unlock()
	diff := c.diff
	if diff == "" {
		diff = "-var sorted = true\n+var sorted = false\n"
	}
	res := &analyzer.Result{Status: result.Explained, Test: req.Test, Base: req.Base, Head: req.Head}
	res.Hunks = []diffhunks.Hunk{
		{ID: 1, File: "calc/calc.go", OldFile: "calc/calc.go", Base: diffhunks.LineRange{Start: 3, End: 3}, Head: diffhunks.LineRange{Start: 3, End: 3}, Kind: diffhunks.Modify, Diff: diff},
		{ID: 2, File: "calc/calc.go", OldFile: "calc/calc.go", Base: diffhunks.LineRange{Start: 8, End: 8}, Head: diffhunks.LineRange{Start: 8, End: 8}, Kind: diffhunks.Modify, Func: "F", Diff: "-\t\tif x > y {\n+\t\tif x < y {\n"},
		{ID: 3, File: "calc/calc.go", OldFile: "calc/calc.go", Base: diffhunks.LineRange{Start: 17, End: 17}, Head: diffhunks.LineRange{Start: 17, End: 17}, Kind: diffhunks.Modify, Func: "F", Diff: "-\t\tsum += z\n+\t\tsum += z + 1\n"},
	}
	for i := 0; i < c.hunks; i++ {
		id := diffhunks.ID(4 + i)
		res.Hunks = append(res.Hunks, diffhunks.Hunk{ID: id, File: "calc/more.go", OldFile: "calc/more.go", Base: diffhunks.LineRange{Start: 1 + i, End: 1 + i}, Head: diffhunks.LineRange{Start: 1 + i, End: 1 + i}, Kind: diffhunks.Modify, Diff: diff})
		res.Root = append(res.Root, id)
	}
	res.Root = append([]diffhunks.ID{2, 3}, res.Root...)
	res.Proof = &trial.Result{Reverted: res.Root, Outcome: trial.Pass}
	res.Evidence = []trial.Result{
		{Outcome: trial.Fail, Signature: "calc/calc_test.go:7", Message: "F(3, 1, 2) = 4, want 5"},
		{Reverted: []diffhunks.ID{1, 2, 3}, Outcome: trial.Pass},
	}
	return res, nil
}

func diffCalls(t *testing.T, srv *fakegh.Server, want map[string]int) {
	t.Helper()
	if d := cmp.Diff(want, srv.Calls()); d != "" {
		t.Errorf("API calls (-want +got):\n%s\nin order: %v", d, srv.Requests())
	}
}

func fmtInt(n int64) string { return strconv.FormatInt(n, 10) }

// analyzeArtifact runs the analyze half on pull_request against srv, which
// it makes read-only, and returns the report directory: the artifact the
// comment half downloads.
func analyzeArtifact(t *testing.T, srv *fakegh.Server, repo *scenario.Repo) string {
	t.Helper()
	srv.ReadOnly = true
	analyze := newRunnerEnv(t, srv, repo, "pull_request", prPayload(repo, repo.Base, repo.Head)).
		set("INPUT_TEST_RESULTS", goTestJSON(t, repo.Dir), "INPUT_MODE", "analyze")
	if err := analyze.run(&canned{}); err != nil {
		t.Fatalf("analyze: %v\n%s", err, analyze.out.String())
	}
	return filepath.Dir(analyze.outputs()["report-json"])
}

// commentEnv is the comment half on workflow_run, reading the report in
// artifact, in a workspace without the pull request's code; run is the
// event's workflow_run object.
func commentEnv(t *testing.T, srv *fakegh.Server, run map[string]any, artifact string) *runnerEnv {
	t.Helper()
	empty := loadScenario(t, nil)
	empty.Dir = t.TempDir()
	return newRunnerEnv(t, srv, empty, "workflow_run", map[string]any{
		"action":       "completed",
		"workflow_run": run,
		"repository":   map[string]any{"full_name": "octo/calc"},
	}).set("INPUT_MODE", "comment", "INPUT_REPORT_JSON", artifact)
}
