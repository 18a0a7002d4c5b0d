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
		wantErr bool
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
		{name: "shell metacharacters", body: "/culprit TestA;rm", wantOK: true, wantErr: true},
		{name: "substitution", body: "/culprit $(id)", wantOK: true, wantErr: true},
		{name: "too many tests", body: "/culprit" + strings.Repeat(" T", maxTests+1), wantOK: true, wantErr: true},
		{name: "too long a name", body: "/culprit T" + strings.Repeat("x", maxTestName), wantOK: true, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd, ok, err := parseCommand(tt.body)
			if ok != tt.wantOK {
				t.Fatalf("ok = %v, want %v", ok, tt.wantOK)
			}
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if err != nil && !errors.Is(err, errUsage) {
				t.Errorf("err = %v, want it to wrap errUsage", err)
			}
			if diff := cmp.Diff(tt.want, cmd.Tests); diff != "" {
				t.Errorf("tests (-want +got):\n%s", diff)
			}
		})
	}
}

func FuzzParseCommand(f *testing.F) {
	for _, s := range []string{"/culprit", "/culprit explain TestA TestB/x", "a\n/culprit T\r\n", "```\n/culprit\n```", "/culprit $(x)", "/culprit\u00a0T"} {
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
			if !testNamePattern.MatchString(name) || len(name) > maxTestName {
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
