package trial

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/culprit-dev/culprit/diffhunks"
)

// TestTypeCheckRejects: variants whose reverted hunks do not fit together
// are answered "does not compile" in process, without the go command,
// and with the compiler's wording; variants it cannot be sure of go to
// the go command, which then decides.
func TestTypeCheckRejects(t *testing.T) {
	const (
		calc = "package calc\n\nfunc Sum(a, b int) int {\n\ts := a + b\n\treturn s\n}\n\nfunc Twice(a int) int { return 2 * a }\n"
		use  = "package calc\n\nimport \"example.com/m/lib\"\n\nfunc Four() int { return Twice(lib.Two) }\n"
	)
	dir, head := gitRepo(t, map[string]string{
		"go.mod":               "module example.com/m\n\ngo 1.22\n",
		"calc/calc.go":         calc,
		"calc/use.go":          use,
		"calc/calc_test.go":    "package calc\n\nimport \"testing\"\n\nfunc TestSum(t *testing.T) {\n\tif Sum(1, 2) != 3 || Four() != 4 {\n\t\tt.Fatal(\"wrong\")\n\t}\n}\n",
		"calc/ext_test.go":     "package calc_test\n\nimport (\n\t\"testing\"\n\n\t\"example.com/m/calc\"\n)\n\nfunc TestTwice(t *testing.T) {\n\tif calc.Twice(2) != 4 {\n\t\tt.Fatal(\"wrong\")\n\t}\n}\n",
		"other/other.go":       "package other\n\nfunc F() int { return 1 }\n",
		"lib/lib.go":           "package lib\n\nconst Two = 2\n",
		"calc/calc_windows.go": "package calc\n\nfunc windowsOnly() {}\n",
	})
	type want struct {
		outcome Outcome
		checked bool   // answered by the type checker
		msg     string // in the message
	}
	variants := fileVariants{
		// A declaration whose use was not reverted with it.
		"1": {files: map[string]string{"calc/calc.go": strings.Replace(calc, "return s", "return a + b", 1)}},
		// The internal test calls a function the variant removes.
		"2": {files: map[string]string{"calc/calc.go": strings.Replace(calc, "func Sum", "func sum", 1)}},
		// The external test calls a function the variant removes; use.go
		// keeps compiling as it uses the new name.
		"3": {files: map[string]string{
			"calc/calc.go": strings.Replace(calc, "func Twice", "func twice", 1),
			"calc/use.go":  strings.Replace(use, "Twice", "twice", 1),
		}},
		// A variant that compiles.
		"4": {files: map[string]string{"calc/calc.go": strings.Replace(calc, "2 * a", "a + a", 1)}},
		// A broken package the test does not build: only go knows.
		"5": {files: map[string]string{"other/other.go": "package other\n\nfunc F() int { return x }\n"}},
		// A changed import list whose new import the build already holds
		// (testing imports strings): checked in process.
		"6": {files: map[string]string{"calc/use.go": "package calc\n\nimport \"strings\"\n\nfunc Four() int { return Twice(2) }\n"}},
		// A syntax error.
		"7": {files: map[string]string{"calc/use.go": strings.TrimSuffix(use, "}\n")}},
		// A file excluded by its name's GOOS: only go knows.
		"8": {files: map[string]string{"calc/calc_windows.go": "package calc\n\nfunc windowsOnly() { undefined() }\n"}},
		// A changed package that imports another changed package: against
		// head's lib, use.go would not compile; against the variant's it
		// does. Only go knows.
		"9": {files: map[string]string{
			"lib/lib.go":  "package lib\n\nconst Deux = 2\n",
			"calc/use.go": strings.Replace(use, "lib.Two", "lib.Deux", 1),
		}},
		// A new import of one of the repository's packages that calc does
		// not depend on could close an import cycle that export data
		// cannot show (here it is not even in the build): only go knows.
		"10": {files: map[string]string{"calc/calc.go": "package calc\n\nimport \"example.com/m/other\"\n\n" + strings.TrimPrefix(calc, "package calc\n\n")}},
		// A document beside the Go change does not matter to the compiler.
		"16": {files: map[string]string{
			"calc/calc.go": strings.Replace(calc, "return s", "return a + b", 1),
			"NOTES.md":     "notes\n",
		}},
		// go.mod does: only go knows.
		"17": {files: map[string]string{
			"calc/calc.go": strings.Replace(calc, "return s", "return a + b", 1),
			"go.mod":       "module example.com/m\n\ngo 1.22\n\n// edited\n",
		}},
		// A changed package that breaks the package importing it: lib is
		// checked first, then calc against it, and calc's error is the
		// compiler's.
		"18": {files: map[string]string{"lib/lib.go": "package lib\n\nconst Deux = 2\n"}},
		// One calc already depends on (through use.go) adds no edge:
		// checked in process.
		"15": {files: map[string]string{"calc/calc.go": "package calc\n\nimport \"example.com/m/lib\"\n\n" + strings.TrimPrefix(calc, "package calc\n\n")}},
		// A new import the build does not hold has no export data: only
		// go knows.
		"11": {files: map[string]string{"calc/use.go": "package calc\n\nimport \"net/http\"\n\nfunc Four() int { return Twice(2) }\n"}},
		// A file head deleted and the variant restores joins the package:
		// here it declares Sum a second time.
		"12": {files: map[string]string{"calc/old.go": "package calc\n\nfunc Sum(a, b int) int { return a - b }\n"}},
		// One that compiles (see the Build checks below).
		"13": {files: map[string]string{"calc/old.go": "package calc\n\nimport \"example.com/m/lib\"\n\nfunc Old() int { return lib.Two }\n"}},
		// One the default build context leaves out: only go knows.
		"14": {files: map[string]string{"calc/old_windows.go": "package calc\n\nfunc Sum() {}\n"}},
	}
	wants := map[string]want{
		"1": {BuildError, true, "declared and not used: s"},
		"2": {BuildError, true, "undefined: Sum"},
		"3": {BuildError, true, "undefined: calc.Twice"},
		"4": {Pass, false, ""},
		"5": {Pass, false, ""},
		"6": {BuildError, true, "calc/use.go:3:8: \"strings\" imported and not used"},
		"7": {BuildError, true, "calc/use.go:5:"},
		"8": {Pass, false, ""},
		"9": {Pass, false, ""},
		// The go command names the overlay's copy; the message names the
		// repository's file.
		"10": {BuildError, false, "\ncalc/calc.go:3:8: \"example.com/m/other\" imported and not used"},
		"16": {BuildError, true, "declared and not used: s"},
		"17": {BuildError, false, "declared and not used: s"},
		"18": {BuildError, true, "calc/use.go:5:36: undefined: lib.Two"},
		"15": {BuildError, true, "\ncalc/calc.go:3:8: \"example.com/m/lib\" imported and not used"},
		"11": {BuildError, false, "\ncalc/use.go:3:8: \"net/http\" imported and not used"},
		"12": {BuildError, true, "calc/old.go:3:6: Sum redeclared in this block"},
		"13": {Pass, false, ""},
		"14": {Pass, false, ""},
	}
	r := newRunner(t, Config{Dir: dir, Head: head, Variants: variants, Pkg: "./calc", Test: "TestSum"})
	ctx := context.Background()
	for _, k := range []string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15", "16", "17", "18"} {
		before := r.Counts()
		id, _ := strconv.Atoi(k)
		res, err := r.Run(ctx, []diffhunks.ID{diffhunks.ID(id)})
		if err != nil {
			t.Fatalf("variant %s: %v", k, err)
		}
		after := r.Counts()
		w := wants[k]
		checked := after.TypeChecks - before.TypeChecks
		if res.Outcome != w.outcome || res.TypeChecked != w.checked || checked != btoi(w.checked) || after.Trials-before.Trials != 1-btoi(w.checked) {
			t.Errorf("variant %s: %s, type-checked %v, %d checks, %d trials; want %s, type-checked %v\n%s",
				k, res.Outcome, res.TypeChecked, checked, after.Trials-before.Trials, w.outcome, w.checked, res.Message)
		}
		if !strings.Contains(res.Message, w.msg) {
			t.Errorf("variant %s: message %q lacks %q", k, res.Message, w.msg)
		}
	}
	// Build answers from the type checker too, without a go build.
	before := r.Counts()
	if res, err := r.Build(ctx, []diffhunks.ID{1}); err != nil || res.Outcome != BuildError {
		t.Errorf("Build of variant 1: %v, %v", res.Outcome, err)
	}
	if r.Counts().Builds != before.Builds {
		t.Errorf("Build of a rejected variant ran the go command")
	}

	// A compile-only check of a variant that compiles is answered in
	// process too: 4 changes calc alone, 9 changes lib and calc, which
	// imports it (lib is checked first and calc against it), 13 restores
	// a file that imports lib, which calc already depends on. A run of
	// the same variants still builds and runs it.
	for _, id := range []diffhunks.ID{4, 9, 13} {
		r := newRunner(t, Config{Dir: dir, Head: head, Variants: variants, Pkg: "./calc", Test: "TestSum"})
		before := r.Counts()
		res, err := r.Build(ctx, []diffhunks.ID{id})
		after := r.Counts()
		if err != nil || res.Outcome != Pass || !res.TypeChecked || after.TypeAccepted != before.TypeAccepted+1 || after.Builds != before.Builds {
			t.Errorf("Build of variant %d: %s, type-checked %v, %+v -> %+v, %v; want a pass answered in process", id, res.Outcome, res.TypeChecked, before, after, err)
		}
		if res, err := r.Run(ctx, []diffhunks.ID{id}); err != nil || res.TypeChecked || r.Counts().Trials != after.Trials+1 {
			t.Errorf("Run of variant %d: type-checked %v, %v; want a real trial", id, res.TypeChecked, err)
		}
	}
	// A package outside the test's build is the go command's to judge.
	r = newRunner(t, Config{Dir: dir, Head: head, Variants: variants, Pkg: "./calc", Test: "TestSum"})
	if res, err := r.Build(ctx, []diffhunks.ID{5}); err != nil || res.TypeChecked || r.Counts().Builds != 1 {
		t.Errorf("Build of variant 5: type-checked %v, %v; want the go command", res.TypeChecked, err)
	}
}

// TestTypeCheckLeavesTestRecompiles: when the external test imports a
// package that imports the package under test, the go command compiles
// that package again against the test's variant ("q [p.test]"); the
// checker does not model that, so even a variant that compiles goes to
// the go command.
func TestTypeCheckLeavesTestRecompiles(t *testing.T) {
	const calc = "package calc\n\nfunc Four() int { return 4 }\n"
	dir, head := gitRepo(t, map[string]string{
		"go.mod":            "module example.com/m\n\ngo 1.22\n",
		"calc/calc.go":      calc,
		"calc/calc_test.go": "package calc\n\nimport \"testing\"\n\nfunc TestFour(t *testing.T) {\n\tif Four() != 4 {\n\t\tt.Fatal(\"wrong\")\n\t}\n}\n",
		"calc/ext_test.go":  "package calc_test\n\nimport (\n\t\"testing\"\n\n\t\"example.com/m/wrap\"\n)\n\nfunc TestEight(t *testing.T) {\n\tif wrap.Eight() != 8 {\n\t\tt.Fatal(\"wrong\")\n\t}\n}\n",
		"wrap/wrap.go":      "package wrap\n\nimport \"example.com/m/calc\"\n\nfunc Eight() int { return 2 * calc.Four() }\n",
	})
	variants := fileVariants{"1": {files: map[string]string{"calc/calc.go": strings.Replace(calc, "return 4", "return 2 + 2", 1)}}}
	r := newRunner(t, Config{Dir: dir, Head: head, Variants: variants, Pkg: "./calc", Test: "TestFour"})
	res, err := r.Build(context.Background(), []diffhunks.ID{1})
	if err != nil || res.Outcome != Pass || res.TypeChecked || r.Counts().Builds != 1 {
		t.Errorf("Build: %s, type-checked %v, %+v, %v; want a pass from the go command", res.Outcome, res.TypeChecked, r.Counts(), err)
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestTypeCheckImportersOfThePackage: without internal test files the
// build does not compile the package's importers again for the test; the
// external test then meets the package under test both as checked from
// the variant's source and through an importer's export data, which the
// checker cannot join (a false "cannot use calc.T as calc.T"). The
// variant compiles, and the go command must say so.
func TestTypeCheckImportersOfThePackage(t *testing.T) {
	const calc = "package calc\n\ntype T struct{ N int }\n\nfunc Four() T { return T{4} }\n"
	dir, head := gitRepo(t, map[string]string{
		"go.mod":           "module example.com/m\n\ngo 1.22\n",
		"calc/calc.go":     calc,
		"calc/ext_test.go": "package calc_test\n\nimport (\n\t\"testing\"\n\n\t\"example.com/m/calc\"\n\t\"example.com/m/wrap\"\n)\n\nfunc TestFour(t *testing.T) {\n\tif wrap.N(calc.Four()) != 4 {\n\t\tt.Fatal(\"wrong\")\n\t}\n}\n",
		"wrap/wrap.go":     "package wrap\n\nimport \"example.com/m/calc\"\n\nfunc N(t calc.T) int { return t.N }\n",
	})
	variants := fileVariants{"1": {files: map[string]string{"calc/calc.go": strings.Replace(calc, "T{4}", "T{N: 4}", 1)}}}
	r := newRunner(t, Config{Dir: dir, Head: head, Variants: variants, Pkg: "./calc", Test: "TestFour"})
	for _, build := range []bool{true, false} {
		do := r.Run
		if build {
			do = r.Build
		}
		res, err := do(context.Background(), []diffhunks.ID{1})
		if err != nil || res.Outcome != Pass || res.TypeChecked {
			t.Errorf("build %v: %s, type-checked %v, %v\n%s", build, res.Outcome, res.TypeChecked, err, res.Message)
		}
	}
}

// TestTypeCheckExternalTestsOnly: a directory that holds only external
// tests has no package of its own to check; a variant of the package they
// import is judged all the same.
func TestTypeCheckExternalTestsOnly(t *testing.T) {
	const calc = "package calc\n\nfunc Four() int { return 4 }\n"
	dir, head := gitRepo(t, map[string]string{
		"go.mod":          "module example.com/m\n\ngo 1.22\n",
		"calc/calc.go":    calc,
		"e2e/e2e_test.go": "package e2e_test\n\nimport (\n\t\"testing\"\n\n\t\"example.com/m/calc\"\n)\n\nfunc TestFour(t *testing.T) {\n\tif calc.Four() != 4 {\n\t\tt.Fatal(\"wrong\")\n\t}\n}\n",
	})
	variants := fileVariants{
		"1": {files: map[string]string{"calc/calc.go": strings.Replace(calc, "return 4", "return 2 + 2", 1)}},
		"2": {files: map[string]string{"calc/calc.go": strings.Replace(calc, "func Four", "func four", 1)}},
	}
	r := newRunner(t, Config{Dir: dir, Head: head, Variants: variants, Pkg: "./e2e", Test: "TestFour"})
	ctx := context.Background()
	if res, err := r.Build(ctx, []diffhunks.ID{1}); err != nil || res.Outcome != Pass || !res.TypeChecked || r.Counts().Builds != 0 {
		t.Errorf("Build of a variant that compiles: %s, type-checked %v, %+v, %v; want a pass answered in process", res.Outcome, res.TypeChecked, r.Counts(), err)
	}
	if res, err := r.Run(ctx, []diffhunks.ID{2}); err != nil || res.Outcome != BuildError || !res.TypeChecked || !strings.Contains(res.Message, "e2e/e2e_test.go:10:10: undefined: calc.Four") {
		t.Errorf("Run of a variant the external test cannot use: %s, type-checked %v, %v\n%s", res.Outcome, res.TypeChecked, err, res.Message)
	}
}
