package bot

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseCommand(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		wantOK  bool
		want    []string
		wantErr usageProblem // 0: none
	}{
		{name: "bare", body: "/culprit", wantOK: true},
		{name: "explain", body: "/culprit explain", wantOK: true},
		{name: "tests", body: "/culprit TestA TestB/sub", wantOK: true, want: []string{"TestA", "TestB/sub"}},
		{name: "explain and tests", body: "/culprit explain  TestA\tTestB", wantOK: true, want: []string{"TestA", "TestB"}},
		{name: "later line, CRLF", body: "Looks odd.\r\n\r\n  /culprit explain TestA\r\nthanks", wantOK: true, want: []string{"TestA"}},
		{name: "first command wins", body: "/culprit TestA\n/culprit TestB", wantOK: true, want: []string{"TestA"}},
		{name: "mid-line mention", body: "try /culprit TestA", wantOK: false},
		{name: "quoted", body: "> /culprit TestA", wantOK: false},
		{name: "other command", body: "/culprits", wantOK: false},
		{name: "in a code fence", body: "```\n/culprit TestA\n```", wantOK: false},
		{name: "after a code fence", body: "```\nx\n```\n/culprit TestA", wantOK: true, want: []string{"TestA"}},
		{name: "empty", body: "", wantOK: false},
		{name: "shell metacharacters", body: "/culprit TestA;rm", wantOK: true, wantErr: notATestName},
		{name: "substitution", body: "/culprit $(id)", wantOK: true, wantErr: notATestName},
		{name: "too many tests", body: "/culprit" + strings.Repeat(" T", maxTests+1), wantOK: true, wantErr: tooManyTests},
		{name: "too long a name", body: "/culprit Test" + strings.Repeat("x", maxTestName), wantOK: true, wantErr: notATestName},

		// Words are not test names: go test runs the functions named
		// Test, Benchmark, Example or Fuzz followed by anything but a
		// lower-case letter, and their subtests.
		{name: "a word", body: "/culprit please", wantOK: true, wantErr: notATestName},
		{name: "a sentence", body: "/culprit explain this failure", wantOK: true, wantErr: notATestName},
		{name: "a test and a word", body: "/culprit TestA please", wantOK: true, wantErr: notATestName},
		{name: "lower case after the prefix", body: "/culprit Testing", wantOK: true, wantErr: notATestName},
		{name: "a file and line", body: "/culprit sum_test.go:12", wantOK: true, wantErr: notATestName},
		{name: "every kind of test", body: "/culprit Test BenchmarkSum ExampleSum Example_sum FuzzParse Test_x TestÜber TestA/sub/x-1.5",
			wantOK: true, want: []string{"Test", "BenchmarkSum", "ExampleSum", "Example_sum", "FuzzParse", "Test_x", "TestÜber", "TestA/sub/x-1.5"}},
		{name: "an empty subtest", body: "/culprit TestA//b", wantOK: true, wantErr: notATestName},
		{name: "a trailing slash", body: "/culprit TestA/", wantOK: true, wantErr: notATestName},
		{name: "a bracket, which would end the run-name's list", body: "/culprit TestA]", wantOK: true, wantErr: notATestName},
		{name: "a bracket in a subtest", body: "/culprit TestA/b]", wantOK: true, wantErr: notATestName},

		// Code blocks and comments, as CommonMark and GitHub read them.
		{name: "a fence closed only by one as long", body: "````md\n```\n/culprit TestA\n```\n````", wantOK: false},
		{name: "a fence closed only by its own character", body: "```go\n~~~\n/culprit TestA\n```", wantOK: false},
		{name: "a command after a ~~~ block holding ```go", body: "~~~\n```go\n~~~\n/culprit TestA", wantOK: true, want: []string{"TestA"}},
		{name: "a closing fence has no info string", body: "```\n``` x\n/culprit TestA\n```", wantOK: false},
		{name: "an unclosed fence runs to the end", body: "```\n/culprit TestA", wantOK: false},
		{name: "a fence indented three spaces", body: "   ```\n/culprit TestA\n   ```", wantOK: false},
		{name: "backticks in the info string: not a fence", body: "``` a`b\n/culprit TestA", wantOK: true, want: []string{"TestA"}},
		{name: "a fence indented four spaces is code, not a fence", body: "    ```\n/culprit TestA", wantOK: true, want: []string{"TestA"}},
		{name: "an indented code block", body: "Run this:\n\n    /culprit TestA", wantOK: false},
		{name: "an indented code block at the start", body: "    /culprit TestA", wantOK: false},
		{name: "a tab-indented code block", body: "\t/culprit TestA", wantOK: false},
		{name: "an indented code block after a heading", body: "# Run\n    /culprit TestA", wantOK: false},
		{name: "a paragraph's indented continuation", body: "Please run\n    /culprit TestA", wantOK: true, want: []string{"TestA"}},
		{name: "an HTML comment", body: "<!--\n/culprit TestA\n-->", wantOK: false},
		{name: "an HTML comment on one line", body: "<!-- /culprit TestA -->", wantOK: false},
		{name: "a command after an HTML comment", body: "<!-- template -->\n/culprit TestA", wantOK: true, want: []string{"TestA"}},
		{name: "a command after an empty HTML comment", body: "<!-->\n/culprit TestA", wantOK: true, want: []string{"TestA"}},
		{name: "a comment after the command", body: "/culprit TestA <!-- flaky? --> TestB", wantOK: true, want: []string{"TestA", "TestB"}},
		{name: "a comment opened after the command", body: "/culprit TestA <!--\nTestB\n-->", wantOK: true, want: []string{"TestA"}},
		{name: "a text after a comment's end", body: "<!--\nnote --> /culprit TestA", wantOK: false},
		{name: "a fence in a comment", body: "<!--\n```\n-->\n/culprit TestA", wantOK: true, want: []string{"TestA"}},
		{name: "a comment in a fence", body: "```\n<!--\n```\n/culprit TestA", wantOK: true, want: []string{"TestA"}},

		// Near misses get the usage.
		{name: "a full stop", body: "/culprit.", wantOK: true, wantErr: noSpace},
		{name: "a colon", body: "/culprit: TestA", wantOK: true, wantErr: noSpace},
		{name: "capitalised", body: "/Culprit", wantOK: true, wantErr: wrongCase},
		{name: "upper case with a test", body: "/CULPRIT TestA", wantOK: true, wantErr: wrongCase},
		{name: "a non-breaking space", body: "/culprit\u00a0TestA", wantOK: true, wantErr: oddSpace},
		{name: "a zero-width space", body: "/culprit\u200b", wantOK: true, wantErr: oddSpace},
		{name: "a near miss, then the command", body: "/Culprit\n/culprit TestA", wantOK: true, want: []string{"TestA"}},
		{name: "a near miss in a fence", body: "```\n/Culprit\n```", wantOK: false},
		{name: "another command with a dash", body: "/culprit-bisect", wantOK: false},
		{name: "another command with an underscore", body: "/culprit_x", wantOK: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd, ok, err := parseCommand(tt.body)
			if ok != tt.wantOK {
				t.Fatalf("ok = %v, want %v", ok, tt.wantOK)
			}
			var problem usageProblem
			var ue *usageError
			if errors.As(err, &ue) {
				problem = ue.problem
			}
			if err != nil && (problem == 0 || !errors.Is(err, errUsage)) {
				t.Fatalf("err = %v, want a *usageError, which is errUsage", err)
			}
			if problem != tt.wantErr {
				t.Fatalf("err = %v, want problem %d", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, cmd.Tests); diff != "" {
				t.Errorf("tests (-want +got):\n%s", diff)
			}
		})
	}
}

func FuzzParseCommand(f *testing.F) {
	for _, s := range []string{"/culprit", "/culprit explain TestA TestB/x", "a\n/culprit T\r\n", "```\n/culprit\n```", "/culprit $(x)", "/culprit\u00a0T",
		"````\n```\n/culprit\n```\n````", "<!--\n/culprit\n-->", "\n    /culprit", "/Culprit.", "/culprit please"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		cmd, ok, err := parseCommand(body)
		if !ok && (err != nil || cmd.Tests != nil) {
			t.Fatalf("no command but cmd=%v err=%v", cmd, err)
		}
		if err != nil {
			return
		}
		if len(cmd.Tests) > maxTests {
			t.Fatalf("%d tests", len(cmd.Tests))
		}
		for _, name := range cmd.Tests {
			// The names go into the run-name's " [TestA TestB]" and a
			// shell's words.
			if !isTestName(name) || len(name) > maxTestName || strings.ContainsAny(name, "]\n\r\t $`'\"\\;|&<>(){}*?!") {
				t.Fatalf("accepted test name %q", name)
			}
		}
		if ok {
			// The parsed command, written back, parses to itself.
			again, ok2, err2 := parseCommand("/culprit explain " + strings.Join(cmd.Tests, " "))
			if !ok2 || err2 != nil || !cmp.Equal(again.Tests, cmd.Tests) {
				t.Fatalf("round trip of %q: %v %v %v", cmd.Tests, again, ok2, err2)
			}
		}
	})
}
