package action

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path"
	"strings"

	"github.com/culprit-dev/culprit/analyzer/result"
	"github.com/culprit-dev/culprit/report"
	"github.com/sethvargo/go-githubactions"
)

// statuses are the values the status output and culprit-pr.json's status
// may take (action.yml documents them). A report directory is written by
// a run of the pull request's code, so its status is checked against them.
var statuses = map[string]bool{
	string(result.Explained): true, string(result.NotRegression): true,
	string(result.Flaky): true, string(result.FlakyRegression): true,
	string(result.HeadBuildFails): true, string(result.Unexplained): true,
	StatusNoFailingTests: true, StatusError: true,
}

// validStatus reports whether s is one of the documented statuses.
func validStatus(s string) bool { return statuses[s] }

// setOutput appends name=value to the runner's output file with a random
// delimiter, so that no value can end the entry early and set another
// output (go-githubactions uses a fixed delimiter).
func setOutput(file, name, value string) error {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return fmt.Errorf("setting output %s: %w", name, err)
	}
	delim := "ghadelimiter_" + hex.EncodeToString(b[:])
	if strings.Contains(value, delim) || strings.ContainsAny(name, "\r\n<") {
		return fmt.Errorf("setting output %s: the value cannot be written safely", name)
	}
	f, err := os.OpenFile(file, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("setting output %s: %w", name, err)
	}
	_, werr := fmt.Fprintf(f, "%s<<%s\n%s\n%s\n", name, delim, value, delim)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return fmt.Errorf("setting output %s: %w", name, werr)
	}
	return nil
}

// infof logs a line that may carry data from the pull request (test names,
// notes, paths). The runner executes any log line that starts with "::" or
// "##[" (after blanks) as a workflow command, so such lines are prefixed
// and cannot act.
func infof(a *githubactions.Action, format string, args ...any) {
	a.Infof("%s", inert(fmt.Sprintf(format, args...)))
}

// inert prefixes every line of s that the runner would read as a command.
func inert(s string) string {
	// The runner reads a lone carriage return as a line break too.
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		t := strings.TrimLeft(l, " \t\v\f\u00a0\ufeff")
		if strings.HasPrefix(t, "::") || strings.HasPrefix(t, "##[") {
			lines[i] = "| " + l
		}
	}
	return strings.Join(lines, "\n")
}

// insideRepo reports whether a report's file path is a plain relative path
// that stays inside the repository.
func insideRepo(p string) bool {
	if p == "" || path.IsAbs(p) || strings.ContainsAny(p, "\\\x00\r\n") || (len(p) > 1 && p[1] == ':') {
		return false
	}
	c := path.Clean(p)
	return c != "." && c != ".." && !strings.HasPrefix(c, "../")
}

// jobSummary is the job summary of a run: the full reports, or a line
// saying why there is none. It takes the comment's path: the reports are
// rendered by report, which makes their data inert where it puts it in,
// and the whole goes through neutral, as the comment does. In comment mode
// every report came from an artifact the pull request's code wrote.
func jobSummary(reps []*result.Report, status string, skipped int) string {
	var b strings.Builder
	switch {
	case len(reps) == 0 && status == StatusNoFailingTests:
		b.WriteString("## culprit\n\nNo failing test: nothing to explain.\n")
	case len(reps) == 0:
		if !validStatus(status) {
			status = "unknown"
		}
		fmt.Fprintf(&b, "## culprit\n\nStatus: %s.\n", status)
	}
	for i, r := range reps {
		if i > 0 {
			b.WriteString("\n---\n\n")
		}
		b.WriteString(report.Markdown(r))
	}
	if skipped > 0 {
		fmt.Fprintf(&b, "\n%d more distinct failures were not analyzed (max-tests).\n", skipped)
	}
	return neutral(b.String())
}
