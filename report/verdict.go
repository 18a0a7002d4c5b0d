package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/culprit-dev/culprit/analyzer/note"
	"github.com/culprit-dev/culprit/analyzer/result"
)

// verdict says in one line, in Markdown, what the analysis found. Each
// status has its own wording; only Explained names a culprit.
func verdict(r *result.Report) string { return verdictIn(r, inMarkdown) }

// plainVerdict is the verdict as plain text, for annotations, whose text
// GitHub shows as is.
func plainVerdict(r *result.Report) string { return verdictIn(r, inText) }

// A voice renders what a sentence quotes from a report: Markdown for the
// comment and the job summary, plain text for annotations. Either way the
// data is made inert where it is put in, and nothing is taken out of the
// sentence afterwards: stripping the Markdown from a rendered verdict
// once joined a "/" of the data to the "/" beyond a removed "*".
type voice struct {
	strong func(string) string // a test name, an outcome
	code   func(string) string // a command, a status, a compiler line
}

var (
	inMarkdown = voice{strong: func(s string) string { return "**" + plain(s) + "**" }, code: code}
	inText     = voice{strong: textOf, code: textOf}
)

// textOf is data as plain text: on one line, and defanged.
func textOf(s string) string {
	return defang(strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s))
}

// label names the test: its name, else its command.
func (v voice) label(r *result.Report) string {
	switch {
	case r.Test.Name != "":
		return v.strong(r.Test.Name)
	case r.Test.Command != "":
		return "The test command " + v.code(r.Test.Command)
	}
	return "The test"
}

func (v voice) outcome(o string) string {
	if o == "" {
		return "no outcome"
	}
	return v.strong(o)
}

func verdictIn(r *result.Report, v voice) string {
	who := v.label(r)
	switch r.Status {
	case result.Explained:
		if len(r.Root) == 0 {
			return who + " is marked explained, but the report names no root hunk."
		}
		s := who + " fails because of " + shareOf(len(r.Root), codeHunks(r))
		it := itThem(len(r.Root))
		switch {
		case proofPassed(r) && len(r.Aux) > 0:
			return s + fmt.Sprintf("; reverting %s, with %s so the code compiles, makes it pass.",
				it, plural(len(r.Aux), "auxiliary hunk", "auxiliary hunks"))
		case proofPassed(r):
			return s + "; reverting " + it + " makes it pass."
		case r.Proof == nil:
			return s + "; no proof run is recorded."
		case r.Proof.Outcome == "pass":
			return s + "; the proof run, reverting " + hunksNamed(r.Proof.Reverted) + ", passed."
		default:
			return s + "; but the proof run with " + it + " reverted gave " + v.outcome(r.Proof.Outcome) + ", not a pass."
		}
	case result.NotRegression:
		switch {
		case r.Findings.Has(note.NewTest):
			return who + " is new in this PR, so its failure is not a regression."
		case r.Subtests != nil && r.Subtests.Explained == "" && len(r.Subtests.New) > 0:
			return who + " fails only in subtests that are new in this PR, so the failure is not a regression."
		case r.Findings.Has(note.PassesOnHead):
			return who + " passes on head: there is no failure to explain."
		case r.Findings.Has(note.TimedOutOnBoth):
			return who + " times out on base and on head alike; raise the timeout if it needs longer."
		case r.Findings.Has(note.BaseBuildFails):
			if msg := compilerLine(baseBuildOutput(r)); msg != "" {
				return who + " cannot be checked on base, which does not build (" + v.code(clip(msg, 200)) + "), so no regression can be proven."
			}
			return who + " cannot be checked on base, which does not build, so no regression can be proven."
		case r.Findings.Has(note.Identical):
			return "base and head are identical, so " + who + " cannot have regressed."
		}
		return who + " fails on base too, so the failure is not a regression of this PR."
	case result.FlakyRegression:
		return flakyVerdict(r, who)
	case result.Flaky:
		if f := r.Flakiness; f != nil && f.Base.Failures > 0 {
			return fmt.Sprintf("%s is flaky on base too: head failed %d of %s and base %d of %s, so no culprit is named.",
				who, f.Head.Failures, plural(f.Head.Runs, "run", "runs"), f.Base.Failures, plural(f.Base.Runs, "run", "runs"))
		}
		pass, total := headCounts(r)
		if total == 0 {
			return who + " is flaky: its outcome changes between identical runs, so no culprit is named."
		}
		return fmt.Sprintf("%s is flaky: on head it passed %d and failed %d of %s, so no culprit is named.",
			who, pass, total-pass, plural(total, "run", "runs"))
	case result.HeadBuildFails:
		if msg := compilerLine(r.Failure.Message); msg != "" {
			return who + " cannot run because head does not build: " + v.code(clip(msg, 200)) + "."
		}
		return who + " cannot run because head does not build."
	case result.Unexplained:
		return who + " fails, but no subset of the PR's " + plural(codeHunks(r), "hunk", "hunks") + " could be proven to cause it."
	}
	return who + ": unknown status " + v.code(string(r.Status)) + "."
}

// compilerLine picks the first error of a compiler's output, skipping the
// "# package" headers the go command prints.
func compilerLine(msg string) string {
	for line := range strings.Lines(msg) {
		if t := strings.TrimSpace(line); t != "" && !strings.HasPrefix(t, "# ") {
			return t
		}
	}
	return firstLine(msg)
}

// baseBuildOutput is the compiler's output of the first base run that did
// not build, or "".
func baseBuildOutput(r *result.Report) string {
	for _, e := range r.Evidence {
		if e.Side == result.SideBase && e.Outcome == "build-error" && e.Message != "" {
			return e.Message
		}
	}
	return ""
}

// shareOf gives "2 of the PR's 4 hunks", "all 3 of the PR's hunks".
// codeHunks counts the hunks outside the test's own files: the ones that
// could be a root.
func codeHunks(r *result.Report) int {
	n := 0
	for _, h := range r.Hunks {
		if !h.Test {
			n++
		}
	}
	return n
}

func shareOf(k, n int) string {
	switch {
	case k == n && n == 1:
		return "the PR's only hunk"
	case k == n:
		return fmt.Sprintf("all %d of the PR's hunks", n)
	}
	return fmt.Sprintf("%d of the PR's %s", k, plural(n, "hunk", "hunks"))
}

// proofPassed reports whether the proof run passed with exactly the root
// and auxiliary hunks reverted: only then may the report say so.
func proofPassed(r *result.Report) bool {
	if r.Proof == nil || r.Proof.Outcome != "pass" {
		return false
	}
	want := append(slices.Clone(r.Root), r.Aux...)
	slices.Sort(want)
	got := slices.Clone(r.Proof.Reverted)
	slices.Sort(got)
	return slices.Equal(slices.Compact(want), slices.Compact(got))
}

// headCounts counts the head runs of the evidence and those that passed.
func headCounts(r *result.Report) (pass, total int) {
	for _, e := range r.Evidence {
		if e.Side != result.SideHead {
			continue
		}
		total++
		if e.Outcome == "pass" {
			pass++
		}
	}
	return pass, total
}

// testLabel names the test in Markdown.
func testLabel(r *result.Report) string { return inMarkdown.label(r) }

// title names the test for a heading.
func title(r *result.Report) string {
	switch {
	case r.Test.Name != "" && r.Test.Package != "":
		return code(r.Test.Name) + " in " + code(r.Test.Package)
	case r.Test.Name != "":
		return code(r.Test.Name)
	case r.Test.Command != "":
		return code(r.Test.Command)
	}
	return "the failing test"
}

func outcomeWord(o string) string { return inMarkdown.outcome(o) }

// where locates a hunk for people: "`calc.go:8-9` in `F`".
func where(h result.Hunk) string {
	var s string
	switch h.Kind {
	case "add":
		s = code(h.File) + " (new file)"
	case "delete":
		s = code(h.File) + " (deleted file)"
	case "rename":
		s = code(h.OldFile) + " → " + code(h.File) + " (renamed)"
	case "binary":
		s = code(h.File) + " (binary file)"
	case "mode":
		s = code(h.File) + " (mode change)"
	default:
		start, end := h.HeadLines[0], h.HeadLines[1]
		switch {
		case end < start:
			s = code(fmt.Sprintf("%s:%d", h.File, start)) + " (lines deleted before it)"
		case end == start:
			s = code(fmt.Sprintf("%s:%d", h.File, start))
		default:
			s = code(fmt.Sprintf("%s:%d-%d", h.File, start, end))
		}
	}
	if h.Func != "" {
		s += " in " + code(h.Func)
	}
	return s
}

// outcomeAt gives "fail at `x_test.go:6`".
func outcomeAt(outcome, sig string) string {
	s := outcomeWord(outcome)
	if sig != "" {
		s += " at " + code(sig)
	}
	return s
}

func joinNonEmpty(sep string, parts ...string) string {
	var keep []string
	for _, p := range parts {
		if p != "" {
			keep = append(keep, p)
		}
	}
	return strings.Join(keep, sep)
}

// runNouns name one measured run and several: an amplified run is a
// process that ran the test up to its iterations, and its rate is not a
// plain run's.
func runNouns(f *result.Flakiness) (one, many string) {
	if f.Amplification.Amplifies() {
		return "amplified run", "amplified runs"
	}
	return "run", "runs"
}

// flakyVerdict words a flaky regression: the rates that show it and, when
// the search proved one, the root whose revert brings the rate to base's.
func flakyVerdict(r *result.Report, who string) string {
	f := r.Flakiness
	if f == nil {
		return who + " became flaky in this PR; the report holds no failure rates."
	}
	one, many := runNouns(f)
	s := fmt.Sprintf("%s became flaky in this PR: it failed %d of %s on head (%s) and none of %d on base",
		who, f.Head.Failures, plural(f.Head.Runs, one, many), percent(f.Head.Rate), f.Base.Runs)
	proof, ok := flakyProof(r)
	switch {
	case len(r.Root) == 0:
		return s + "; no subset of the PR's " + plural(codeHunks(r), "hunk", "hunks") + " was proven to cause it."
	case !ok || proof.ProofFailures > 0 || !proofPassed(r):
		return s + "; " + shareOf(len(r.Root), codeHunks(r)) + " were searched out, but their proof is not recorded."
	}
	return s + fmt.Sprintf("; with %s reverted (%s) it passed all %s of the proof.",
		hunksNamed(r.Root), shareOf(len(r.Root), codeHunks(r)), plural(proof.ProofRuns, "run", "runs"))
}

// flakyProof is the proof batch of the reverted set of r's proof.
func flakyProof(r *result.Report) (result.VariantRuns, bool) {
	if r.Flakiness == nil || r.Proof == nil {
		return result.VariantRuns{}, false
	}
	want := slices.Clone(r.Proof.Reverted)
	slices.Sort(want)
	for _, v := range r.Flakiness.Variants {
		if v.ProofRuns > 0 && slices.Equal(v.Reverted, want) {
			return v, true
		}
	}
	return result.VariantRuns{}, false
}

// percent gives "45 %".
func percent(x float64) string { return fmt.Sprintf("%.0f %%", 100*x) }
