package bot

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// command is a parsed "/culprit [explain] [TestName…]" request.
type command struct {
	// Tests restricts the explanation to these tests; empty means the
	// workflow decides (the tests that fail on the pull request's head).
	Tests []string
}

const (
	commandWord  = "/culprit"
	maxTests     = 20
	maxTestName  = 200
	usageMessage = "Usage: `/culprit [explain] [TestName…]` on a line of its own, for example `/culprit explain TestParse TestRender/empty`."
)

// testNamePattern keeps test names to what go test -run and common runners
// accept, and excludes anything a workflow might interpret when it passes
// the input to a shell.
var testNamePattern = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_./:#-]*$`)

// errUsage marks a command line that names culprit but cannot be run.
var errUsage = errors.New("invalid /culprit command")

// parseCommand finds the first line of body that starts with "/culprit" (the
// command must begin the line: quoted replies start with ">" and mentions in
// prose do not count; fenced code blocks are skipped). It reports ok=false
// when there is no such line, and an error wrapping errUsage when the line
// is malformed.
func parseCommand(body string) (cmd command, ok bool, err error) {
	inFence := false
	for line := range strings.Lines(body) {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "```") || strings.HasPrefix(line, "~~~") {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		rest, found := strings.CutPrefix(line, commandWord)
		if !found {
			continue
		}
		if rest != "" && !isSpace(rest[0]) {
			continue // "/culprits" or "/culprit-foo": another command
		}
		args := strings.Fields(rest)
		if len(args) > 0 && args[0] == "explain" {
			args = args[1:]
		}
		if len(args) == 0 {
			return command{}, true, nil
		}
		if len(args) > maxTests {
			return command{}, true, fmt.Errorf("%w: at most %d tests, got %d", errUsage, maxTests, len(args))
		}
		for _, a := range args {
			if len(a) > maxTestName || !testNamePattern.MatchString(a) {
				return command{}, true, fmt.Errorf("%w: %q is not a test name", errUsage, truncate(a, 40))
			}
		}
		return command{Tests: args}, true, nil
	}
	return command{}, false, nil
}

func isSpace(b byte) bool { return b == ' ' || b == '\t' }

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
