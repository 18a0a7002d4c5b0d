package gotest

import (
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// Locator turns the file names in test output into paths relative to the
// repository.
type Locator struct {
	// Root is the absolute directory of the repository (or worktree) the
	// test ran in; stack frames under it are inside the repository.
	Root string
	// PkgDir is the test's package directory, slash-separated and relative
	// to Root ("." for the root). go test prints only the base name of the
	// file in an assertion line, which is resolved against it.
	PkgDir string
}

var (
	// "    calc_test.go:7: F(3, 1, 2) = 4, want 5"
	assertionRE = regexp.MustCompile(`^(\s+)([^\s:/]+\.go):(\d+): ?(.*)$`)
	// "\t/abs/path/calc.go:12 +0x1d" (the offset is absent for inlined frames)
	frameRE = regexp.MustCompile(`^\t(/.*\.go):(\d+)(?: \+0x[0-9a-f]+)?$`)
)

// Failure gives the signature ("file:line", relative to the repository) and
// the message of the first failure of the named test or its subtests: the
// first assertion line in the output of a failed test, or, when the test
// panicked first, the innermost stack frame inside the repository. It
// returns empty strings when there is none.
func (run *Run) Failure(name string, loc Locator) (sig, msg string) {
	for _, t := range run.family(name) {
		if t.Status != Failed && t.Status != Running {
			continue
		}
		if sig, msg := loc.scan(t.Output); sig != "" {
			return sig, msg
		}
	}
	// A crash of the binary outside the test goroutine can leave the panic
	// in the package's own output.
	for _, p := range run.Packages {
		if sig, msg := loc.scan(p.Output); sig != "" {
			return sig, msg
		}
	}
	return "", ""
}

// FailureOf is Failure for one test alone, without its subtests or the
// package's output.
func (t *Test) FailureOf(loc Locator) (sig, msg string) {
	return loc.scan(t.Output)
}

// scan finds the first assertion or panic site in output.
func (loc Locator) scan(output string) (sig, msg string) {
	lines := strings.Split(output, "\n")
	for i, line := range lines {
		if strings.HasPrefix(line, "panic: ") || strings.HasPrefix(line, "fatal error: ") {
			if sig := loc.frame(lines[i+1:]); sig != "" {
				return sig, strings.TrimSpace(line)
			}
			continue
		}
		m := assertionRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		return path.Join(loc.PkgDir, m[2]) + ":" + m[3], message(m, lines[i+1:])
	}
	return "", ""
}

// message is the message of the assertion line m (assertionRE's match)
// with its continuation lines among rest, which are indented one level
// deeper than the first.
func message(m []string, rest []string) string {
	msg := m[4]
	deeper := m[1] + "    "
	for _, next := range rest {
		if !strings.HasPrefix(next, deeper) {
			break
		}
		msg += "\n" + strings.TrimPrefix(next, deeper)
	}
	return msg
}

// MessagesAt returns every assertion message in output printed at line of
// file (a path whose base name go test prints), in order: each instance
// of an assertion a loop or several goroutines reach.
func MessagesAt(output, file string, line int) []string {
	want := path.Base(file) + ":" + strconv.Itoa(line)
	lines := strings.Split(output, "\n")
	var out []string
	for i, l := range lines {
		if m := assertionRE.FindStringSubmatch(l); m != nil && m[2]+":"+m[3] == want {
			out = append(out, message(m, lines[i+1:]))
		}
	}
	return out
}

// frame returns the first stack frame under Root in the lines following a
// panic, as "file:line" relative to Root.
func (loc Locator) frame(lines []string) string {
	if loc.Root == "" {
		return ""
	}
	root := filepath.ToSlash(filepath.Clean(loc.Root)) + "/"
	for _, line := range lines {
		m := frameRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		if rel, ok := strings.CutPrefix(filepath.ToSlash(m[1]), root); ok {
			return rel + ":" + m[2]
		}
	}
	return ""
}

// TimedOut reports whether the test binary gave up on its own -timeout.
func (run *Run) TimedOut() bool {
	return strings.Contains(run.out.String(), "panic: test timed out after ")
}

// RunPattern returns the -run pattern that selects exactly the named test
// (a "Top/sub/subsub" path): each element is quoted and anchored, and spaces
// become underscores as go test rewrites subtest names.
func RunPattern(name string) string {
	parts := strings.Split(TestName(name), "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}
