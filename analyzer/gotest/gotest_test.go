package gotest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

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

// goTestJSON returns the directory of the module, written once for the
// package's tests, and the output of go test -json with the given
// arguments, run once for each distinct argument list: several cases read
// the same run, and one directory lets the build cache serve every run
// after the first.
func goTestJSON(t *testing.T, args ...string) (string, []byte) {
	t.Helper()
	key := strings.Join(args, "\x00")
	runs.Lock()
	r := runs.byArgs[key]
	if r == nil {
		r = &goTestRun{}
		runs.byArgs[key] = r
	}
	runs.Unlock()
	r.once.Do(func() { r.out, r.err = runGoTest(args) })
	if r.err != nil {
		t.Fatal(r.err)
	}
	return runs.dir, r.out
}

// runs holds the module's directory (made by TestMain) and the go test
// runs made in it.
var runs = struct {
	sync.Mutex
	dir    string
	byArgs map[string]*goTestRun
}{byArgs: map[string]*goTestRun{}}

type goTestRun struct {
	once sync.Once
	out  []byte
	err  error
}

func runGoTest(args []string) ([]byte, error) {
	cmd := exec.Command("go", append([]string{"test", "-json", "-count=1"}, args...)...)
	cmd.Dir = runs.dir
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local", "GOFLAGS=")
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return nil, fmt.Errorf("go test: %v: %s", err, stderr.String())
	}
	return out.Bytes(), nil
}

func TestMain(m *testing.M) {
	os.Exit(withModule(m))
}

// withModule writes the module to a temporary directory for the tests'
// go test runs, runs the tests and removes it.
func withModule(m *testing.M) int {
	dir, err := os.MkdirTemp("", "gotest-module-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	for _, f := range txtar.Parse([]byte(module)).Files {
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	runs.dir = dir
	return m.Run()
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
