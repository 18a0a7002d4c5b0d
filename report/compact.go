package report

import (
	"fmt"
	"strings"

	"github.com/culprit-dev/culprit/analyzer/result"
)

// compactHeading starts the table of tests of a compact comment.
const compactHeading = "| test | result | root cause |\n|---|---|---|\n"

// compact is the comment when even the shortest rendering of the reports
// is over limit (very many tests, or a small limit): a table with a row
// for each test, as many as fit, and the footer linking the full reports.
// Rows are whole or absent: a comment cut inside a code block or a
// <details> would render everything after the cut wrongly. A limit too
// small for any table keeps as much of the title as fits.
func compact(reports []*result.Report, opt CommentOptions, limit int) string {
	head := Marker + "\n"
	if len(head) >= limit {
		return ""
	}
	title := "## culprit\n\n"
	intro := ""
	if len(reports) > 1 {
		intro = tally(reports) + "\n\n"
	}
	rows := make([]string, len(reports))
	for i, r := range reports {
		rows[i] = compactRow(r)
	}
	for _, tail := range []string{footer(opt, true), ""} {
		if s, ok := table(head+title+intro, rows, tail, limit); ok {
			return s
		}
	}
	for _, s := range []string{head + title + intro, head + strings.TrimSpace(title) + "\n"} {
		if len(s) < limit {
			return s
		}
	}
	return head
}

// table writes prefix, the table of as many rows as fit, a line saying
// how many did not and tail, all shorter than limit; false when not even
// one row fits.
func table(prefix string, rows []string, tail string, limit int) (string, bool) {
	size := len(prefix) + len(compactHeading) + len(tail)
	fit := 0
	for k := 1; k <= len(rows); k++ {
		size += len(rows[k-1])
		if size+len(notListed(len(rows)-k)) < limit {
			fit = k
		}
	}
	if fit == 0 && len(rows) > 0 {
		return "", false
	}
	var b strings.Builder
	b.WriteString(prefix)
	if len(rows) > 0 {
		b.WriteString(compactHeading)
	}
	for _, row := range rows[:fit] {
		b.WriteString(row)
	}
	b.WriteString(notListed(len(rows) - fit))
	b.WriteString(tail)
	return b.String(), true
}

// notListed says that n tests did not fit in the table.
func notListed(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("\n_%s not listed here._\n", plural(n, "more test", "more tests"))
}

// compactRow is the table row of one report. Every cell is plain text,
// which escapes the "|" that would split it.
func compactRow(r *result.Report) string {
	if r == nil {
		return "| a missing report |  |  |\n"
	}
	status, ok := tallyWords[r.Status]
	if !ok {
		status = "unknown status " + plain(string(r.Status))
	}
	var who string
	switch {
	case r.Test.Name != "" && r.Test.Package != "":
		who = plain(r.Test.Name) + " in " + plain(r.Test.Package)
	case r.Test.Name != "":
		who = plain(r.Test.Name)
	case r.Test.Command != "":
		who = plain(r.Test.Command)
	default:
		who = "the failing test"
	}
	return "| " + who + " | " + status + " | " + rootCell(r) + " |\n"
}

// rootCell names the root hunks where the report claims them, at most
// three by place.
func rootCell(r *result.Report) string {
	claimed := r.Status == result.Explained || r.Status == result.FlakyRegression && proofPassed(r)
	if !claimed || len(r.Root) == 0 {
		return ""
	}
	const most = 3
	var parts []string
	for _, id := range r.Root[:min(len(r.Root), most)] {
		part := fmt.Sprintf("#%d", id)
		if h, ok := r.Hunk(id); ok {
			part += " " + plain(fmt.Sprintf("%s:%d", h.File, h.HeadLines[0]))
		}
		parts = append(parts, part)
	}
	out := strings.Join(parts, ", ")
	if len(r.Root) > most {
		out += fmt.Sprintf(" and %d more", len(r.Root)-most)
	}
	return out
}
