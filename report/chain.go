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

// chainMermaid draws the chain top to bottom, change first, failure last.
func chainMermaid(chain []result.Statement) string {
	var b strings.Builder
	b.WriteString("flowchart TB\n")
	for i, s := range chain {
		label := stepLabel(s)
		if s.OnlyPassing {
			label += "<br/>" + mermaidText("only without the change")
		} else if p := s.Passing; p != nil && !p.Missing && (p.Outcome != "" || len(p.Values) > 0) {
			w := strings.Join(slices.DeleteFunc([]string{p.Text, p.Outcome, values(p.Values)}, func(x string) bool { return x == "" }), " ")
			label += "<br/>" + mermaidText(clip("without the change: "+w, 70))
		}
		fmt.Fprintf(&b, "  c%d[\"%s\"]%s\n", i, label, class(s, i == len(chain)-1))
		if i > 0 {
			fmt.Fprintf(&b, "  c%d --> c%d\n", i-1, i)
		}
	}
	b.WriteString("  classDef failed stroke:#d73a49,stroke-width:3px\n")
	b.WriteString("  classDef changed fill:#ffeef0,stroke:#d73a49\n")
	return b.String()
}
