package report

import (
	"crypto/sha256"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/culprit-dev/culprit/analyzer/result"
)

// Annotation levels, as workflow commands name them.
const (
	LevelError   = "error"
	LevelWarning = "warning"
	LevelNotice  = "notice"
)

// Annotation is a workflow annotation (::error file=…,line=…::message), the
// fallback when the token cannot comment. File is empty for an annotation
// about the run as a whole; Line is 0 for one about a whole file.
type Annotation struct {
	Level   string
	File    string
	Line    int
	EndLine int
	Title   string
	Message string
}

// Annotations gives an error on each root hunk and a notice on each
// auxiliary hunk of an explained test, and one warning without a file for
// any other status: those name no culprit.
//
// A flaky regression whose root passed its proof gets a warning on each
// root hunk: the rates show the hunk made the test flaky, but no causal
// chain says how, so it is not worded as an error.
//
// Annotations are plain text, but their text is defanged all the same: a
// client may render it, and it comes from the artifact.
func Annotations(r *result.Report) []Annotation {
	name := textOf(testName(r))
	if v, ok := flakyProof(r); ok && r.Status == result.FlakyRegression && v.ProofFailures == 0 && proofPassed(r) {
		if out := rootAnnotations(r, LevelWarning, "flaky"); len(out) > 0 {
			return out
		}
	}
	if r.Status != result.Explained {
		return []Annotation{{
			Level:   LevelWarning,
			Title:   "culprit: " + name + " " + statusWords(r.Status),
			Message: plainVerdict(r),
		}}
	}
	out := rootAnnotations(r, LevelError, "fail")
	for _, id := range r.Aux {
		h, ok := r.Hunk(id)
		if !ok {
			continue
		}
		a := Annotation{
			Level:   LevelNotice,
			File:    h.File,
			Title:   fmt.Sprintf("culprit: reverted with the culprit so the code compiles (hunk #%d)", id),
			Message: fmt.Sprintf("Hunk #%d is not a cause of the failure of %s; it is reverted together with %s so that the code still compiles.", id, name, hunksNamed(r.Root)),
		}
		a.Line, a.EndLine = annotationLines(h)
		out = append(out, a)
	}
	return out
}

// rootAnnotations puts one annotation of level on each root hunk, saying
// the change makes the test do what (fail, flaky).
func rootAnnotations(r *result.Report, level, what string) []Annotation {
	var out []Annotation
	for _, id := range r.Root {
		h, ok := r.Hunk(id)
		if !ok {
			continue
		}
		a := Annotation{
			Level:   level,
			File:    h.File,
			Title:   fmt.Sprintf("culprit: this change makes %s %s (hunk #%d)", textOf(testName(r)), what, id),
			Message: plainVerdict(r),
		}
		a.Line, a.EndLine = annotationLines(h)
		out = append(out, a)
	}
	return out
}

// annotationLines places an annotation on the head lines of h: a whole
// file deleted in head has no lines, an empty range points at the line
// after it.
func annotationLines(h result.Hunk) (line, end int) {
	if h.Kind == "delete" {
		return 0, 0
	}
	line = headLine(h)
	return line, max(line, h.HeadLines[1])
}

// headLine is the first head line of h, or for a pure deletion the line
// after the deleted lines, never before line 1.
func headLine(h result.Hunk) int {
	return max(1, h.HeadLines[0])
}

func statusWords(s result.Status) string {
	switch s {
	case result.NotRegression:
		return "fails on base too"
	case result.Flaky:
		return "is flaky"
	case result.FlakyRegression:
		return "became flaky in this PR"
	case result.HeadBuildFails:
		return "cannot run: head does not build"
	case result.Unexplained:
		return "is not explained"
	}
	return "has status " + textOf(string(s))
}

func testName(r *result.Report) string {
	switch {
	case r.Test.Name != "":
		return r.Test.Name
	case r.Test.Command != "":
		return r.Test.Command
	}
	return "the test"
}

// ReviewComment is a comment on lines StartLine through Line of the PR's
// head (StartLine is 0 for a comment on Line alone). Key is an HTML comment
// embedded in Body that identifies it across reruns, so that an existing
// comment is found instead of posted twice.
type ReviewComment struct {
	Path      string
	StartLine int
	Line      int
	Body      string
	Key       string
}

// ReviewComments gives one comment on each root hunk of an explained test,
// at its first head line (for a pure deletion, the line after it), and
// one on each of a few auxiliary hunks where the causal tree shows the
// change at work (auxAtWork): such a hunk is reverted so that the root's
// revert compiles, but in a change whose hunks compile only together it
// is where behaviour moved, and the reviewer should see it flagged too.
// Whole deleted files and binary files have no head line to comment on
// and are left to the annotations. When the proof run passed, the
// comment on a changed run of lines of a root hunk spans them and
// suggests the base lines in their place (see suggestion).
func ReviewComments(r *result.Report) []ReviewComment {
	if r.Status != result.Explained {
		return nil
	}
	var out []ReviewComment
	for _, id := range append(slices.Clone(r.Root), auxAtWork(r)...) {
		h, ok := r.Hunk(id)
		if !ok || h.Kind == "delete" || h.Kind == "binary" {
			continue
		}
		line := headLine(h)
		rc := ReviewComment{Path: h.File, Line: line, Body: reviewBody(r, h)}
		where := fmt.Sprintf("%s:%d", commentSafe(h.File), line)
		if base, ok := suggestion(r, h); ok {
			// The suggestion replaces the lines the comment spans: all
			// of the hunk's head lines.
			if h.HeadLines[1] > line {
				rc.StartLine, rc.Line = line, h.HeadLines[1]
			}
			// The blank line makes the block's fence one that every
			// reader (GitHub, neutral, the tests' checks) sees as such.
			rc.Body += "\nReverting this hunk:\n\n" + suggestionBlock(base)
			// A comment suggesting other lines, or over other lines, is
			// outdated: the key names both, so that it is replaced.
			sum := sha256.Sum256([]byte(base))
			where = fmt.Sprintf("%s-%d suggests %x", where, rc.Line, sum[:4])
		}
		rc.Key = fmt.Sprintf("<!-- culprit:hunk %s %s -->", where, commentSafe(testName(r)))
		rc.Body += "\n" + rc.Key
		out = append(out, rc)
	}
	return out
}

// suggestion gives the base lines of h, each ending in "\n", when a review
// comment on h may suggest them: only what the proof run showed to matter
// (a root of a proof that passed) is worth a one-click revert, and only a
// run of changed lines of one file that head still has can be replaced.
// A diff whose lines do not add up to its ranges gives no suggestion
// rather than a wrong one, and base lines holding a "<!--" or a control
// character give none either: the block is applied verbatim, so they
// cannot be escaped, and a marker must never come from data.
func suggestion(r *result.Report, h result.Hunk) (string, bool) {
	if r.Status != result.Explained || !proofPassed(r) || !slices.Contains(r.Root, h.ID) {
		return "", false
	}
	if h.Kind != "modify" || h.Test || (h.OldFile != "" && h.OldFile != h.File) {
		return "", false
	}
	headN := h.HeadLines[1] - h.HeadLines[0] + 1
	baseN := h.BaseLines[1] - h.BaseLines[0] + 1
	if headN <= 0 || h.HeadLines[0] < 1 {
		return "", false
	}
	var base strings.Builder
	minus, plus := 0, 0
	for _, l := range strings.SplitAfter(h.Diff, "\n") {
		switch {
		case l == "":
		case strings.HasPrefix(l, "-"):
			minus++
			base.WriteString(l[1:])
		case strings.HasPrefix(l, "+"):
			plus++
		default:
			return "", false
		}
	}
	if minus != baseN || plus != headN {
		return "", false
	}
	s := base.String()
	if strings.Contains(s, "<!--") || strings.ContainsFunc(s, isControl) {
		return "", false
	}
	if s != "" && !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return s, true
}

// suggestionBlock fences base as a GitHub suggestion. The fence is longer
// than any run of backticks that starts a line of base, so that no line of
// the code can close it early; nothing else in it is changed, as GitHub
// applies the block verbatim.
func suggestionBlock(base string) string {
	n := 3
	for _, l := range strings.Split(base, "\n") {
		t := strings.TrimLeft(l, " \t")
		run := len(t) - len(strings.TrimLeft(t, "`"))
		n = max(n, run+1)
	}
	fence := strings.Repeat("`", n)
	return fence + "suggestion\n" + base + fence + "\n"
}

func itThem(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

// commentSafe keeps s from ending the HTML comment it is put in, or
// carrying a control character into it.
func commentSafe(s string) string {
	s = strings.NewReplacer("--", "- -", ">", "_", "\n", " ").Replace(s)
	return strings.Map(func(r rune) rune {
		if isControl(r) || r == '\r' || r == '\t' {
			return utf8.RuneError
		}
		return r
	}, s)
}

const maxStepsPerComment = 5

// maxAuxComments bounds the review comments on auxiliary hunks: in a
// rewrite whose hunks compile only together the tree may pass through
// many of them, and a reviewer reads the few it opens with.
const maxAuxComments = 3

// auxAtWork lists the auxiliary hunks a review comment goes on: those
// where the causal tree shows the change at work (auxChanged), the ones
// the chain the report opens with passes through first, at most
// maxAuxComments.
func auxAtWork(r *result.Report) []result.HunkID {
	var inChain, rest []result.HunkID
	for _, id := range auxChanged(r) {
		if slices.ContainsFunc(r.Chain, func(s result.Statement) bool { return s.Hunk == id }) {
			inChain = append(inChain, id)
		} else {
			rest = append(rest, id)
		}
	}
	ids := append(inChain, rest...)
	return ids[:min(len(ids), maxAuxComments)]
}

// rootRole is what a review comment on a root hunk says it does: it makes
// the test fail, alone or with the other root hunks, and reverting the
// root makes it pass when the proof did.
func rootRole(r *result.Report) string {
	var b strings.Builder
	if len(r.Root) == 1 {
		fmt.Fprintf(&b, "makes %s fail", testLabel(r))
	} else {
		fmt.Fprintf(&b, "is one of %d changes that together make %s fail (%s)", len(r.Root), testLabel(r), hunksNamed(r.Root))
	}
	switch {
	case proofPassed(r) && len(r.Aux) > 0:
		fmt.Fprintf(&b, "; reverting %s, with %s so the code compiles, makes it pass.\n",
			itThem(len(r.Root)), plural(len(r.Aux), "auxiliary hunk", "auxiliary hunks"))
	case proofPassed(r):
		fmt.Fprintf(&b, "; reverting %s makes it pass.\n", itThem(len(r.Root)))
	default:
		b.WriteString(".\n")
	}
	return b.String()
}

func reviewBody(r *result.Report, h result.Hunk) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**culprit:** this change (hunk #%d) ", h.ID)
	if slices.Contains(r.Root, h.ID) {
		b.WriteString(rootRole(r))
	} else {
		fmt.Fprintf(&b, "is reverted with the root (%s) so that the code compiles, and %s fails through it too: the run without the change did otherwise here.\n",
			hunksNamed(r.Root), testLabel(r))
	}
	var steps []string
	for _, s := range r.Chain {
		if s.Hunk == h.ID {
			steps = append(steps, chainStep(s))
		}
	}
	if len(steps) > 0 {
		b.WriteString("\nWith the change, and without it:\n")
		for _, s := range steps {
			b.WriteString("- " + s + "\n")
		}
		return b.String()
	}
	r.Tree.Walk(func(n *result.Node) {
		if n.Via != nil && n.Target.Hunk == h.ID {
			steps = append(steps, step(n.Target))
		}
		for _, s := range n.Statements {
			if s.Hunk == h.ID {
				steps = append(steps, step(s))
			}
		}
	})
	if len(steps) > 0 {
		b.WriteString("\nIn the failing run:\n")
		for i, s := range steps {
			if i == maxStepsPerComment {
				fmt.Fprintf(&b, "- _… %s more_\n", plural(len(steps)-i, "step", "steps"))
				break
			}
			b.WriteString("- " + s + "\n")
		}
	}
	return b.String()
}
