package action_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/culprit-dev/culprit/internal/scenario"
	"github.com/google/go-cmp/cmp"
)

// TestRunEndToEnd runs the Action as the runner would on a pull_request
// event, with the real analyzer and no test-results file: the failing test
// is found by running go test on head.
func TestRunEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the analyzer")
	}
	repo := loadScenario(t, nil)
	srv := newServer(t, repo)
	env := newRunnerEnv(t, srv, repo, "pull_request", prPayload(repo, repo.Base, repo.Head))
	if err := env.run(nil); err != nil {
		t.Fatalf("run: %v\n%s", err, env.out.String())
	}
	out := env.outputs()
	if out["status"] != "explained" || out["culprits"] != "2" {
		t.Errorf("outputs %v\n%s", out, env.out.String())
	}
	diffCalls(t, srv, map[string]int{"GET /user": 1, listComments: 1, createComment: 1, listReview: 1, createReview: 1})
	var lines []int
	for _, c := range srv.ReviewComments(prNum) {
		lines = append(lines, c.Line)
	}
	if d := cmp.Diff([]int{8, 17}, lines); d != "" {
		t.Errorf("review comment lines (-want +got):\n%s", d)
	}
	if s := env.summary(); !strings.Contains(s, "TestF") || !strings.Contains(s, "calc/calc.go") {
		t.Errorf("summary:\n%s", s)
	}
}

// TestRunBadInput checks that each kind of bad input gives a clear message
// and the right status, and never a comment that names a culprit.
func TestRunBadInput(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test and the analyzer")
	}
	for _, tc := range []struct {
		name    string
		edit    func(*scenario.Scenario)
		event   string
		payload func(*scenario.Repo) any
		inputs  func(t *testing.T, r *scenario.Repo) []string
		status  string
		wantErr string // in the error annotation; "" means no error
		calls   map[string]int
	}{{
		name:  "event without a pull request",
		event: "issues",
		payload: func(*scenario.Repo) any {
			return map[string]any{"action": "opened", "issue": map[string]any{"number": 3}}
		},
		status:  "error",
		wantErr: "carries no pull request",
		calls:   map[string]int{},
	}, {
		name:    "workflow_dispatch without pr-number",
		event:   "workflow_dispatch",
		payload: func(*scenario.Repo) any { return map[string]any{"inputs": map[string]any{}} },
		status:  "error",
		wantErr: "needs the pr-number input",
		calls:   map[string]int{},
	}, {
		name: "head does not build",
		edit: func(s *scenario.Scenario) {
			s.Head["calc/calc.go"] = []byte("package calc\n\nfunc F(x, y, z int) int { return undefined }\n")
		},
		status: "head-build-fails",
		calls:  map[string]int{"GET /user": 1, listComments: 1, createComment: 1, listReview: 1},
	}, {
		name: "base fails too",
		edit: func(s *scenario.Scenario) {
			s.Base["calc/calc_test.go"] = s.Head["calc/calc_test.go"]
			s.Base["calc/calc.go"] = []byte(strings.Replace(string(s.Base["calc/calc.go"]), "sum += z\n", "sum += z + 7\n", 1))
		},
		status: "not-regression",
		calls:  map[string]int{"GET /user": 1, listComments: 1, createComment: 1, listReview: 1},
	}, {
		name:    "no failing test",
		payload: func(r *scenario.Repo) any { return prPayload(r, r.Base, r.Base) },
		status:  "no-failing-tests",
		// Nothing to say and no earlier comment: no write.
		calls: map[string]int{"GET /user": 1, listComments: 1, listReview: 1},
	}, {
		name:    "no failing test, comment always",
		payload: func(r *scenario.Repo) any { return prPayload(r, r.Base, r.Base) },
		inputs:  func(*testing.T, *scenario.Repo) []string { return []string{"INPUT_COMMENT", "always"} },
		status:  "no-failing-tests",
		calls:   map[string]int{"GET /user": 1, listComments: 1, createComment: 1, listReview: 1},
	}, {
		name:    "test that does not exist",
		inputs:  func(*testing.T, *scenario.Repo) []string { return []string{"INPUT_TESTS", "TestNope"} },
		status:  "error",
		wantErr: "no test named TestNope ran",
		calls:   map[string]int{},
	}, {
		name: "malformed test-results",
		inputs: func(t *testing.T, _ *scenario.Repo) []string {
			p := filepath.Join(t.TempDir(), "results.json")
			os.WriteFile(p, []byte(`{"Action":"run","Package":"example.com/calc/calc","Test":"TestF"}`+"\n"+`{"Action":"fail","Pack`+"\n"), 0o644)
			return []string{"INPUT_TEST_RESULTS", p}
		},
		status:  "error",
		wantErr: "has a malformed event",
		calls:   map[string]int{},
	}, {
		name: "plain text test-results",
		inputs: func(t *testing.T, _ *scenario.Repo) []string {
			p := filepath.Join(t.TempDir(), "results.txt")
			os.WriteFile(p, []byte("--- FAIL: TestF (0.00s)\nFAIL\n"), 0o644)
			return []string{"INPUT_TEST_RESULTS", p}
		},
		status:  "error",
		wantErr: "is not `go test -json` output",
		calls:   map[string]int{},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			repo := loadScenario(t, tc.edit)
			srv := newServer(t, repo)
			event, payload := "pull_request", any(prPayload(repo, repo.Base, repo.Head))
			if tc.event != "" {
				event = tc.event
			}
			if tc.payload != nil {
				payload = tc.payload(repo)
			}
			env := newRunnerEnv(t, srv, repo, event, payload).set("INPUT_TIMEOUT", "1m")
			if tc.inputs != nil {
				env.set(tc.inputs(t, repo)...)
			}
			err := env.run(nil)
			log := env.out.String()
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("run: %v\n%s", err, log)
			case tc.wantErr != "" && (err == nil || !strings.Contains(log, "::error::culprit: ") || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("run: %v; want an error annotation with %q\n%s", err, tc.wantErr, log)
			}
			if got := env.outputs()["status"]; got != tc.status {
				t.Errorf("status = %q, want %q\n%s", got, tc.status, log)
			}
			if got := env.outputs()["culprits"]; got != "0" {
				t.Errorf("culprits = %q, want 0", got)
			}
			diffCalls(t, srv, tc.calls)
			for _, c := range srv.IssueComments(prNum) {
				if strings.Contains(c.Body, "because of") || strings.Contains(c.Body, "calc/calc.go:8") {
					t.Errorf("the comment names a culprit:\n%s", c.Body)
				}
			}
		})
	}
}
