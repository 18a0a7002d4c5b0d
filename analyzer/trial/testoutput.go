package trial

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/culprit-dev/culprit/analyzer/gotest"
)

// Limits on the text kept in a Result.
const (
	maxMessage = 4 << 10
	maxOutput  = 16 << 10
)

// classifier turns one go test process into a Result.
type classifier struct {
	root       string // the worktree the test ran in
	cwd        string // where go ran
	overlayDir string // the overlay's files, if any
	prefix     string // Config.Dir relative to the repository
	pkgDir     string // the package relative to the repository
	test       string
}

// result turns the process's output into a Result whose texts name files
// relative to the repository.
func (c classifier) result(out run) (Result, error) {
	res, err := c.verdict(out)
	return c.unrooted(res), err
}

// unrooted is res with the trial's private directories removed from its
// texts.
func (c classifier) unrooted(res Result) Result {
	res.Message, res.Output = c.unroot(res.Message), c.unroot(res.Output)
	return res
}

// unroot removes the trial's private directories from paths in s.
func (c classifier) unroot(s string) string {
	for _, dir := range []string{c.overlayDir, c.root} {
		if dir != "" {
			s = strings.ReplaceAll(s, dir+"/", "")
		}
	}
	return s
}

func (c classifier) verdict(out run) (Result, error) {
	res := Result{Duration: out.duration, CPU: out.cpu, PeakRSS: out.peakRSS}
	if out.overMemory != "" {
		// Killed mid-run: whatever the output says so far is no verdict.
		res.Outcome, res.Message, res.OverMemory = Crash, out.overMemory, true
		res.Output = tail(string(out.stdout)+string(out.stderr), maxOutput)
		return res, nil
	}
	p, err := gotest.Parse(bytes.NewReader(out.stdout))
	if errors.Is(err, gotest.ErrNoEvents) && out.exitCode != 0 && !out.timedOut {
		// The go command failed before building anything (a broken
		// go.mod, say) and printed why outside the JSON stream.
		res.Outcome = BuildError
		res.Message = c.relative(tail(string(out.stdout)+string(out.stderr), maxMessage))
		res.Output = tail(string(out.stdout)+string(out.stderr), maxOutput)
		return res, nil
	}
	if err != nil {
		return res, fmt.Errorf("reading go test output: %w", err)
	}
	res.Output = tail(p.Output()+string(out.stderr), maxOutput)
	t := p.Test(c.test)
	switch {
	case out.timedOut:
		res.Outcome = Timeout
		return res, nil
	case p.BuildFailed:
		res.Outcome = BuildError
		res.Message = c.relative(tail(p.BuildOutput+string(out.stderr), maxMessage))
		return res, nil
	case p.TimedOut():
		// The test's own -timeout, which comes before ours: it panicked
		// and printed every goroutine, so the signature is where the
		// first of them waits in the repository.
		res.Outcome = Timeout
	case t == nil && out.exitCode == 0, t != nil && t.Status == gotest.Skipped:
		res.Outcome = NoTests
		return res, nil
	case t == nil && finished(p.Test(gotest.TopLevel(c.test))):
		// A subtest that never started while its top-level test ran to
		// its end, failing on a check of its own or not: no subtest of
		// that name runs in this variant. It is not a crash, which
		// would be the named test's own.
		res.Outcome = NoTests
		return res, nil
	case t != nil && t.Status == gotest.Passed:
		res.Outcome = Pass
		res.Subtests = c.subtests(p, gotest.Locator{Root: c.root, PkgDir: c.pkgDir})
		return res, nil
	case t != nil && t.Status == gotest.Failed:
		res.Outcome = Fail
	case len(p.Packages) == 0 && out.exitCode != 0:
		// Nothing ran and nothing was built: the go command itself
		// failed, and said why on stderr.
		res.Outcome = BuildError
		res.Message = c.relative(tail(string(out.stderr), maxMessage))
		return res, nil
	default:
		// The test started but never finished, or the binary died before
		// it started (init, TestMain): no verdict.
		res.Outcome = Crash
	}
	loc := gotest.Locator{Root: c.root, PkgDir: c.pkgDir}
	res.Subtests = c.subtests(p, loc)
	res.Signature, res.Message = p.Failure(c.test, loc)
	if res.Message == "" && res.Outcome == Crash {
		res.Message = tail(p.Output(), maxMessage)
	}
	res.Message = truncate(res.Message, maxMessage)
	return res, nil
}

// finished reports whether t ran to a verdict of its own.
func finished(t *gotest.Test) bool {
	return t != nil && (t.Status == gotest.Passed || t.Status == gotest.Failed)
}

// subtests lists the leaf subtests of the named test, nil when it has none.
func (c classifier) subtests(p *gotest.Run, loc gotest.Locator) []Subtest {
	leaves := p.Leaves(c.test)
	if len(leaves) == 1 && leaves[0].Name == gotest.TestName(c.test) {
		return nil
	}
	out := make([]Subtest, 0, len(leaves))
	for _, t := range leaves {
		st := Subtest{Name: t.Name}
		switch t.Status {
		case gotest.Passed:
			st.Outcome = Pass
		case gotest.Skipped:
			st.Outcome = NoTests
		case gotest.Failed:
			st.Outcome = Fail
			st.Signature, _ = t.FailureOf(loc)
		default:
			st.Outcome = Crash
			st.Signature, _ = t.FailureOf(loc)
		}
		out = append(out, st)
	}
	return out
}

// relative rewrites the paths in compiler messages to be relative to the
// repository: absolute paths in the overlay or the worktree, and "./x.go"
// paths relative to where go ran.
func (c classifier) relative(msg string) string {
	// The overlay's files are named relative to where go ran too
	// ("../ov3/calc/calc.go"); under the overlay directory they sit at
	// their repository paths.
	ov := ""
	if c.overlayDir != "" {
		if rel, err := filepath.Rel(c.cwd, c.overlayDir); err == nil {
			ov = filepath.ToSlash(rel) + "/"
		}
	}
	lines := strings.Split(msg, "\n")
	for i, l := range lines {
		switch {
		case ov != "" && strings.HasPrefix(l, ov):
			lines[i] = strings.TrimPrefix(l, ov)
		case relPosRE.MatchString(l):
			lines[i] = pathJoin(c.prefix, strings.TrimPrefix(l, "./"))
		}
	}
	return strings.TrimSpace(c.unroot(strings.Join(lines, "\n")))
}

// relPosRE matches a compiler message whose position is relative to the
// directory go ran in.
var relPosRE = regexp.MustCompile(`^[^\s/#][^\s:]*\.go:\d+`)

// tail keeps the last n bytes of s, at a line boundary when it can.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[len(s)-n:]
	if i := strings.IndexByte(s, '\n'); i >= 0 && i < len(s)-1 {
		s = s[i+1:]
	}
	return "…\n" + s
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
