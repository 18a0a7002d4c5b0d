package action

import (
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/culprit-dev/culprit/analyzer/result"
	"github.com/culprit-dev/culprit/report/reporttest"
	"github.com/sethvargo/go-githubactions"
)

func TestSetOutputCannotBeEndedEarly(t *testing.T) {
	file := filepath.Join(t.TempDir(), "output")
	// A value that would end go-githubactions' fixed delimiter and set a
	// second output.
	forged := "explained\n_GitHubActionsFileCommandDelimeter_\nculprits<<X\n99\nX"
	if err := setOutput(file, "status", forged); err != nil {
		t.Fatal(err)
	}
	if err := setOutput(file, "culprits", "1"); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	// name<<delim, 5 value lines, delim; then name<<delim, 1, delim.
	if len(lines) != 10 {
		t.Fatalf("output file has %d lines:\n%s", len(lines), data)
	}
	_, d1, _ := strings.Cut(lines[0], "<<")
	_, d2, _ := strings.Cut(lines[7], "<<")
	if !strings.HasPrefix(d1, "ghadelimiter_") || len(d1) != len("ghadelimiter_")+32 || d1 == d2 {
		t.Errorf("delimiters %q and %q are not random", d1, d2)
	}
	if lines[6] != d1 || strings.Join(lines[1:6], "\n") != forged {
		t.Errorf("status entry is not the forged value between the delimiters:\n%s", data)
	}
	if err := setOutput(file, "bad\nname", "v"); err == nil {
		t.Error("a name with a newline was written")
	}
}

func TestInert(t *testing.T) {
	in := "ok line\n::add-mask::x\n  ::warning::y\r::stop-commands::z\r\n##[set-output name=a]b\nlast :: fine"
	got := inert(in)
	for _, l := range strings.Split(got, "\n") {
		tl := strings.TrimLeft(l, " \t")
		if strings.HasPrefix(tl, "::") || strings.HasPrefix(tl, "##[") || strings.Contains(l, "\r") {
			t.Errorf("line %q can act as a workflow command", l)
		}
	}
	if !strings.Contains(got, "| ::add-mask::x") || !strings.HasPrefix(got, "ok line\n") || !strings.HasSuffix(got, "\nlast :: fine") {
		t.Errorf("inert(%q) = %q", in, got)
	}
}

func TestValidStatus(t *testing.T) {
	for _, s := range []string{"explained", "not-regression", "flaky", "flaky-regression", "head-build-fails", "unexplained", "no-failing-tests", "error"} {
		if !validStatus(s) {
			t.Errorf("%s rejected", s)
		}
	}
	for _, s := range []string{"", "explained\n::add-mask::x", "Explained", "ok"} {
		if validStatus(s) {
			t.Errorf("%q accepted", s)
		}
	}
}

func TestInsideRepo(t *testing.T) {
	for p, want := range map[string]bool{
		"calc/calc.go": true, "a/../b.go": true, "main.go": true,
		"../x.go": false, "a/../../x.go": false, "/etc/passwd": false, "..": false,
		`C:\x.go`: false, "a\\..\\..\\x": false, "": false, "a\nb": false,
	} {
		if got := insideRepo(p); got != want {
			t.Errorf("insideRepo(%q) = %v, want %v", p, got, want)
		}
	}
}

func TestValidCommentID(t *testing.T) {
	for id, want := range map[string]bool{"": true, "linux-1.22_x": true, "a b": false, "x-->": false, "@me": false, strings.Repeat("a", 65): false} {
		if got := validCommentID(id); got != want {
			t.Errorf("validCommentID(%q) = %v, want %v", id, got, want)
		}
	}
}

// TestStatusesDocumented: action.yml's description of the status output
// and the table of outputs in docs/action.md name every status, and no other.
func TestStatusesDocumented(t *testing.T) {
	var want []string
	for s := range statuses {
		want = append(want, s)
	}
	slices.Sort(want)
	word := regexp.MustCompile(`[a-z]+(-[a-z]+)*`)
	for file, re := range map[string]*regexp.Regexp{
		"../action.yml":     regexp.MustCompile(`(?m)^  status:\n    description: "([^"]*)"`),
		"../docs/action.md": regexp.MustCompile("(?m)^\\| `status` \\| (.*) \\|$"),
	} {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		m := re.FindSubmatch(data)
		if m == nil {
			t.Fatalf("%s: no description of the status output", file)
		}
		var got []string
		for _, w := range word.FindAllString(string(m[1]), -1) {
			// A status, or a hyphenated word that looks like one.
			if statuses[w] || strings.Contains(w, "-") {
				got = append(got, w)
			}
		}
		slices.Sort(got)
		if !slices.Equal(slices.Compact(got), want) {
			t.Errorf("%s documents statuses %v, want %v", file, got, want)
		}
	}
}

// TestJobSummaryIsInert: the job summary of a report whose every string
// is an attack seen in a forged artifact can neither mention, link, open
// HTML nor carry a marker, through the run's summary and jobSummary alike.
func TestJobSummaryIsInert(t *testing.T) {
	for i, attack := range reporttest.Attacks {
		r := new(result.Report)
		reporttest.Fill(r, attack, i%2 == 0)
		r.Status = result.Explained
		reps := []*result.Report{r}

		file := filepath.Join(t.TempDir(), "summary.md")
		getenv := func(k string) string {
			if k == "GITHUB_STEP_SUMMARY" {
				return file
			}
			return ""
		}
		a := githubactions.New(githubactions.WithGetenv(getenv), githubactions.WithWriter(io.Discard))
		ru := &run{Job: &Job{Getenv: getenv, Stdout: io.Discard}, a: a, status: string(result.Explained)}
		ru.summary(reps, 2)
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if err := reporttest.CheckMarkdown(string(data)); err != nil {
			t.Errorf("attack %q: the run's job summary: %v\n%s", attack, err, data)
		}
		if got := jobSummary(reps, ru.status, 2); reporttest.CheckMarkdown(got) != nil {
			t.Errorf("attack %q: jobSummary: %v\n%s", attack, reporttest.CheckMarkdown(got), got)
		}
	}
}

func TestJobSummaryWithoutReports(t *testing.T) {
	for _, tc := range []struct{ status, want string }{
		{StatusNoFailingTests, "## culprit\n\nNo failing test: nothing to explain.\n"},
		{StatusError, "## culprit\n\nStatus: error.\n"},
		{"<img src=x>", "## culprit\n\nStatus: unknown.\n"},
	} {
		if got := jobSummary(nil, tc.status, 0); got != tc.want {
			t.Errorf("jobSummary(nil, %q) = %q, want %q", tc.status, got, tc.want)
		}
	}
}
