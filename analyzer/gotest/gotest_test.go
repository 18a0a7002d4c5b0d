package gotest

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/culprit-dev/culprit/internal/testfiles"
	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"
)

// module is a small module whose tests cover every verdict go test can give.
const module = `
-- go.mod --
module example.com/m

go 1.22
-- calc/calc.go --
package calc

func F(x int) int {
	if x > 2 {
		var m map[string]int
		m["a"] = 1
	}
	return x
}
-- calc/calc_test.go --
package calc

import (
	"os"
	"testing"
	"time"
)

func TestPass(t *testing.T) { t.Log("fine") }

func TestFail(t *testing.T) {
	t.Run("sub one", func(t *testing.T) {
		if got := F(1); got != 2 {
			t.Errorf("F(1) = %d,\nwant 2", got)
		}
	})
	t.Run("ok", func(t *testing.T) {})
}

func TestPanic(t *testing.T) { F(3) }

func TestExit(t *testing.T) { os.Exit(3) }

func TestSkip(t *testing.T) { t.Skip("later") }

func TestHang(t *testing.T) { time.Sleep(time.Minute) }
-- broken/broken.go --
package broken

func G() int {
	y := 2
	return 1
}
-- broken/broken_test.go --
package broken

import "testing"

func TestG(t *testing.T) { G() }
`

// goTestJSON writes the module to a temporary directory and returns that
// directory and the output of go test -json with the given arguments.
func goTestJSON(t *testing.T, args ...string) (string, []byte) {
	t.Helper()
	files := map[string][]byte{}
	for _, f := range txtar.Parse([]byte(module)).Files {
		files[f.Name] = f.Data
	}
	dir := t.TempDir()
	testfiles.Write(t, dir, files)
	cmd := exec.Command("go", append([]string{"test", "-json", "-count=1"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local", "GOFLAGS=")
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("go test: %v: %s", err, stderr.String())
	}
	return dir, out.Bytes()
}

func TestParse(t *testing.T) {
	type verdict struct {
		Ran         bool
		Status      Status
		Sig         string
		BuildFailed bool
		TimedOut    bool
	}
	tests := []struct {
		name    string
		args    []string
		test    string
		want    verdict
		msg     string // prefix of the failure message
		buildRe string // substring of BuildOutput
	}{
		{name: "pass", args: []string{"-run", "^TestPass$", "./calc"}, test: "TestPass",
			want: verdict{Ran: true, Status: Passed}},
		{name: "subtest fails", args: []string{"-run", "^TestFail$", "./calc"}, test: "TestFail/sub one",
			want: verdict{Ran: true, Status: Failed, Sig: "calc/calc_test.go:14"}, msg: "F(1) = 1,\nwant 2"},
		{name: "parent of failing subtest", args: []string{"-run", "^TestFail$", "./calc"}, test: "TestFail",
			want: verdict{Ran: true, Status: Failed, Sig: "calc/calc_test.go:14"}, msg: "F(1) = 1,\nwant 2"},
		{name: "passing sibling", args: []string{"-run", "^TestFail$", "./calc"}, test: "TestFail/ok",
			want: verdict{Ran: true, Status: Passed}},
		{name: "panic", args: []string{"-run", "^TestPanic$", "./calc"}, test: "TestPanic",
			want: verdict{Ran: true, Status: Failed, Sig: "calc/calc.go:6"}, msg: "panic: assignment to entry in nil map"},
		{name: "exit without verdict", args: []string{"-run", "^TestExit$", "./calc"}, test: "TestExit",
			want: verdict{Ran: true, Status: Running}},
		{name: "skip", args: []string{"-run", "^TestSkip$", "./calc"}, test: "TestSkip",
			want: verdict{Ran: true, Status: Skipped}},
		{name: "no such test", args: []string{"-run", "^TestNope$", "./calc"}, test: "TestNope",
			want: verdict{}},
		{name: "own timeout", args: []string{"-run", "^TestHang$", "-timeout", "1s", "./calc"}, test: "TestHang",
			want: verdict{Ran: true, Status: Running, TimedOut: true}},
		{name: "build error", args: []string{"-run", "^TestG$", "./broken"}, test: "TestG",
			want: verdict{BuildFailed: true}, buildRe: "broken.go:4:2: declared and not used: y"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, out := goTestJSON(t, tt.args...)
			run, err := Parse(bytes.NewReader(out))
			if err != nil {
				t.Fatal(err)
			}
			loc := Locator{Root: dir, PkgDir: strings.TrimPrefix(tt.args[len(tt.args)-1], "./")}
			got := verdict{Ran: run.Ran(tt.test), BuildFailed: run.BuildFailed, TimedOut: run.TimedOut()}
			if tc := run.Test(tt.test); tc != nil {
				got.Status = tc.Status
			}
			var msg string
			if !got.TimedOut {
				got.Sig, msg = run.Failure(tt.test, loc)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("verdict (-want +got):\n%s\noutput:\n%s", diff, run.Output())
			}
			if !strings.HasPrefix(msg, tt.msg) {
				t.Errorf("message = %q, want prefix %q", msg, tt.msg)
			}
			if !strings.Contains(run.BuildOutput, tt.buildRe) {
				t.Errorf("build output = %q, want it to contain %q", run.BuildOutput, tt.buildRe)
			}
			if len(run.Malformed) != 0 {
				t.Errorf("malformed lines in real output: %q", run.Malformed)
			}
		})
	}
}

func TestParseMalformed(t *testing.T) {
	_, real := goTestJSON(t, "-run", "^TestPass$", "./calc")
	tests := []struct {
		name      string
		input     string
		wantErr   error
		malformed []string
	}{
		{name: "empty", input: ""},
		{name: "garbage only", input: "not json\n{broken\n", wantErr: ErrNoEvents},
		{name: "json without action", input: "{\"x\":1}\n", wantErr: ErrNoEvents},
		{name: "garbage kept among events", input: "go: downloading x\n" + string(real) + "{trunc",
			malformed: []string{"go: downloading x", "{trunc"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run, err := Parse(strings.NewReader(tt.input))
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Parse error = %v, want %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if diff := cmp.Diff(tt.malformed, run.Malformed); diff != "" {
				t.Errorf("malformed (-want +got):\n%s", diff)
			}
			if len(tt.malformed) > 0 && !strings.Contains(run.Output(), "go: downloading x\n") {
				t.Errorf("malformed line missing from Output:\n%s", run.Output())
			}
		})
	}
}

func TestRunPattern(t *testing.T) {
	tests := []struct{ name, want string }{
		{"TestF", "^TestF$"},
		{"TestF/sub one", "^TestF$/^sub_one$"},
		{"TestF/a.b(c)/x", `^TestF$/^a\.b\(c\)$/^x$`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, RunPattern(tt.name)); diff != "" {
				t.Errorf("RunPattern (-want +got):\n%s", diff)
			}
		})
	}
}
