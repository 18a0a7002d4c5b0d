package action

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/culprit-dev/culprit/analyzer"
	"github.com/culprit-dev/culprit/internal/proc"
	"github.com/sethvargo/go-githubactions"
)

// Task is what a run of the Action does.
type Task string

const (
	// AnalyzeAndComment analyzes and posts in one job (same-repository
	// pull requests, or any PR where the token may write).
	AnalyzeAndComment Task = "analyze-and-comment"
	// Analyze only analyzes: report file, summary, outputs, annotations.
	// The first half of the fork-safe pattern.
	Analyze Task = "analyze"
	// Comment only posts a report written by an Analyze run. The second
	// half of the fork-safe pattern: it runs no pull-request code.
	Comment Task = "comment"
)

// Config is the Action's inputs, parsed and checked.
type Config struct {
	Token          string
	Tests          string // names or a regular expression; "" discovers
	Packages       []string
	TestResults    string // a `go test -json` file
	Base, Head     string
	PRNumber       int
	Mode           Task // the "mode" input
	FailOn         FailOn
	MaxTests       int
	Timeout        time.Duration
	Budget         time.Duration // of each analysis
	MaxTrials      int
	Strategy       analyzer.Strategy
	Comment        Commenting
	ReviewComments bool
	Annotations    bool
	BuildCommand   string
	TestCommand    string
	ReportJSON     string // where Analyze writes the report and Comment reads it
	// EnvPassthrough names variables the tests need beyond the
	// environment's allow-list, which would otherwise be withheld from
	// them (see proc.Env).
	EnvPassthrough []string
	// CommentID, when set, keeps this run's sticky comment and review
	// comments apart from other culprit runs on the same pull request.
	// Without the input it is derived from the workflow, the job and the
	// tests input (see defaultCommentID).
	CommentID string
	Dir       string // the repository
	// Executor is where the trials run: "local" (this job) or "actions"
	// (the trials workflow, TrialsWorkflow, on up to MaxRunners runners
	// a round, within RunnerMinutes of runner time; 0 is no bound).
	Executor      string
	MaxRunners    int
	RunnerMinutes int
}

// input reads an input the way the runner passes it: INPUT_ and the name
// upper-cased, with "-" kept (JavaScript actions) or turned into "_" (our
// composite action.yml, because shells cannot name variables with "-").
func input(a *githubactions.Action, name string) string {
	if v := a.GetInput(strings.ReplaceAll(name, "-", "_")); v != "" {
		return v
	}
	return a.GetInput(name)
}

func readConfig(a *githubactions.Action, getenv func(string) string) (*Config, error) {
	c := &Config{
		Token:        input(a, "github-token"),
		Tests:        input(a, "tests"),
		Packages:     strings.Fields(input(a, "packages")),
		TestResults:  input(a, "test-results"),
		Base:         input(a, "base"),
		Head:         input(a, "head"),
		Mode:         Task(input(a, "mode")),
		Strategy:     analyzer.Strategy(input(a, "strategy")),
		BuildCommand: input(a, "build-command"),
		TestCommand:  input(a, "test-command"),
		ReportJSON:   input(a, "report-json"),
		Dir:          input(a, "working-directory"),

		EnvPassthrough: proc.ParsePassthrough(input(a, "env-passthrough")),
		CommentID:      input(a, "comment-id"),
	}
	if !validCommentID(c.CommentID) {
		return nil, fmt.Errorf("input comment-id: %q; want at most 64 letters, digits, '.', '_' or '-'", c.CommentID)
	}
	if c.CommentID == "" && c.Mode != Comment {
		// The comment mode keys its comment by the run it posts for.
		c.CommentID = defaultCommentID(getenv("GITHUB_WORKFLOW"), getenv("GITHUB_JOB"), c.Tests)
	}
	if len(c.Packages) == 0 {
		c.Packages = []string{"./..."}
	}
	if err := c.choose(a); err != nil {
		return nil, err
	}
	var err error
	if c.PRNumber, err = intInput(a, "pr-number", 0); err != nil {
		return nil, err
	}
	if c.MaxTests, err = intInput(a, "max-tests", 3); err != nil {
		return nil, err
	}
	if c.MaxTests < 1 {
		return nil, fmt.Errorf("input max-tests: %d; want at least 1", c.MaxTests)
	}
	if v := input(a, "timeout"); v != "" {
		if c.Timeout, err = time.ParseDuration(v); err != nil {
			return nil, fmt.Errorf("input timeout: %q is not a duration like 2m or 90s", v)
		}
	}
	c.Budget = analyzer.DefaultBudget
	if v := input(a, "budget"); v != "" {
		if c.Budget, err = time.ParseDuration(v); err != nil || c.Budget <= 0 {
			return nil, fmt.Errorf("input budget: %q is not a positive duration like 20m", v)
		}
	}
	if c.MaxTrials, err = intInput(a, "max-trials", 0); err != nil {
		return nil, err
	}
	if c.MaxTrials < 0 {
		return nil, fmt.Errorf("input max-trials: %d; want 0 (no bound) or more", c.MaxTrials)
	}
	for _, b := range []struct {
		name string
		dst  *bool
	}{{"review-comments", &c.ReviewComments}, {"annotations", &c.Annotations}} {
		if *b.dst, err = boolInput(a, b.name, true); err != nil {
			return nil, err
		}
	}
	if err := c.readExecutor(a); err != nil {
		return nil, err
	}
	if c.Tests != "" && !isNameList(c.Tests) {
		if _, err := regexp.Compile(c.Tests); err != nil {
			return nil, fmt.Errorf("input tests: %q is neither test names nor a valid regular expression: %v", c.Tests, err)
		}
	}
	if c.Dir == "" {
		c.Dir = getenv("GITHUB_WORKSPACE")
	}
	if c.Dir == "" {
		c.Dir = "."
	}
	if c.ReportJSON == "" {
		tmp := getenv("RUNNER_TEMP")
		if tmp == "" {
			tmp = c.Dir
		}
		c.ReportJSON = tmp + "/culprit/report.json"
	}
	return c, nil
}

func intInput(a *githubactions.Action, name string, def int) (int, error) {
	v := input(a, name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(strings.TrimPrefix(v, "#"))
	if err != nil || n < 0 {
		return 0, fmt.Errorf("input %s: %q is not a number", name, v)
	}
	return n, nil
}

func boolInput(a *githubactions.Action, name string, def bool) (bool, error) {
	switch strings.ToLower(input(a, name)) {
	case "":
		return def, nil
	case "true", "yes", "1", "on":
		return true, nil
	case "false", "no", "0", "off":
		return false, nil
	}
	return false, fmt.Errorf("input %s: %q is not true or false", name, input(a, name))
}

var nameListRE = regexp.MustCompile(`^[\pL\pN_/]+([\s,]+[\pL\pN_/]+)*$`)

// isNameList reports whether tests is a list of test names (separated by
// spaces, commas or newlines) rather than a regular expression.
func isNameList(tests string) bool { return nameListRE.MatchString(strings.TrimSpace(tests)) }

// testNames splits a list of test names.
func testNames(tests string) []string {
	return strings.FieldsFunc(tests, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\t' || r == '\r' })
}

func validCommentID(id string) bool {
	if len(id) > 64 {
		return false
	}
	for _, r := range id {
		if !(r == '.' || r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}

// defaultCommentID names the comment of a run that sets no comment-id
// after what tells parallel runs apart: the workflow (its name, or its
// file's path), the job id and the tests input. Runs of one job that differ
// in nothing else (matrix legs) share it. Every run of the same job gets
// the same id, so a rerun finds its comment. Parts are joined with "."; a
// value that had to be cleaned or cut for validCommentID carries a short
// hash of the original, so that "CI / test" and "CI - test" stay apart.
// No part at all gives "", the one shared comment.
func defaultCommentID(parts ...string) string {
	var raw, clean []string
	for _, p := range parts {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		raw = append(raw, p)
		var b strings.Builder
		dash := false
		for _, r := range p {
			if r == '.' || r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
				b.WriteRune(r)
				dash = false
			} else if !dash {
				b.WriteByte('-')
				dash = true
			}
		}
		if c := strings.Trim(b.String(), "-"); c != "" {
			clean = append(clean, c)
		}
	}
	if len(raw) == 0 {
		return ""
	}
	id, orig := strings.Join(clean, "."), strings.Join(raw, ".")
	const most = 64
	if id == orig && len(id) <= most {
		return id
	}
	sum := sha256.Sum256([]byte(strings.Join(raw, "\x00")))
	tag := hex.EncodeToString(sum[:4])
	if len(id) > most-len(tag)-1 {
		id = id[:most-len(tag)-1]
	}
	if id == "" {
		return tag
	}
	return id + "-" + tag
}

// Commenting says when the sticky pull request comment is posted. In
// every mode an existing comment is edited only when its text changes.
type Commenting string

const (
	// CommentOnFailures posts when a test failed; a comment of an
	// earlier run is corrected when none fails any more.
	CommentOnFailures Commenting = "on-failures"
	// CommentAlways also posts when no test failed.
	CommentAlways Commenting = "always"
	// CommentOff never comments: the annotations and the job summary
	// carry the result.
	CommentOff Commenting = "off"
)

// choose reads and checks the inputs that name one of a set: mode,
// fail-on (whose default depends on the mode), comment and strategy.
func (c *Config) choose(a *githubactions.Action) error {
	switch c.Mode {
	case "":
		c.Mode = AnalyzeAndComment
	case AnalyzeAndComment, Analyze, Comment:
	default:
		return fmt.Errorf("input mode: %q is not one of analyze-and-comment, analyze, comment", c.Mode)
	}
	failOn, err := parseFailOn(input(a, "fail-on"), c.Mode)
	if err != nil {
		return err
	}
	c.FailOn = failOn
	switch v := strings.TrimSpace(input(a, "comment")); v {
	case "", "true", string(CommentOnFailures):
		c.Comment = CommentOnFailures
	case "false", string(CommentOff):
		c.Comment = CommentOff
	case string(CommentAlways):
		c.Comment = CommentAlways
	default:
		return fmt.Errorf("input comment: %q is not one of on-failures (or true), always, off (or false)", v)
	}
	switch c.Strategy {
	case "":
		c.Strategy = analyzer.StrategyAfter
	case analyzer.StrategyAfter, analyzer.StrategyDynamic, analyzer.StrategyDDMin, analyzer.StrategyOneByOne:
	default:
		return fmt.Errorf("input strategy: %q is not one of after, dynamic, ddmin, one-by-one", c.Strategy)
	}
	return nil
}

// readExecutor reads where the trials run.
func (c *Config) readExecutor(a *githubactions.Action) error {
	c.Executor = input(a, "executor")
	switch c.Executor {
	case "":
		c.Executor = "local"
	case "local", "actions":
	default:
		return fmt.Errorf("input executor: %q; want local or actions", c.Executor)
	}
	if c.Executor == "actions" && c.TestCommand != "" {
		return errors.New("input executor: actions runs Go tests; the test-command mode runs its trials locally")
	}
	var err error
	if c.MaxRunners, err = intInput(a, "max-runners", 8); err != nil {
		return err
	}
	if c.MaxRunners < 1 || c.MaxRunners > 256 {
		return fmt.Errorf("input max-runners: %d; want 1 to 256", c.MaxRunners)
	}
	if c.RunnerMinutes, err = intInput(a, "runner-minutes", 0); err != nil {
		return err
	}
	if c.RunnerMinutes < 0 {
		return fmt.Errorf("input runner-minutes: %d; want 0 (no bound) or more", c.RunnerMinutes)
	}
	return nil
}
