package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/culprit-dev/culprit/analyzer/result"
)

// detail says how much of a report to show. Markdown shows everything the
// reader can use; Comment lowers the detail until the comment fits.
type detail struct {
	heading    string // heading prefix of the report's title
	brand      bool   // start the title with "culprit:"
	rootHunks  int    // root hunks shown; 0 for all
	rootDiffs  bool   // show root hunks with their diff, not just their place
	diffLines  int    // lines of each diff or message shown; 0 for all
	aux        int    // auxiliary hunks: auxCount, auxList or auxDiffs
	treeItems  int    // list items of the causal tree; 0 hides the tree
	treeDepth  int    // nesting depth of the tree list
	mermaid    int    // most tree steps drawn as a flowchart; 0 draws none
	lanes      bool   // draw the chain as the two runs side by side
	fold       bool   // open only the first screen, the rest in one <details>
	evidence   bool   // show the classification runs and failure message
	candidates bool   // list the unproven best answer of an unexplained test
	notes      bool
	stats      bool
	// budget, when positive, stops rendering once the text is longer:
	// the caller will throw it away or cut it anyway.
	budget int
}

func (d detail) spent(b *strings.Builder) bool { return d.budget > 0 && b.Len() > d.budget }

// How much of the auxiliary hunks to show.
const (
	auxCount = iota // only how many there are
	auxList         // each by place
	auxDiffs        // each with its diff
)

// full is the detail of the complete report. The caps only stop a huge
// tree from making the report unreadable (or Mermaid from refusing it).
var full = detail{
	heading:    "##",
	brand:      true,
	treeItems:  2000,
	treeDepth:  24,
	mermaid:    150,
	lanes:      true,
	rootDiffs:  true,
	aux:        auxDiffs,
	evidence:   true,
	candidates: true,
	notes:      true,
	stats:      true,
}

// Markdown renders the full report: the CLI's output and the job summary.
func Markdown(r *result.Report) string {
	var b strings.Builder
	render(&b, r, full)
	return b.String()
}

func render(b *strings.Builder, r *result.Report, d detail) {
	if d.brand {
		fmt.Fprintf(b, "%s culprit: %s\n\n", d.heading, title(r))
	} else {
		fmt.Fprintf(b, "%s %s\n\n", d.heading, title(r))
	}
	if d.fold {
		renderFolded(b, r, d)
		return
	}
	b.WriteString(verdict(r) + "\n\n")
	sub := d.heading + "#"

	switch r.Status {
	case result.Explained:
		renderRoot(b, r, d, sub)
		renderAux(b, r, d)
		if r.Tree != nil && d.treeItems > 0 {
			fmt.Fprintf(b, "%s Why it fails\n\n", sub)
			if len(r.Chain) > 0 {
				renderChain(b, r.Chain)
				if chart := chainLanes(r.Chain); d.lanes && chart != "" {
					b.WriteString(fenced("mermaid", chart))
					b.WriteString("\n")
				}
				fmt.Fprintf(b, "<details><summary>The causal tree (%s)</summary>\n\n", plural(treeSteps(r.Tree), "step", "steps"))
				renderTree(b, r, d, false)
				b.WriteString("</details>\n\n")
			} else {
				renderTree(b, r, d, true)
			}
		}
	case result.FlakyRegression:
		renderRoot(b, r, d, sub)
		renderAux(b, r, d)
		if r.Tree != nil && d.treeItems > 0 {
			fmt.Fprintf(b, "%s Why it fails (found by intervention)\n\n", sub)
			renderTree(b, r, d, true)
		}
	case result.NotRegression, result.HeadBuildFails:
		renderCompiler(b, r, d)
	case result.Unexplained:
		if d.candidates && len(r.Root) > 0 {
			fmt.Fprintf(b, "The best answer found, **not proven**: reverting %s.\n\n", hunksNamed(r.Root))
			for _, id := range r.Root {
				if h, ok := r.Hunk(id); ok {
					fmt.Fprintf(b, "- hunk #%d %s\n", id, where(h))
				}
			}
			b.WriteString("\n")
		}
	}

	renderProof(b, r)
	if d.evidence {
		renderRates(b, r, sub)
		renderEvidence(b, r, d, sub)
	}
	if d.notes {
		renderNotes(b, r, sub)
	}
	if d.stats {
		b.WriteString(statsLine(r) + "\n")
	}
}

// renderProof writes the one line of the proof: what reverting the root
// hunks did, or for a test not explained, what the best attempt did.
func renderProof(b *strings.Builder, r *result.Report) {
	if r.Proof == nil {
		return
	}
	p := r.Proof
	label := "Proof"
	if r.Status != result.Explained && r.Status != result.FlakyRegression {
		label = "Best attempt"
	}
	fmt.Fprintf(b, "**%s:** reverting %s → %s", label, hunksNamed(p.Reverted), outcomeAt(p.Outcome, p.Signature))
	if v, ok := flakyProof(r); ok {
		fmt.Fprintf(b, " in %d of %s", v.ProofRuns-v.ProofFailures, plural(v.ProofRuns, "run", "runs"))
	} else if p.DurationSeconds > 0 {
		fmt.Fprintf(b, " (%s)", seconds(p.DurationSeconds))
	}
	b.WriteString(".\n\n")
}

// renderRoot writes the root hunks under a heading of level sub, or with
// none when sub is "": each hunk's own line says what it is.
func renderRoot(b *strings.Builder, r *result.Report, d detail, sub string) {
	if len(r.Root) == 0 {
		return
	}
	if sub != "" {
		fmt.Fprintf(b, "%s Root cause: %s\n\n", sub, plural(len(r.Root), "hunk", "hunks"))
	}
	shown := r.Root
	if d.rootHunks > 0 && len(shown) > d.rootHunks {
		shown = shown[:d.rootHunks]
	}
	for _, id := range shown {
		if d.spent(b) {
			return
		}
		renderHunk(b, r, id, d.rootDiffs, d.diffLines, "")
	}
	if !d.rootDiffs {
		b.WriteString("\n")
	}
	if rest := r.Root[len(shown):]; len(rest) > 0 {
		fmt.Fprintf(b, "_%s not shown here%s._\n\n", plural(len(rest), "more root hunk", "more root hunks"), shortRefs(rest))
	}
}

// renderHunk writes hunk id as a heading with its diff (at most diffLines
// lines) when diff is set, else as a list item. stop, when set, is where
// the compiler stops without the hunk (an auxiliary hunk's reason), said
// after the diff or at the end of the item.
func renderHunk(b *strings.Builder, r *result.Report, id result.HunkID, diff bool, diffLines int, stop string) {
	h, ok := r.Hunk(id)
	switch {
	case !ok:
		fmt.Fprintf(b, "- hunk #%d is not in the report\n", id)
	case diff:
		fmt.Fprintf(b, "**Hunk #%d** %s\n\n", id, where(h))
		renderDiff(b, h.Diff, diffLines)
		if stop != "" {
			fmt.Fprintf(b, "Needed: without it the compiler stops at %s.\n\n", stop)
		}
	case stop != "":
		fmt.Fprintf(b, "- hunk #%d %s, needed: without it the compiler stops at %s\n", id, where(h), stop)
	default:
		fmt.Fprintf(b, "- hunk #%d %s\n", id, where(h))
	}
}

func without(ids, drop []result.HunkID) []result.HunkID {
	var out []result.HunkID
	for _, id := range ids {
		if !slices.Contains(drop, id) {
			out = append(out, id)
		}
	}
	return out
}

// shortRefs gives ": #2 and #3" for a short list of hunks, nothing for a
// long one, which would only fill the comment with numbers.
func shortRefs(ids []result.HunkID) string {
	if len(ids) > 10 {
		return ""
	}
	return ": " + hunkRefs(ids)
}

func capitalize(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

func renderDiff(b *strings.Builder, diff string, lines int) {
	if diff == "" {
		b.WriteString("_The hunk has no text diff._\n\n")
		return
	}
	b.WriteString(fenced("diff", clipLines(diff, lines)))
	if n := strings.Count(diff, "\n"); lines > 0 && n > lines {
		fmt.Fprintf(b, "_… %s more._\n", plural(n-lines, "line", "lines"))
	}
	b.WriteString("\n")
}

// clipLines keeps the first n lines of s; n <= 0 keeps all.
func clipLines(s string, n int) string {
	if n <= 0 {
		return s
	}
	i := 0
	for line := range strings.Lines(s) {
		if n == 0 {
			return s[:i]
		}
		i += len(line)
		n--
	}
	return s
}

func renderEvidence(b *strings.Builder, r *result.Report, d detail, sub string) {
	if len(r.Evidence) == 0 && r.Failure == (result.Failure{}) {
		return
	}
	fmt.Fprintf(b, "%s Evidence\n\n", sub)
	// Identical runs are counted, not repeated.
	type key struct{ side, outcome, sig string }
	var order []key
	count := map[key]int{}
	for _, e := range r.Evidence {
		k := key{e.Side, e.Outcome, e.Signature}
		if count[k] == 0 {
			order = append(order, k)
		}
		count[k]++
	}
	for _, k := range order {
		fmt.Fprintf(b, "- %s: %s (%s)\n", plain(k.side), outcomeAt(k.outcome, k.sig), plural(count[k], "run", "runs"))
	}
	if len(order) > 0 {
		b.WriteString("\n")
	}
	if r.Failure.Message != "" && r.Status != result.HeadBuildFails {
		if r.Failure.Traced {
			b.WriteString("Failure in the traced run on head, whose values the explanation shows")
		} else {
			b.WriteString("First failure on head")
		}
		if r.Failure.Signature != "" {
			b.WriteString(" at " + code(r.Failure.Signature))
		}
		msg := strings.TrimSpace(r.Failure.Message)
		if d.fold && !strings.ContainsAny(msg, "\r\n") && len(msg) <= 120 {
			// A short one-line message reads as well in a code span as in
			// a block, in a fifth of the comment's lines.
			b.WriteString(": " + code(msg) + "\n\n")
			return
		}
		b.WriteString(":\n\n")
		b.WriteString(fenced("text", clipLines(r.Failure.Message, d.diffLines)))
		b.WriteString("\n")
	}
}

func renderNotes(b *strings.Builder, r *result.Report, sub string) {
	var notes []string
	if r.Status == result.Explained && r.Tree == nil {
		notes = append(notes, "The explanation is dynamic only: the root hunks were found by reverting and re-running, and no causal tree was derived.")
	}
	notes = append(notes, notesMarkdown(r)...)
	if len(notes) == 0 {
		return
	}
	fmt.Fprintf(b, "%s Notes\n\n", sub)
	for _, n := range notes {
		b.WriteString("- " + n + "\n")
	}
	b.WriteString("\n")
}

func statsLine(r *result.Report) string {
	s := r.Stats
	parts := []string{}
	if s.Strategy != "" {
		parts = append(parts, "strategy "+code(s.Strategy))
	}
	trials := plural(s.Trials, "trial", "trials")
	if s.Rounds > 0 {
		trials += " in " + plural(s.Rounds, "round", "rounds")
	}
	parts = append(parts, trials, plural(s.Builds, "build", "builds"))
	if s.TypeChecks > 0 {
		parts = append(parts, plural(s.TypeChecks, "variant", "variants")+" rejected by type-checking")
	}
	if s.TypeAccepted > 0 {
		parts = append(parts, plural(s.TypeAccepted, "compile check", "compile checks")+" answered by type-checking")
	}
	if s.CacheHits > 0 {
		parts = append(parts, plural(s.CacheHits, "cache hit", "cache hits"))
	}
	if s.SolverCalls > 0 {
		parts = append(parts, plural(s.SolverCalls, "solver call", "solver calls"))
	}
	wall := seconds(s.WallSeconds) + " wall"
	if s.SemanticSeconds > 0 {
		wall += " (" + seconds(s.SemanticSeconds) + " semantic)"
	}
	if s.ContrastSeconds > 0 {
		wall += " (" + seconds(s.ContrastSeconds) + " comparing with the passing run)"
	}
	parts = append(parts, wall)
	return "<sub>" + strings.Join(parts, " · ") + "</sub>"
}

// renderAmplification says how every run was amplified and what each
// candidate did on head, after the sentence on parallelism.
func renderAmplification(b *strings.Builder, a *result.Amplification) {
	if a == nil {
		return
	}
	if a.Amplifies() {
		if a.Iterations > 1 {
			fmt.Fprintf(b, " Each run was one process that ran the test up to %s, stopping at its first failure", plural(a.Iterations, "time", "times"))
		} else {
			b.WriteString(" Each run was one process that ran the test once")
		}
		if a.GoMaxProcs > 0 {
			fmt.Fprintf(b, ", with GOMAXPROCS=%d", a.GoMaxProcs)
		}
		if a.Perturb > 0 {
			fmt.Fprintf(b, ", built with the tracing runtime and paused at about 1 in %d traced points", a.Perturb)
			if a.Seed != 0 {
				fmt.Fprintf(b, " (a failing head run had seed %d; `culprit trace --replay %d/%d", a.Seed, a.Seed, a.Perturb)
				if a.GoMaxProcs > 0 {
					fmt.Fprintf(b, " --gomaxprocs %d", a.GoMaxProcs)
				}
				b.WriteString("`, with `--run` and `--pkg` naming this test, runs it again so)")
			}
		}
		if a.NoneFailed {
			b.WriteString(": no run failed while the ways of running it were measured, and this one tried the test most often per second")
		} else {
			b.WriteString(": of the ways measured, the one that tells head's failure rate from a base that never fails in the least run time")
		}
	} else {
		b.WriteString(" Runs were plain: no amplification made head fail more often per second")
	}
	var tried []string
	for _, t := range a.Tried {
		way := "plain"
		if t.Iterations > 1 {
			way = plural(t.Iterations, "iteration", "iterations")
		}
		if t.GoMaxProcs > 0 {
			way += fmt.Sprintf(" and GOMAXPROCS=%d", t.GoMaxProcs)
		}
		if t.Perturb > 0 {
			way += fmt.Sprintf(", perturbed at 1 in %d", t.Perturb)
		}
		tried = append(tried, fmt.Sprintf("%s %d of %d in %.1f s", way, t.Failures, t.Runs, t.Seconds))
	}
	if len(tried) > 0 {
		fmt.Fprintf(b, " (measured on head: %s)", strings.Join(tried, "; "))
	}
	b.WriteString(".")
}

// renderRates shows the failure rates of a flaky test and the runs of the
// variants the noisy search judged.
func renderRates(b *strings.Builder, r *result.Report, sub string) {
	f := r.Flakiness
	if f == nil {
		return
	}
	one, many := runNouns(f)
	fmt.Fprintf(b, "%s Failure rates\n\n", sub)
	fmt.Fprintf(b, "- head: failed %d of %s: %s (95 %% interval %s–%s)\n",
		f.Head.Failures, plural(f.Head.Runs, one, many), percent(f.Head.Rate), percent(f.Head.CI[0]), percent(f.Head.CI[1]))
	if f.Base.Failures == 0 && f.Base.Runs > 0 {
		fmt.Fprintf(b, "- base: failed none of %s: at most %s (99 %% bound)\n", plural(f.Base.Runs, one, many), percent(f.Base.Upper))
	} else {
		fmt.Fprintf(b, "- base: failed %d of %s\n", f.Base.Failures, plural(f.Base.Runs, one, many))
	}
	fmt.Fprintf(b, "\nEvery run went %d at a time, so that the rates compare.", f.Workers)
	renderAmplification(b, f.Amplification)
	b.WriteString("\n\n")
	renderRace(b, f.Race)
	renderInterventions(b, f.Interventions)
	if len(f.Variants) == 0 {
		return
	}
	fmt.Fprintf(b, "<details><summary>%s judged by their failure rate</summary>\n\n", capitalize(plural(len(f.Variants), "variant", "variants")))
	b.WriteString("| reverted | runs | failures | verdict | proof |\n|---|---|---|---|---|\n")
	for _, v := range f.Variants {
		proof := ""
		if v.ProofRuns > 0 {
			proof = fmt.Sprintf("%d of %d passed", v.ProofRuns-v.ProofFailures, v.ProofRuns)
		}
		fmt.Fprintf(b, "| %s | %d | %d | %s | %s |\n", hunkRefs(v.Reverted), v.Runs, v.Failures, plain(v.Verdict), proof)
	}
	b.WriteString("\n</details>\n\n")
}

// renderRace says what the race detector showed in head's runs. Silence
// is worded as no evidence either way.
func renderRace(b *strings.Builder, rr *result.Race) {
	switch {
	case rr == nil:
		return
	case rr.Unavailable != "":
		fmt.Fprintf(b, "The race detector was not run: %s.\n\n", plain(firstLine(rr.Unavailable)))
		return
	case len(rr.Reports) == 0:
		fmt.Fprintf(b, "The race detector reported no data race in the module's code in %s with `-race`; "+
			"that proves nothing either way (an interleaving under a lock is no data race).\n\n", plural(rr.Runs, "run", "runs"))
		return
	}
	fmt.Fprintf(b, "The race detector reported %s in the module's code in %s with `-race`:\n\n",
		plural(len(rr.Reports), "data race", "data races"), plural(rr.Runs, "run", "runs"))
	for _, rep := range rr.Reports {
		var sides []string
		for i, a := range rep.Accesses {
			who := "one goroutine"
			if i > 0 {
				who = "another goroutine"
			}
			side := fmt.Sprintf("%s at %s in %s by %s", plain(a.Op), code(fmt.Sprintf("%s:%d", a.File, a.Line)), code(a.Func), who)
			if a.Hunk != 0 {
				side += fmt.Sprintf(" (hunk #%d)", a.Hunk)
			}
			sides = append(sides, side)
		}
		b.WriteString("- " + strings.Join(sides, "; ") + "\n")
	}
	b.WriteString("\n")
}

// renderInterventions lists the traced runs and group tests behind a
// chain found by intervention.
func renderInterventions(b *strings.Builder, iv *result.Interventions) {
	if iv == nil || iv.Traced == 0 && len(iv.Tests) == 0 {
		return // the notes say why nothing was traced in full
	}
	fmt.Fprintf(b, "Traced without interventions, head failed %d of %s.", iv.TracedFailures, plural(iv.Traced, "run", "runs"))
	if iv.Perturb > 0 {
		fmt.Fprintf(b, " Those runs, and every intervention's, were perturbed (paused at about 1 in %d traced points): none of the %s traced first without it failed.", iv.Perturb, plural(iv.Unperturbed, "run", "runs"))
	}
	if len(iv.Tests) == 0 {
		b.WriteString("\n\n")
		return
	}
	fmt.Fprintf(b, "\n\n<details><summary>%s</summary>\n\n", capitalize(plural(len(iv.Tests), "intervention", "interventions")))
	b.WriteString("| intervention | runs | valid | failures | verdict |\n|---|---|---|---|---|\n")
	for _, t := range iv.Tests {
		var items []string
		for _, it := range t.Items {
			items = append(items, plain(it))
		}
		what := strings.Join(items, "; ")
		if t.Placebo {
			what += " (placebo)"
		}
		runs := fmt.Sprint(t.Runs)
		if t.Reused > 0 {
			runs += fmt.Sprintf(" (%d reused)", t.Reused)
		}
		fmt.Fprintf(b, "| %s | %s | %d | %d | %s |\n", what, runs, t.Valid, t.Failures, plain(t.Verdict))
	}
	b.WriteString("\n</details>\n\n")
}
