package report

import (
	"fmt"
	"strings"

	"github.com/culprit-dev/culprit/analyzer/result"
)

// Marker is hidden in the sticky PR comment so that it can be found and
// updated in place on every rerun.
const Marker = "<!-- culprit:report -->"

// DefaultMaxLen is GitHub's limit on the body of a comment.
const DefaultMaxLen = 65536

// CommentOptions tune the sticky PR comment.
type CommentOptions struct {
	// MaxLen bounds the comment's length in bytes (which bounds its
	// characters too). Zero means DefaultMaxLen.
	MaxLen int
	// DetailsURL links the full report, typically the job summary.
	DetailsURL string
	// Rerun tells how to run the analysis again, in Markdown, e.g.
	// "comment `/culprit` or run the workflow".
	Rerun string
}

// levels lower the detail of the comment step by step until it fits.
// Every level opens only the first screen of each test and folds the rest
// (renderFolded); the chart of the two runs is the only one drawn.
var levels = []detail{
	{heading: "###", fold: true, rootDiffs: true, aux: auxDiffs, treeItems: 200, treeDepth: 12, lanes: true, evidence: true, notes: true, stats: true},
	{heading: "###", fold: true, rootDiffs: true, rootHunks: 20, diffLines: 60, aux: auxList, treeItems: 60, treeDepth: 10, lanes: true, notes: true, stats: true},
	{heading: "###", fold: true, rootDiffs: true, rootHunks: 5, diffLines: 20, aux: auxCount, treeItems: 20, treeDepth: 6, notes: true, stats: true},
	{heading: "###", fold: true, rootHunks: 20, aux: auxCount, notes: true},
	{heading: "###", fold: true, rootHunks: 3, aux: auxCount},
}

// Comment renders the sticky PR comment for one or more analysed tests.
// It starts with Marker and is always shorter than opt.MaxLen: sections
// shrink first, and when even the shortest rendering is too long, the
// comment is a table of every test that fits, linking DetailsURL for the
// full reports. A MaxLen too small to hold the marker gives "".
func Comment(reports []*result.Report, opt CommentOptions) string {
	limit := opt.MaxLen
	if limit <= 0 {
		limit = DefaultMaxLen
	}
	for i, d := range levels {
		body := commentBody(reports, d, limit)
		if s := Marker + "\n" + body + footer(opt, i > 0); len(s) < limit {
			return s
		}
	}
	return compact(reports, opt, limit)
}

// commentBody renders the reports at detail d. It stops early once the
// text is longer than limit: it cannot fit, and only a prefix is cut from it.
func commentBody(reports []*result.Report, d detail, limit int) string {
	var b strings.Builder
	b.WriteString("## culprit\n\n")
	if len(reports) == 0 {
		b.WriteString("No failing test was analysed.\n")
		return b.String()
	}
	if len(reports) > 1 {
		b.WriteString(tally(reports) + "\n\n")
	}
	for i, r := range reports {
		if b.Len() > limit {
			break
		}
		if i > 0 {
			// A blank line first: "---" right under a line of text
			// would make that line a heading.
			blankLine(&b)
			b.WriteString("---\n\n")
		}
		if r == nil {
			b.WriteString("_A missing report._\n")
			continue
		}
		d.budget = limit
		render(&b, r, d)
	}
	return b.String()
}

// blankLine ends b with an empty line, unless it is empty or does already.
func blankLine(b *strings.Builder) {
	s := b.String()
	switch {
	case s == "" || strings.HasSuffix(s, "\n\n"):
	case strings.HasSuffix(s, "\n"):
		b.WriteString("\n")
	default:
		b.WriteString("\n\n")
	}
}

// statusOrder is the order of the statuses in a tally, and tallyWords
// their words there and in the compact table.
var (
	statusOrder = []result.Status{result.Explained, result.FlakyRegression, result.Unexplained, result.HeadBuildFails, result.NotRegression, result.Flaky}
	tallyWords  = map[result.Status]string{
		result.Explained:       "explained",
		result.FlakyRegression: "made flaky by this PR",
		result.Unexplained:     "not explained",
		result.HeadBuildFails:  "head does not build",
		result.NotRegression:   "failing on base too",
		result.Flaky:           "flaky",
	}
)

// tally gives "3 failing tests analysed: 1 explained, 2 flaky."
func tally(reports []*result.Report) string {
	count := map[result.Status]int{}
	other := 0
	for _, r := range reports {
		if r == nil {
			other++
			continue
		}
		if _, ok := tallyWords[r.Status]; !ok {
			other++
			continue
		}
		count[r.Status]++
	}
	var parts []string
	for _, s := range statusOrder {
		if count[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", count[s], tallyWords[s]))
		}
	}
	if other > 0 {
		parts = append(parts, fmt.Sprintf("%d unknown", other))
	}
	return fmt.Sprintf("%s analysed: %s.", plural(len(reports), "failing test", "failing tests"), strings.Join(parts, ", "))
}

// footer links the full report and says how to rerun; short says that the
// comment lost detail to fit.
func footer(opt CommentOptions, short bool) string {
	var lines []string
	switch {
	case short && artifactsURL(opt.DetailsURL) != "":
		lines = append(lines, fmt.Sprintf("_This comment was shortened to fit GitHub's size limit; see the [full report](%s) in the job summary, and the JSON report among the [run's artifacts](%s)._",
			linkURL(opt.DetailsURL), linkURL(artifactsURL(opt.DetailsURL))))
	case short && opt.DetailsURL != "":
		lines = append(lines, fmt.Sprintf("_This comment was shortened to fit GitHub's size limit; see the [full report](%s)._", linkURL(opt.DetailsURL)))
	case short:
		lines = append(lines, "_This comment was shortened to fit GitHub's size limit._")
	case opt.DetailsURL != "":
		lines = append(lines, fmt.Sprintf("[Full report](%s)", linkURL(opt.DetailsURL)))
	}
	if rerun := strings.TrimRight(strings.TrimSpace(opt.Rerun), "."); rerun != "" {
		lines = append(lines, "To rerun, "+rerun+".")
	}
	if len(lines) == 0 {
		return ""
	}
	return "\n---\n" + strings.Join(lines, " · ") + "\n"
}

// artifactsURL links the artifacts of the run details links, where the
// workflow uploads the JSON report: the artifacts section of a run's page.
// Any other page gives "".
func artifactsURL(details string) string {
	if !strings.Contains(details, "/actions/runs/") || strings.ContainsAny(details, "#?") {
		return ""
	}
	return strings.TrimSuffix(details, "/") + "#artifacts"
}
