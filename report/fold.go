package report

import (
	"fmt"
	"strings"

	"github.com/culprit-dev/culprit/analyzer/result"
)

// renderFolded writes a report as the PR comment shows it. A reviewer
// reads the first screen and rarely opens more, so only the answer is
// open: the verdict, the root hunks with their diffs, the chain and the
// proof's one line. Everything else (the chart of the two runs, auxiliary
// hunks, the causal tree, compiler output, failure rates, evidence, notes
// and what the analysis cost) sits in one <details> whose summary names
// what it holds, so that nine tests still read as nine short answers.
func renderFolded(b *strings.Builder, r *result.Report, d detail) {
	b.WriteString(verdict(r) + "\n\n")
	if r.Status == result.Explained || r.Status == result.FlakyRegression {
		renderRoot(b, r, d, "")
	}
	if r.Status == result.Explained && len(r.Chain) > 0 {
		renderSteps(b, r.Chain)
	}
	renderProof(b, r)
	if d.spent(b) {
		return
	}

	// The fold's parts are written first, so that its summary names only
	// those that wrote something.
	var rest strings.Builder
	var parts []string
	part := func(name string, write func(w *strings.Builder)) {
		n := rest.Len()
		write(&rest)
		if rest.Len() > n {
			parts = append(parts, name)
		}
	}
	in := d
	if d.budget > 0 {
		in.budget = max(1, d.budget-b.Len())
	}
	sub := d.heading + "#"
	if r.Status == result.Explained && d.lanes {
		part("chart of both runs", func(w *strings.Builder) {
			if chart := chainLanes(r.Chain); chart != "" {
				w.WriteString(fenced("mermaid", chart))
				w.WriteString("\n")
			}
		})
	}
	if r.Status == result.Explained || r.Status == result.FlakyRegression {
		part("auxiliary hunks", func(w *strings.Builder) { renderAux(w, r, in) })
	}
	part("causal tree", func(w *strings.Builder) { renderFoldedTree(w, r, in, sub) })
	part("compiler output", func(w *strings.Builder) { renderCompiler(w, r, in) })
	if d.evidence {
		part("failure rates", func(w *strings.Builder) { renderRates(w, r, sub) })
		part("evidence", func(w *strings.Builder) { renderEvidence(w, r, in, sub) })
	}
	if d.notes {
		part("notes", func(w *strings.Builder) { renderNotes(w, r, sub) })
	}
	if d.stats {
		part("cost", func(w *strings.Builder) { w.WriteString(statsLine(r) + "\n") })
	}
	if len(parts) == 0 {
		return
	}
	fmt.Fprintf(b, "<details><summary>%s</summary>\n\n", capitalize(listed(parts)))
	// "</details>" may follow a paragraph, list or code block directly: an
	// HTML block of its kind ends any paragraph it interrupts.
	b.WriteString(rest.String())
	if !strings.HasSuffix(rest.String(), "\n") {
		b.WriteString("\n")
	}
	b.WriteString("</details>\n")
}

// renderFoldedTree writes the causal tree of a report that claims a cause,
// as a list: in the comment a chart is drawn only of the two runs, which
// the list cannot show.
func renderFoldedTree(b *strings.Builder, r *result.Report, d detail, sub string) {
	if r.Tree == nil || d.treeItems <= 0 {
		return
	}
	switch r.Status {
	case result.Explained:
		fmt.Fprintf(b, "%s Why it fails\n\n", sub)
	case result.FlakyRegression:
		fmt.Fprintf(b, "%s Why it fails (found by intervention)\n\n", sub)
	default:
		return
	}
	renderTree(b, r, d, false)
}

// renderCompiler quotes what the compiler said when a side does not build.
func renderCompiler(b *strings.Builder, r *result.Report, d detail) {
	switch r.Status {
	case result.NotRegression:
		if msg := baseBuildOutput(r); msg != "" {
			b.WriteString("The compiler says, on base:\n\n")
			b.WriteString(fenced("text", clipLines(msg, d.diffLines)))
			b.WriteString("\n")
		}
	case result.HeadBuildFails:
		if r.Failure.Message != "" {
			b.WriteString("The compiler says:\n\n")
			b.WriteString(fenced("text", clipLines(r.Failure.Message, d.diffLines)))
			b.WriteString("\n")
		}
	}
}

// listed gives "a", "a and b", "a, b and c".
func listed(parts []string) string {
	if len(parts) < 2 {
		return strings.Join(parts, "")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}
