package report

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/culprit-dev/culprit/analyzer/result"
)

// renderTree writes the causal tree as a nested list, from the failed
// assertion back to the changed lines, then, if draw, as a Mermaid
// flowchart when it is small enough to draw.
func renderTree(b *strings.Builder, r *result.Report, d detail, draw bool) {
	total := treeSteps(r.Tree)
	shown := 0
	var walk func(n *result.Node, depth int)
	walk = func(n *result.Node, depth int) {
		if n == nil || shown >= d.treeItems || depth >= d.treeDepth || d.spent(b) {
			return
		}
		indent := strings.Repeat("  ", depth)
		shown++
		switch {
		case depth == 0:
			b.WriteString(indent + "- " + rootStep(n) + "\n")
		case n.Link != "":
			b.WriteString(indent + "- because " + interventionStep(n) + "\n")
		default:
			b.WriteString(indent + "- because " + branchStep(n) + "\n")
		}
		for _, s := range n.Statements {
			if shown >= d.treeItems || depth+1 >= d.treeDepth {
				break
			}
			shown++
			b.WriteString(indent + "  - " + step(s) + "\n")
		}
		for _, c := range n.Children {
			walk(c, depth+1)
		}
	}
	walk(r.Tree, 0)
	if rest := total - shown; rest > 0 {
		fmt.Fprintf(b, "- _… %s of the tree not shown here._\n", plural(rest, "more step", "more steps"))
	}
	b.WriteString("\n")
	if d.mermaid <= 0 || !draw {
		return
	}
	if total > d.mermaid {
		fmt.Fprintf(b, "_The tree has %d steps, too many to draw as a flowchart._\n\n", total)
		return
	}
	b.WriteString(fenced("mermaid", mermaid(r.Tree)))
	b.WriteString("\n")
}

// treeSteps counts the targets and statements of the tree: the items of
// its list and the boxes of its flowchart.
func treeSteps(n *result.Node) int {
	total := 0
	n.Walk(func(n *result.Node) { total += 1 + len(n.Statements) })
	return total
}

func rootStep(n *result.Node) string {
	what := n.Outcome
	if what == "" {
		what = "fails"
	}
	if n.Target.File == "" {
		// A run that ended without reaching a failure event: a fatal
		// runtime error such as concurrent map writes.
		return "**" + plain(what) + ":** the test process ended without reaching an assertion (a fatal runtime error)"
	}
	return "**" + plain(what) + ":** " + step(n.Target)
}

func branchStep(n *result.Node) string {
	switch n.Outcome {
	case "":
		return step(n.Target)
	case "true", "false":
		return stepWith(n.Target, " was **"+n.Outcome+"**")
	}
	return stepWith(n.Target, " ("+plain(n.Outcome)+")")
}

// step renders one statement: place, source, values seen, hunk.
func step(s result.Statement) string { return stepWith(s, "") }

// stepWith renders a statement with what it evaluated to (evaluated,
// already worded) after its source.
func stepWith(s result.Statement, evaluated string) string {
	out := code(fmt.Sprintf("%s:%d", s.File, s.Line)) + " " + code(clip(s.Text, 120)) + evaluated
	if v := values(s.Values); v != "" {
		out += " (" + plain(v) + ")"
	}
	if s.Deleted {
		out += " — deleted here by the change, so the failing run could not execute it"
	}
	switch {
	case s.OnlyPassing:
		out += " — ran only without the change"
	case s.PassingDiffers():
		out += "; without the change: " + passingText(s.Passing)
	}
	if s.Diverges {
		out += " — **the runs diverge here**"
	}
	if s.Hunk != 0 {
		out += fmt.Sprintf(" ← hunk #%d", s.Hunk)
	}
	return out
}

// values gives "got = 4, sum = 3", sorted by name, each value clipped.
func values(v map[string]string) string {
	parts := make([]string, 0, len(v))
	for _, k := range slices.Sorted(maps.Keys(v)) {
		parts = append(parts, k+" = "+clip(v[k], 60))
	}
	return strings.Join(parts, ", ")
}

// mermaid draws the tree bottom to top: changed statements at the bottom,
// arrows pointing to what they cause, the failed assertion on top.
func mermaid(root *result.Node) string {
	var b strings.Builder
	b.WriteString("flowchart BT\n")
	next := 0
	var walk func(n *result.Node, parent string)
	walk = func(n *result.Node, parent string) {
		if n == nil {
			return // a null child in a report read from JSON
		}
		id := fmt.Sprintf("n%d", next)
		next++
		label := stepLabel(n.Target)
		if n.Target.File == "" {
			label = "the test process" // it died before any assertion
		}
		if parent == "" && n.Outcome != "" {
			label += "<br/>" + mermaidText(n.Outcome)
		}
		if n.Link != "" {
			label += "<br/>" + mermaidText(n.Link)
		}
		fmt.Fprintf(&b, "  %s[\"%s\"]%s\n", id, label, class(n.Target, parent == ""))
		if parent != "" {
			if n.Outcome != "" {
				fmt.Fprintf(&b, "  %s -->|\"%s\"| %s\n", id, mermaidText(n.Outcome), parent)
			} else {
				fmt.Fprintf(&b, "  %s --> %s\n", id, parent)
			}
		}
		for i, s := range n.Statements {
			sid := fmt.Sprintf("%ss%d", id, i)
			fmt.Fprintf(&b, "  %s[\"%s\"]%s\n", sid, stepLabel(s), class(s, false))
			fmt.Fprintf(&b, "  %s --> %s\n", sid, id)
		}
		for _, c := range n.Children {
			walk(c, id)
		}
	}
	walk(root, "")
	b.WriteString("  classDef failed stroke:#d73a49,stroke-width:3px\n")
	b.WriteString("  classDef changed fill:#ffeef0,stroke:#d73a49\n")
	return b.String()
}

func class(s result.Statement, failed bool) string {
	switch {
	case failed:
		return ":::failed"
	case s.Hunk != 0:
		return ":::changed"
	}
	return ""
}

func stepLabel(s result.Statement) string {
	lines := []string{
		mermaidText(fmt.Sprintf("%s:%d", s.File, s.Line)),
		mermaidText(clip(s.Text, 60)),
	}
	if v := valueLine(s.Values, 60); v != "" {
		lines = append(lines, v)
	}
	if s.Deleted {
		lines = append(lines, mermaidText("deleted by the change"))
	}
	if s.Hunk != 0 {
		lines = append(lines, mermaidText(fmt.Sprintf("hunk #%d", s.Hunk)))
	}
	return strings.Join(lines, "<br/>")
}

// valueLine gives the values of a step as one line of a flowchart's label,
// sorted by name, escaped, about most characters long. Pairs are whole or
// left out, and the line then ends in "…": a value cut in the middle reads
// as a value it never had. A value the tracer cut keeps its own ellipsis.
func valueLine(v map[string]string, most int) string {
	var kept []string
	n, dropped := 0, false
	for _, k := range slices.Sorted(maps.Keys(v)) {
		pair := k + " = " + oneLine(v[k])
		w := utf8.RuneCountInString(pair)
		if len(kept) > 0 {
			w += len(", ")
		}
		if n+w > most {
			dropped = true
			continue
		}
		kept = append(kept, pair)
		n += w
	}
	if dropped {
		kept = append(kept, "…")
	}
	return mermaidText(strings.Join(kept, ", "))
}

// mermaidText escapes s for a quoted Mermaid label. Mermaid decodes
// "#name;" and "#number;" entities inside labels, so every character that
// could end the label, start markup or read as an entity is written as one;
// the text is defanged first, as everywhere outside a code block.
func mermaidText(s string) string {
	var b strings.Builder
	for _, r := range defang(oneLine(s)) {
		switch r {
		case '"':
			b.WriteString("#quot;")
		case '#':
			b.WriteString("#35;")
		case '&', '<', '>':
			// Decimal codes: Mermaid decodes these in every version,
			// while GitHub's showed the named #gt; as it is.
			fmt.Fprintf(&b, "#%d;", r)
		case '[', ']', '(', ')', '{', '}', '|', '`', ';':
			fmt.Fprintf(&b, "#%d;", r)
		case '\n', '\r', '\t':
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// interventionStep words a step of a chain found by intervention: the
// runtime fact over its statements (in the order result.Node.Fact gives),
// then how the interventions judged it. Source text is quoted as code.
func interventionStep(n *result.Node) string {
	st := n.Statements
	at := func(k int) string {
		return code(clip(st[k].Text, 80)) + " (" + code(fmt.Sprintf("%s:%d", st[k].File, st[k].Line)) + ")"
	}
	var what string
	switch {
	case n.Fact == "interleave" && len(st) == 3:
		what = fmt.Sprintf("another goroutine's %s ran between this goroutine's %s and its %s", at(1), at(0), at(2))
	case n.Fact == "order" && len(st) == 2:
		what = fmt.Sprintf("one goroutine's %s ran before another goroutine's last %s: their accesses overlapped", at(0), at(1))
	case n.Fact == "remote-def" && len(st) == 2:
		what = fmt.Sprintf("%s read the value another goroutine wrote at %s", at(1), at(0))
	case n.Fact == "overlap" && len(st) == 2:
		what = fmt.Sprintf("two goroutines ran %s at once: one entered it (%s) while another goroutine's call (%s) had not returned",
			code(clip(st[0].Text, 80)), code(fmt.Sprintf("%s:%d", st[0].File, st[0].Line)), code(fmt.Sprintf("%s:%d", st[1].File, st[1].Line)))
	case n.Fact == "timing" && len(st) == 1:
		what = fmt.Sprintf("calls of the function that holds %s ran at once on two goroutines", at(0))
	case n.Fact == "never":
		what = stepWith(n.Target, " never took the way it took in every passing run")
	case n.Fact == "value":
		what = stepWith(n.Target, " gave a value outside those of the passing runs")
	case n.Fact == "panic":
		what = stepWith(n.Target, " panicked")
	default:
		what = branchStep(n)
	}
	switch n.Link {
	case "confirmed":
		what += " — **confirmed** by intervention"
		if n.Fact == "timing" {
			what += ": with its calls run one at a time, the failure stopped"
		}
		if n.Effect != "" {
			what += " (failure rate " + plain(n.Effect) + ")"
		}
	case "correlated":
		if n.Fact == "timing" {
			what += " — _correlated only_: with its calls run one at a time the failure stopped, but a delay of the same length on entering it stopped it too"
		} else {
			what += " — _correlated only_: seen in every failing run, not shown to be a cause"
		}
	}
	return what
}
