package action_test

// This file runs action.yml the way the runner runs a composite action.
// go.mod has no YAML library, and action.yml needs only a small part of
// YAML (block mappings and lists, plain/quoted scalars, | and >- blocks),
// so a purpose-built reader of that subset is enough; any construct it
// does not know fails the test, which keeps action.yml (and the example
// workflow, read by workflows_test.go) within it.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type yamlLine struct {
	indent int
	text   string // without indentation
	no     int
}

func readYAML(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var lines []yamlLine
	for i, l := range strings.Split(string(data), "\n") {
		if strings.Contains(l, "\t") && strings.TrimSpace(l) != "" && strings.Index(l, "\t") < len(l)-len(strings.TrimLeft(l, " \t")) {
			t.Fatalf("%s:%d: tab in indentation", path, i+1)
		}
		lines = append(lines, yamlLine{indent: len(l) - len(strings.TrimLeft(l, " ")), text: strings.TrimLeft(l, " "), no: i + 1})
	}
	p := &yamlParser{t: t, path: path, lines: lines}
	v, _ := p.block(0, 0)
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("%s: top level is not a mapping", path)
	}
	return m
}

type yamlParser struct {
	t     *testing.T
	path  string
	lines []yamlLine
}

func (p *yamlParser) skip(i int) int {
	for i < len(p.lines) && (strings.TrimSpace(p.lines[i].text) == "" || strings.HasPrefix(p.lines[i].text, "#")) {
		i++
	}
	return i
}

// block parses the mapping or list that starts at line i with the given
// indentation, returning it and the next line.
func (p *yamlParser) block(i, indent int) (any, int) {
	i = p.skip(i)
	if i < len(p.lines) && strings.HasPrefix(p.lines[i].text, "- ") {
		var list []any
		for i = p.skip(i); i < len(p.lines) && p.lines[i].indent == indent && strings.HasPrefix(p.lines[i].text, "- "); i = p.skip(i) {
			// "- v" is a scalar item when v is no "key:" or "key: v".
			if item := p.lines[i].text[2:]; !strings.Contains(item, ": ") && !strings.HasSuffix(item, ":") {
				list = append(list, p.scalar(p.lines[i], item))
				i++
				continue
			}
			// "- key: v" is a mapping whose first key sits two columns in.
			p.lines[i].text = p.lines[i].text[2:]
			p.lines[i].indent += 2
			var v any
			v, i = p.block(i, indent+2)
			list = append(list, v)
		}
		return list, i
	}
	m := map[string]any{}
	for i = p.skip(i); i < len(p.lines) && p.lines[i].indent == indent; i = p.skip(i) {
		l := p.lines[i]
		key, rest, ok := strings.Cut(l.text, ":")
		if !ok || (rest != "" && rest[0] != ' ') {
			p.t.Fatalf("%s:%d: want \"key: value\", got %q", p.path, l.no, l.text)
		}
		rest = strings.TrimSpace(rest)
		i++
		switch {
		case rest == "":
			next := p.skip(i)
			if next < len(p.lines) && p.lines[next].indent > indent {
				m[key], i = p.block(next, p.lines[next].indent)
			} else {
				m[key] = ""
			}
		case rest == "|" || rest == ">-" || rest == ">":
			var body []string
			blockIndent := -1
			for ; i < len(p.lines) && (strings.TrimSpace(p.lines[i].text) == "" || p.lines[i].indent > indent); i++ {
				if strings.TrimSpace(p.lines[i].text) == "" {
					body = append(body, "")
					continue
				}
				if blockIndent < 0 {
					blockIndent = p.lines[i].indent
				}
				body = append(body, strings.Repeat(" ", p.lines[i].indent-blockIndent)+p.lines[i].text)
			}
			for len(body) > 0 && body[len(body)-1] == "" {
				body = body[:len(body)-1]
			}
			if rest == "|" {
				m[key] = strings.Join(body, "\n") + "\n"
			} else {
				m[key] = strings.Join(strings.Fields(strings.Join(body, " ")), " ")
			}
		case rest == "{}":
			m[key] = map[string]any{}
		case rest == "[]":
			m[key] = []any{}
		default:
			m[key] = p.scalar(l, rest)
		}
	}
	return m, i
}

func (p *yamlParser) scalar(l yamlLine, s string) string {
	switch s[0] {
	case '"':
		v, err := strconv.Unquote(s)
		if err != nil {
			p.t.Fatalf("%s:%d: bad double-quoted string %s", p.path, l.no, s)
		}
		return v
	case '\'':
		if len(s) < 2 || s[len(s)-1] != '\'' {
			p.t.Fatalf("%s:%d: bad single-quoted string %s", p.path, l.no, s)
		}
		return strings.ReplaceAll(s[1:len(s)-1], "''", "'")
	case '[', '{', '&', '*', '!', '|', '>', '%', '@', '`':
		p.t.Fatalf("%s:%d: unsupported YAML %q", p.path, l.no, s)
	}
	if i := strings.Index(s, " #"); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	if strings.Contains(s, ": ") {
		p.t.Fatalf("%s:%d: %q is not valid as a plain scalar (\": \"); quote it", p.path, l.no, s)
	}
	return s
}

var exprRE = regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`)

// evalExpr expands ${{ … }} for the contexts action.yml may use.
func evalExpr(t *testing.T, s string, ctx map[string]string) string {
	t.Helper()
	return exprRE.ReplaceAllStringFunc(s, func(m string) string {
		expr := exprRE.FindStringSubmatch(m)[1]
		v, ok := ctx[expr]
		if !ok && strings.HasPrefix(expr, "steps.") && strings.Contains(expr, ".outputs.") {
			return "" // an output the step did not set is empty, as on a runner
		}
		if !ok {
			t.Fatalf("action.yml: unsupported expression %q", m)
		}
		return v
	})
}

// compositeRun is what runComposite saw.
type compositeRun struct {
	outputs map[string]string
	log     string
	// uses are the steps that run another action, with their inputs
	// evaluated, in order; steps skipped by their if: are not listed.
	uses []usedAction
	err  error // the first failing step's
}

type usedAction struct {
	uses string
	with map[string]string
}

// actionsUsed are the actions action.yml may use; runComposite does not
// run them (the test stands for what they do, as a cache miss does).
var actionsUsed = map[string]bool{"actions/cache/restore@v4": true, "actions/cache/save@v4": true}

// ifRE is the one form of if: condition action.yml uses.
var ifRE = regexp.MustCompile(`^(\S+) (==|!=) '([^']*)'$`)

func evalIf(t *testing.T, cond string, ctx map[string]string) bool {
	t.Helper()
	m := ifRE.FindStringSubmatch(cond)
	if m == nil {
		t.Fatalf("action.yml: unsupported if: %q", cond)
	}
	v, ok := ctx[m[1]]
	if !ok && !strings.HasPrefix(m[1], "steps.") {
		// An output a step did not set is empty; anything else is a typo.
		t.Fatalf("action.yml: if: %q uses an unknown value", cond)
	}
	return (v == m[3]) == (m[2] == "==")
}

// runComposite runs action.yml's steps with bash as the runner does: each
// step gets the job's environment, its own GITHUB_OUTPUT file and its env:
// block; step outputs feed the action's outputs.
func runComposite(t *testing.T, actionPath string, with map[string]string, env map[string]string) compositeRun {
	t.Helper()
	doc := readYAML(t, filepath.Join(actionPath, "action.yml"))
	runs := doc["runs"].(map[string]any)
	if runs["using"] != "composite" {
		t.Fatalf("runs.using = %v, want composite", runs["using"])
	}
	orDefault := func(k, def string) string {
		if v := env[k]; v != "" {
			return v
		}
		return def
	}
	ctx := map[string]string{
		"github.token":       env["GITHUB_TOKEN_FOR_TEST"],
		"github.action_path": actionPath,
		"runner.temp":        env["RUNNER_TEMP"],
		"runner.os":          orDefault("RUNNER_OS", "Linux"),
		"runner.arch":        orDefault("RUNNER_ARCH", "X64"),
	}
	for name, v := range doc["inputs"].(map[string]any) {
		in := v.(map[string]any)
		if in["description"] == "" || in["description"] == nil {
			t.Errorf("input %s has no description", name)
		}
		val, given := with[name]
		if !given {
			def, _ := in["default"].(string)
			val = evalExpr(t, def, ctx)
		}
		ctx["inputs."+name] = val
	}
	for name := range with {
		if _, ok := ctx["inputs."+name]; !ok {
			t.Fatalf("with: %s is not an input of action.yml", name)
		}
	}
	var run compositeRun
	var log strings.Builder
	base := []string{}
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "GITHUB_") || strings.HasPrefix(k, "INPUT_") || strings.HasPrefix(k, "RUNNER_") {
			continue
		}
		base = append(base, kv)
	}
	base = append(base, "RUNNER_OS="+ctx["runner.os"], "RUNNER_ARCH="+ctx["runner.arch"])
	for k, v := range env {
		base = append(base, k+"="+v)
	}
	base = append(base, "GITHUB_ACTION_PATH="+actionPath)
	for i, s := range runs["steps"].([]any) {
		step := s.(map[string]any)
		if cond, ok := step["if"].(string); ok && !evalIf(t, cond, ctx) {
			fmt.Fprintf(&log, "== %v (skipped)\n", step["name"])
			continue
		}
		if uses, ok := step["uses"].(string); ok {
			if !actionsUsed[uses] {
				t.Fatalf("step %d uses %s, which the test does not know", i, uses)
			}
			u := usedAction{uses: uses, with: map[string]string{}}
			for k, v := range step["with"].(map[string]any) {
				u.with[k] = evalExpr(t, v.(string), ctx)
			}
			run.uses = append(run.uses, u)
			fmt.Fprintf(&log, "== %v (uses %s, not run)\n", step["name"], uses)
			continue
		}
		if step["shell"] != "bash" {
			t.Fatalf("step %d: shell %v; the test runs bash steps only", i, step["shell"])
		}
		outFile := filepath.Join(t.TempDir(), "step-output")
		os.WriteFile(outFile, nil, 0o644)
		stepEnv := append(append([]string{}, base...), "GITHUB_OUTPUT="+outFile)
		if e, ok := step["env"].(map[string]any); ok {
			for k, v := range e {
				stepEnv = append(stepEnv, k+"="+evalExpr(t, v.(string), ctx))
			}
		}
		script := filepath.Join(t.TempDir(), "step.sh")
		if err := os.WriteFile(script, []byte(evalExpr(t, step["run"].(string), ctx)), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", script)
		cmd.Env = stepEnv
		cmd.Dir = env["GITHUB_WORKSPACE"]
		out, err := cmd.CombinedOutput()
		fmt.Fprintf(&log, "== %v\n%s", step["name"], out)
		if err != nil {
			run.err = fmt.Errorf("step %q: %w", step["name"], err)
			run.log = log.String()
			return run
		}
		if id, ok := step["id"].(string); ok {
			for k, v := range parseOutputFile(t, outFile) {
				ctx["steps."+id+".outputs."+k] = v
			}
		}
	}
	run.outputs = map[string]string{}
	for name, v := range doc["outputs"].(map[string]any) {
		run.outputs[name] = evalExpr(t, v.(map[string]any)["value"].(string), ctx)
	}
	run.log = log.String()
	return run
}

func TestActionYAMLInputsMatchTheProgram(t *testing.T) {
	doc := readYAML(t, "../action.yml")
	steps := doc["runs"].(map[string]any)["steps"].([]any)
	runEnv := steps[len(steps)-1].(map[string]any)["env"].(map[string]any)
	var missing []string
	for name := range doc["inputs"].(map[string]any) {
		if name == "version" {
			continue // chooses the binary: the build step's, not the program's
		}
		key := "INPUT_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
		if runEnv[key] != "${{ inputs."+name+" }}" {
			missing = append(missing, key)
		}
	}
	if len(missing) > 0 {
		t.Errorf("inputs not passed to the program: %v", missing)
	}
	var outs []string
	for name, v := range doc["outputs"].(map[string]any) {
		outs = append(outs, name+"="+v.(map[string]any)["value"].(string))
	}
	want := []string{
		"comment-id=${{ steps.culprit.outputs.comment-id }}",
		"comment-url=${{ steps.culprit.outputs.comment-url }}",
		"culprits=${{ steps.culprit.outputs.culprits }}",
		"report-json=${{ steps.culprit.outputs.report-json }}",
		"status=${{ steps.culprit.outputs.status }}",
	}
	if d := cmp.Diff(want, sorted(outs)); d != "" {
		t.Errorf("outputs (-want +got):\n%s", d)
	}
}

// TestReadmeInputDefaults: docs/action.md's table of inputs lists every input
// of action.yml, and no other, with action.yml's default; an input whose
// default is empty and whose description says what empty means shows that.
func TestReadmeInputDefaults(t *testing.T) {
	doc := readYAML(t, "../action.yml")
	data, err := os.ReadFile("../docs/action.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(data), "\n## Inputs\n")
	if !ok {
		t.Fatal("docs/action.md has no Inputs section")
	}
	table, _, _ = strings.Cut(table, "\n## ")
	name := regexp.MustCompile("`([a-z][a-z-]*)`")
	readme := map[string]string{} // input → its default cell
	for _, l := range strings.Split(table, "\n") {
		cells := strings.Split(strings.Trim(l, "|"), "|")
		if !strings.HasPrefix(l, "| `") || len(cells) < 3 {
			continue
		}
		for _, m := range name.FindAllStringSubmatch(cells[0], -1) {
			readme[m[1]] = strings.TrimSpace(cells[1])
		}
	}
	emptyMeans := regexp.MustCompile(`empty means ([^\s;,]+?)[.;,]?(\s|$)`)
	var got, want []string
	for in, v := range doc["inputs"].(map[string]any) {
		spec := v.(map[string]any)
		def, _ := spec["default"].(string)
		desc, _ := spec["description"].(string)
		cell, listed := readme[in]
		switch m := emptyMeans.FindStringSubmatch(desc); {
		case !listed:
			want = append(want, in+": listed")
			got = append(got, in+": not listed")
			continue
		case def != "":
			want = append(want, in+": `"+def+"`")
		case m != nil:
			want = append(want, in+": `"+m[1]+"`")
		default:
			want = append(want, in+": "+cell) // a description of what empty does
		}
		got = append(got, in+": "+cell)
	}
	for in := range readme {
		if _, ok := doc["inputs"].(map[string]any)[in]; !ok {
			t.Errorf("docs/action.md lists input %s, which action.yml does not have", in)
		}
	}
	if d := cmp.Diff(sorted(want), sorted(got)); d != "" {
		t.Errorf("docs/action.md input defaults (-action.yml +docs/action.md):\n%s", d)
	}
}

// TestActionYAML builds and runs the action from its source with the
// runner's environment against the fake API, on a scenario repository.
func TestActionYAML(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the action and runs the analyzer")
	}
	if _, err := os.Stat("/usr/include/z3.h"); err != nil {
		t.Skip("libz3-dev is not installed; the action's first step would install it with sudo")
	}
	actionPath, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	repo := loadScenario(t, nil)
	srv := newServer(t, repo)
	env := newRunnerEnv(t, srv, repo, "pull_request", prPayload(repo, repo.Base, repo.Head))
	delete(env.vars, "INPUT_GITHUB_TOKEN") // the action passes it from its input
	env.vars["GITHUB_TOKEN_FOR_TEST"] = token
	// No release of these sources, and no network: the action builds.
	env.vars["CULPRIT_RELEASE_URL"] = "http://127.0.0.1:1/releases/download"
	os.MkdirAll(env.vars["RUNNER_TEMP"], 0o755)
	// A go env file left by an earlier job running the pull request's
	// code: it asks every build to go through a tool of its own, which
	// logs the packages it sees. The action's build must not read it.
	tmp := t.TempDir()
	seen := filepath.Join(tmp, "toolexec.log")
	tool := filepath.Join(tmp, "tool")
	os.WriteFile(tool, []byte("#!/bin/sh\necho \"$TOOLEXEC_IMPORTPATH\" >> "+seen+"\nexec \"$@\"\n"), 0o755)
	os.WriteFile(filepath.Join(tmp, "go.env"), []byte("GOFLAGS=-toolexec="+tool+"\n"), 0o644)
	env.vars["GOENV"] = filepath.Join(tmp, "go.env")
	builds := shimFreshCache(t, tmp, env.vars)
	src := sourceHash(t, actionPath)
	run := runComposite(t, actionPath, map[string]string{"max-tests": "1", "fail-on": "errors"}, env.vars)
	if run.err != nil {
		t.Fatalf("%v\n%s", run.err, run.log)
	}
	if data, _ := os.ReadFile(seen); strings.Contains(string(data), "github.com/culprit-dev/culprit") {
		t.Errorf("the action was built through the go env file's -toolexec:\n%.500s", data)
	}
	if data, _ := os.ReadFile(builds); !strings.Contains(string(data), "fresh mod verify\n") || !strings.Contains(string(data), "fresh build -mod=readonly -trimpath") {
		t.Errorf("the action's build did not start from a new, empty build cache of its own; it ran:\n%s", data)
	}
	outputs, log := run.outputs, run.log
	// This mode holds a token that can write: it builds afresh and
	// neither restores nor saves a cache.
	if len(run.uses) != 0 {
		t.Errorf("actions used: %v, want none", run.uses)
	}
	if b, err := os.ReadFile(freshBin(t, env.vars) + ".source"); err != nil || strings.TrimSpace(string(b)) != src {
		t.Errorf("the build's source stamp %q (%v) is not the sources' hash", b, err)
	}
	if outputs["status"] != "explained" || outputs["culprits"] != "2" || !strings.HasSuffix(outputs["report-json"], "report.json") {
		t.Errorf("outputs %v\n%s", outputs, log)
	}
	diffCalls(t, srv, map[string]int{"GET /user": 1, listComments: 1, createComment: 1, listReview: 1, createReview: 1})
	if strings.Contains(strings.Replace(log, "::add-mask::"+token, "", 1), token) {
		t.Errorf("the token appears in the log")
	}
}

// shimFreshCache puts a go first on PATH that passes every command to the
// real go, except those the action runs with a build cache of its own
// (GOCACHE=$RUNNER_TEMP/culprit-build.*): it notes in the returned log
// whether that cache was new and empty, then runs them with the suite's
// cache. The action's fresh build is then a real, complete build of its
// sources whose compiled packages may come from the suite's cache after
// the first run; the rule the action keeps, a cache no earlier job wrote,
// is what the log checks (TestActionBinaryWriteTokenNeverRestored checks
// the rest of that build's environment).
func shimFreshCache(t *testing.T, tmp string, vars map[string]string) (log string) {
	t.Helper()
	real, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(real, "env", "GOCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	dir, log := filepath.Join(tmp, "shim"), filepath.Join(tmp, "builds.log")
	script := fmt.Sprintf(`#!/bin/sh
case "$GOCACHE" in
'%s'/culprit-build.*)
	if [ -z "$(ls -A "$GOCACHE")" ]; then state=fresh; else state=used; fi
	echo "$state $*" >> '%s'
	GOCACHE='%s' exec '%s' "$@" ;;
esac
exec '%s' "$@"
`, vars["RUNNER_TEMP"], log, strings.TrimSpace(string(out)), real, real)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	vars["PATH"] = dir + string(os.PathListSeparator) + os.Getenv("PATH")
	return log
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}
