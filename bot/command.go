package bot

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
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
	usageMessage = "Usage: `/culprit [explain] [TestName…]` on a line of its own, for example `/culprit explain TestParse TestRender/empty`. " +
		"Test names are those `go test` runs: `Test…`, `Benchmark…`, `Example…` or `Fuzz…`, optionally with a subtest path (`TestRender/empty`)."
)

// errUsage marks a command line that names culprit but cannot be run;
// every *usageError is one.
var errUsage = errors.New("invalid /culprit command")

// usageProblem is what is wrong with a line that looks like a command.
type usageProblem int

const (
	// notATestName: an argument is not the name of a Go test.
	notATestName usageProblem = iota + 1
	// tooManyTests: more than maxTests names.
	tooManyTests
	// wrongCase: "/Culprit", "/CULPRIT".
	wrongCase
	// oddSpace: "/culprit" followed by a space that is not one: a
	// non-breaking or zero-width space, which the writer cannot see.
	oddSpace
	// noSpace: "/culprit" followed by punctuation ("/culprit.").
	noSpace
)

// usageError says why a line that names /culprit cannot run.
type usageError struct {
	problem usageProblem
	word    string // what the problem is in, as written
	r       rune   // oddSpace: the character
	n       int    // tooManyTests: how many
}

func (e *usageError) Error() string {
	var what string
	switch e.problem {
	case notATestName:
		what = codeSpan(truncate(e.word, 40)) + " is not the name of a Go test"
	case tooManyTests:
		what = fmt.Sprintf("at most %d tests, got %d", maxTests, e.n)
	case wrongCase:
		what = codeSpan(truncate(e.word, 40)) + " is written `/culprit`, in lower case"
	case oddSpace:
		what = fmt.Sprintf("`/culprit` is followed by %U, which looks like a space but is not one", e.r)
	case noSpace:
		what = codeSpan(truncate(e.word, 40)) + ": `/culprit` is followed by a space or the end of the line"
	default:
		// parseCommand makes only the problems above.
		panic(fmt.Sprintf("usageError: problem %d", e.problem))
	}
	return errUsage.Error() + ": " + what
}

func (e *usageError) Is(target error) bool { return target == errUsage }

// parseCommand finds the command in a comment's body: the first line,
// outside code blocks and HTML comments, that starts with "/culprit"
// followed by a space or its end (quoted replies start with ">", and
// mentions in prose do not count; see proseLines). It reports ok=false
// when there is none, and a *usageError when that line cannot run, or,
// with no such line, when a line is a near miss ("/culprit.",
// "/Culprit", "/culprit" and a non-breaking space): whoever wrote it
// meant the command, and silence would leave them waiting.
func parseCommand(body string) (cmd command, ok bool, err error) {
	var nearMiss *usageError
	for line := range proseLines(body) {
		args, miss, found := commandLine(line)
		if miss != nil && nearMiss == nil {
			nearMiss = miss
		}
		if !found {
			continue
		}
		cmd, err := parseArgs(args)
		return cmd, true, err
	}
	if nearMiss != nil {
		return command{}, true, nearMiss
	}
	return command{}, false, nil
}

// commandLine reports whether line is a command, and returns its
// arguments; or whether it is a near miss, and what is wrong. A line that
// goes on with a letter, a digit, "-" or "_" is another word
// ("/culprits", "/culprit-bisect"), maybe another bot's command.
func commandLine(line string) (args string, nearMiss *usageError, ok bool) {
	if len(line) < len(commandWord) || !strings.EqualFold(line[:len(commandWord)], commandWord) {
		return "", nil, false
	}
	written, rest := line[:len(commandWord)], line[len(commandWord):]
	r, _ := utf8.DecodeRuneInString(rest)
	word, _, _ := strings.Cut(line, " ")
	switch {
	case rest != "" && (r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)):
		return "", nil, false
	case written != commandWord:
		return "", &usageError{problem: wrongCase, word: word}, false
	case rest == "" || r == ' ' || r == '\t':
		return rest, nil, true
	case unicode.IsSpace(r) || unicode.In(r, unicode.Zs, unicode.Cf):
		return "", &usageError{problem: oddSpace, r: r}, false
	default:
		return "", &usageError{problem: noSpace, word: word}, false
	}
}

// parseArgs parses what follows "/culprit ".
func parseArgs(rest string) (command, error) {
	args := strings.Fields(rest)
	if len(args) > 0 && args[0] == "explain" {
		args = args[1:]
	}
	if len(args) == 0 {
		return command{}, nil
	}
	if len(args) > maxTests {
		return command{}, &usageError{problem: tooManyTests, n: len(args)}
	}
	for _, a := range args {
		if !isTestName(a) {
			return command{}, &usageError{problem: notATestName, word: a}
		}
	}
	return command{Tests: args}, nil
}

// isTestName reports whether name names what go test runs, or a subtest
// of it. The top-level name is a Go identifier that begins with Test,
// Benchmark, Example or Fuzz, followed by nothing or by a character that
// is not a lower-case letter (cmd/go's rule: "Testing" is not a test).
// Each element of a subtest path, as go test prints it, is not empty and
// here is kept to letters, digits and "_.:#-": enough for the names
// go test makes (spaces become "_") and nothing a shell or the
// workflow's run-name (" [TestA TestB]") could take as syntax. The tests
// are passed on space-separated, so a name has no white space, and no
// "]" or new line, which would end the run-name's list.
func isTestName(name string) bool {
	if len(name) > maxTestName {
		return false
	}
	top, sub, hasSub := strings.Cut(name, "/")
	if !isTestFunc(top) {
		return false
	}
	if !hasSub {
		return true
	}
	for elem := range strings.SplitSeq(sub, "/") {
		if elem == "" || strings.IndexFunc(elem, func(r rune) bool { return !isSubtestRune(r) }) >= 0 {
			return false
		}
	}
	return true
}

func isTestFunc(name string) bool {
	for _, prefix := range []string{"Test", "Benchmark", "Example", "Fuzz"} {
		rest, ok := strings.CutPrefix(name, prefix)
		if !ok {
			continue
		}
		if strings.IndexFunc(rest, func(r rune) bool { return r != '_' && !unicode.IsLetter(r) && !unicode.IsDigit(r) }) >= 0 {
			return false
		}
		r, _ := utf8.DecodeRuneInString(rest)
		return rest == "" || !unicode.IsLower(r)
	}
	return false
}

func isSubtestRune(r rune) bool {
	return r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_.:#-", r))
}

// codeSpan renders s, a word from a comment, as Markdown inline code, so
// that echoing it in a reply cannot mention anyone or format anything.
func codeSpan(s string) string {
	ticks := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		return ticks + " " + s + " " + ticks
	}
	return ticks + s + ticks
}

func longestRun(s string, c byte) int {
	longest, n := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			n++
			longest = max(longest, n)
		} else {
			n = 0
		}
	}
	return longest
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
