// Package gotest reads what `go test -json` reports: the verdict of each test
// and subtest, their output, build failures, and the failure signature (the
// first failing assertion or the panic site) that tells one failure from
// another.
package gotest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// Event is one line of `go test -json` output (see `go doc test2json`).
// ImportPath and FailedBuild come from the build events that Go 1.24 and
// later interleave with the test events.
type Event struct {
	Time        time.Time
	Action      string
	Package     string
	Test        string
	Output      string
	Elapsed     float64
	ImportPath  string
	FailedBuild string
}

// Status is a test's or package's verdict.
type Status string

const (
	Passed  Status = "pass"
	Failed  Status = "fail"
	Skipped Status = "skip"
	// Running means the test started but the binary ended without a
	// verdict for it: it crashed or was killed.
	Running Status = "run"
)

// Test is one test or subtest seen in a run.
type Test struct {
	Package string
	Name    string // as go test prints it: spaces in subtest names become "_"
	Status  Status
	Output  string // the test's own output lines, in order
	Elapsed time.Duration
}

// Package is the verdict of one package.
type Package struct {
	Path   string
	Status Status // "" when the package never reported one
	// FailedBuild names the package whose build failed, if any.
	FailedBuild string
	Output      string // output not attributed to any test
}

// Run is one parsed `go test -json` stream.
type Run struct {
	Tests    []*Test // in the order they started
	Packages []*Package
	// BuildOutput holds the compiler's output ("# pkg" headers and
	// "file:line:col: message" lines) from build-output events.
	BuildOutput string
	// BuildFailed is true when any build-fail event or FailedBuild field
	// was seen.
	BuildFailed bool
	// Malformed holds input lines that were not JSON events, in order.
	Malformed []string

	tests    map[string]*Test
	packages map[string]*Package
	out      strings.Builder // all output, as plain text
}

// ErrNoEvents is returned by Parse when the input has content but not one
// test2json event.
var ErrNoEvents = errors.New("no go test -json events")

// Parse reads a `go test -json` stream. Lines that are not JSON events are
// kept in Malformed and in the plain output; an input made only of such
// lines is an error wrapping ErrNoEvents. An empty input gives an empty Run.
func Parse(r io.Reader) (*Run, error) {
	run := &Run{tests: map[string]*Test{}, packages: map[string]*Package{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 64*1024*1024)
	events, lineNo := 0, 0
	var firstBad string
	for sc.Scan() {
		lineNo++
		line := sc.Bytes()
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var ev Event
		if err := json.Unmarshal(line, &ev); err != nil || ev.Action == "" {
			if firstBad == "" {
				firstBad = fmt.Sprintf("line %d: %q", lineNo, truncate(string(line), 80))
			}
			run.Malformed = append(run.Malformed, string(line))
			run.out.WriteString(string(line) + "\n")
			continue
		}
		events++
		run.add(ev)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading go test -json output: %w", err)
	}
	if events == 0 && firstBad != "" {
		return nil, fmt.Errorf("parsing go test -json output: %w (%s)", ErrNoEvents, firstBad)
	}
	return run, nil
}

func (run *Run) add(ev Event) {
	switch ev.Action {
	case "build-output":
		run.BuildOutput += ev.Output
		run.out.WriteString(ev.Output)
		return
	case "build-fail":
		run.BuildFailed = true
		return
	}
	if ev.FailedBuild != "" {
		run.BuildFailed = true
	}
	pkg := run.packages[ev.Package]
	if pkg == nil {
		pkg = &Package{Path: ev.Package}
		run.packages[ev.Package] = pkg
		run.Packages = append(run.Packages, pkg)
	}
	if ev.Test == "" {
		switch ev.Action {
		case "output":
			pkg.Output += ev.Output
			run.out.WriteString(ev.Output)
		case "pass", "fail", "skip":
			pkg.Status = Status(ev.Action)
			if ev.FailedBuild != "" {
				pkg.FailedBuild = ev.FailedBuild
			}
		}
		return
	}
	key := ev.Package + "\x00" + ev.Test
	t := run.tests[key]
	if t == nil {
		t = &Test{Package: ev.Package, Name: ev.Test, Status: Running}
		run.tests[key] = t
		run.Tests = append(run.Tests, t)
	}
	switch ev.Action {
	case "output":
		t.Output += ev.Output
		run.out.WriteString(ev.Output)
	case "pass", "fail", "skip":
		t.Status = Status(ev.Action)
		t.Elapsed = time.Duration(ev.Elapsed * float64(time.Second))
	}
}

// Output is the whole run as plain text, as `go test` without -json would
// have printed it (malformed lines included).
func (run *Run) Output() string { return run.out.String() }

// Test returns the test with the given name (a "Top/sub" path; spaces are
// matched as go test rewrites them), or nil if it never started. When
// several packages ran a test of that name, the first one wins.
func (run *Run) Test(name string) *Test {
	name = TestName(name)
	for _, t := range run.Tests {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// Ran reports whether the named test started.
func (run *Run) Ran(name string) bool { return run.Test(name) != nil }

// family returns the named test and its subtests, in start order.
func (run *Run) family(name string) []*Test {
	name = TestName(name)
	var ts []*Test
	for _, t := range run.Tests {
		if t.Name == name || strings.HasPrefix(t.Name, name+"/") {
			ts = append(ts, t)
		}
	}
	return ts
}

// Leaves returns the named test's subtests that have no subtests of their
// own, in start order; the named test itself when it has none.
func (run *Run) Leaves(name string) []*Test {
	fam := run.family(name)
	var out []*Test
	for i, t := range fam {
		parent := false
		for _, u := range fam[i+1:] {
			if strings.HasPrefix(u.Name, t.Name+"/") {
				parent = true
				break
			}
		}
		if !parent {
			out = append(out, t)
		}
	}
	return out
}

// TopLevel is the top-level test of a test path: "TestF" of "TestF/a/b".
func TopLevel(name string) string {
	top, _, _ := strings.Cut(name, "/")
	return top
}

// TestName rewrites a test path the way go test prints it: spaces in each
// element become underscores.
func TestName(name string) string { return strings.ReplaceAll(name, " ", "_") }

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
