package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/culprit-dev/culprit/analyzer/result"
)

// renderChain opens the explanation: the few steps from the change to the
// failure, each with what the passing run (head without the culprit) did
// there instead.
func renderChain(b *strings.Builder, chain []result.Statement) {
	b.WriteString("With the change, and without it (the proof's passing run):\n\n")
	renderSteps(b, chain)
}

// renderSteps writes the chain as a numbered list, one step an item.
func renderSteps(b *strings.Builder, chain []result.Statement) {
	for i, s := range chain {
		fmt.Fprintf(b, "%d. %s\n", i+1, chainStep(s))
	}
	b.WriteString("\n")
}

// chainStep renders one step: place and source, the failing run's
// outcome and values, then the passing run's.
func chainStep(s result.Statement) string {
	out := code(fmt.Sprintf("%s:%d", s.File, s.Line)) + " " + code(clip(s.Text, 120))
	if s.OnlyPassing {
		out += " ran **only without the change**"
		if v := values(s.Values); v != "" {
			out += " (" + plain(v) + ")"
		}
		if s.Diverges {
			out += " — **the runs diverge here**"
		}
		return out + hunkSuffix(s)
	}
	if s.Outcome != "" {
		out += " is **" + plain(s.Outcome) + "**"
	}
	if v := values(s.Values); v != "" {
		out += " (" + plain(v) + ")"
	}
	if s.Count > 1 {
		out += fmt.Sprintf(" ×%d", s.Count)
	}
	switch p := s.Passing; {
	case p != nil && p.Missing && s.Hunk != 0:
		out += "; without the change: not in the code"
	case p != nil:
		out += "; without the change: " + passingText(p)
	}
	if s.Diverges {
		out += " — **the runs diverge here**"
	}
	return out + hunkSuffix(s)
}

// passingText says what the passing run did at a step.
func passingText(p *result.Passing) string {
	if p.Missing {
		return "not reached"
	}
	if p.Text != "" && p.Outcome == "" && len(p.Values) == 0 {
		return code(clip(p.Text, 120))
	}
	var parts []string
	if p.Text != "" {
		parts = append(parts, code(clip(p.Text, 120)))
	}
	if p.Outcome != "" {
		parts = append(parts, "**"+plain(p.Outcome)+"**")
	}
	if v := values(p.Values); v != "" {
		parts = append(parts, "("+plain(v)+")")
	}
	if len(parts) == 0 {
		return "the same"
	}
	return strings.Join(parts, " ")
}

func hunkSuffix(s result.Statement) string {
	if s.Hunk != 0 {
		return fmt.Sprintf(" ← hunk #%d", s.Hunk)
	}
	return ""
}

// chainLanes draws what the numbered list cannot show: the failing run
// (with the change) and the passing run (without it) as two lanes, which
// share the steps before the divergence, part at the step where the runs
// diverge and each end where its run ends, the failed assertion on one
// side, the check passing or never reached on the other. A chain without a
// passing side, or whose runs never part, gives "": the list says it all.
func chainLanes(chain []result.Statement) string {
	k := divergence(chain)
	if k < 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("flowchart TB\n")
	node := func(indent, id string, lines []string, class string) string {
		fmt.Fprintf(&b, "%s%s[\"%s\"]%s\n", indent, id, strings.Join(lines, "<br/>"), class)
		return id
	}
	// Before the divergence both runs did the same: one node a step.
	var shared []string
	for i, s := range chain[:k] {
		shared = append(shared, node("  ", fmt.Sprintf("s%d", i), failingLines(s, true), class(s, false)))
	}
	// The divergence is one node, holding what the runs share there: the
	// place and the hunk. What each run did there opens its lane.
	d := chain[k]
	parting := []string{mermaidText(fmt.Sprintf("%s:%d", d.File, d.Line))}
	if d.Hunk != 0 {
		parting = append(parting, mermaidText(fmt.Sprintf("hunk #%d", d.Hunk)))
	}
	shared = append(shared, node("  ", "d", append(parting, mermaidText("the runs diverge here")), class(d, false)))

	type box struct {
		lines []string
		class string
	}
	var failing, passing []box
	for i, s := range chain[k:] {
		if !s.OnlyPassing {
			failing = append(failing, box{failingLines(s, i > 0), class(s, false)})
		}
		passing = append(passing, box{passingLines(s, i > 0), ""})
	}
	if len(failing) == 0 {
		failing = append(failing, box{})
	}
	end := &failing[len(failing)-1]
	end.lines, end.class = append(end.lines, mermaidText("fails here")), ":::failed"
	passing[len(passing)-1].class = ":::passed"
	var edges []string
	lane := func(id, title string, boxes []box) {
		fmt.Fprintf(&b, "  subgraph %s [\"%s\"]\n", id, mermaidText(title))
		ids := []string{"d"}
		for i, x := range boxes {
			ids = append(ids, node("    ", fmt.Sprintf("%s%d", id[:1], i), x.lines, x.class))
		}
		b.WriteString("  end\n")
		edges = append(edges, strings.Join(ids, " --> "))
	}
	lane("failing", "with the change", failing)
	lane("passing", "without the change", passing)
	if len(shared) > 1 {
		fmt.Fprintf(&b, "  %s\n", strings.Join(shared, " --> "))
	}
	for _, e := range edges {
		fmt.Fprintf(&b, "  %s\n", e)
	}
	b.WriteString("  classDef failed stroke:#d73a49,stroke-width:3px\n")
	b.WriteString("  classDef passed stroke:#2da44e,stroke-width:3px\n")
	b.WriteString("  classDef changed fill:#ffeef0,stroke:#d73a49\n")
	return b.String()
}

// divergence returns the index of the step where the lanes part: the step
// marked as where the runs diverge, else the first that ran otherwise
// without the change. It is -1 when the chain has no passing side to draw.
func divergence(chain []result.Statement) int {
	passing := slices.ContainsFunc(chain, func(s result.Statement) bool { return s.Passing != nil || s.OnlyPassing })
	if !passing {
		return -1
	}
	if k := slices.IndexFunc(chain, func(s result.Statement) bool { return s.Diverges }); k >= 0 {
		return k
	}
	return slices.IndexFunc(chain, func(s result.Statement) bool { return s.OnlyPassing || s.PassingDiffers() })
}

// failingLines is the label of a step in the failing run: place (unless
// the divergence node above holds it), source, outcome, values, hunk.
func failingLines(s result.Statement, place bool) []string {
	var lines []string
	if place {
		lines = append(lines, mermaidText(fmt.Sprintf("%s:%d", s.File, s.Line)))
	}
	lines = append(lines, mermaidText(clip(s.Text, 60)))
	if s.Outcome != "" {
		lines = append(lines, mermaidText("→ "+s.Outcome))
	}
	if v := valueLine(s.Values, 60); v != "" {
		lines = append(lines, v)
	}
	if s.Count > 1 {
		lines = append(lines, mermaidText(fmt.Sprintf("×%d", s.Count)))
	}
	if s.Hunk != 0 && place {
		lines = append(lines, mermaidText(fmt.Sprintf("hunk #%d", s.Hunk)))
	}
	return lines
}

// passingLines is the label of a step in the passing run, worded as the
// list words it (passingText).
func passingLines(s result.Statement, place bool) []string {
	var lines []string
	if place {
		lines = append(lines, mermaidText(fmt.Sprintf("%s:%d", s.File, s.Line)))
	}
	p := s.Passing
	switch {
	case s.OnlyPassing:
		lines = append(lines, mermaidText(clip(s.Text, 60)))
		if v := valueLine(s.Values, 60); v != "" {
			lines = append(lines, v)
		}
	case p == nil:
		lines = append(lines, mermaidText("not matched in this run"))
	case p.Missing && s.Hunk != 0:
		lines = append(lines, mermaidText("not in the code"))
	case p.Missing:
		lines = append(lines, mermaidText("not reached"))
	default:
		text := s.Text
		if p.Text != "" {
			text = p.Text
		}
		lines = append(lines, mermaidText(clip(text, 60)))
		if p.Outcome != "" {
			lines = append(lines, mermaidText("→ "+p.Outcome))
		}
		if v := valueLine(p.Values, 60); v != "" {
			lines = append(lines, v)
		}
	}
	return lines
}
