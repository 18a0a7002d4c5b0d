package report

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/culprit-dev/culprit/analyzer/result"
)

// code renders s as an inline code span that survives any backticks in s.
// A statement over several lines is shown on one (oneLine): a span cannot
// hold line breaks. The text is defanged as well: see defang for why a
// code span is not trusted to hold it.
func code(s string) string {
	s = defang(oneLine(s))
	if s == "" {
		return "` `"
	}
	ticks := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		return ticks + " " + s + " " + ticks
	}
	return ticks + s + ticks
}

// oneLine joins the lines of a statement's source with one space each,
// dropping the indentation around the breaks (a composite literal's
// fields), and keeps the spacing within each line as written.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	lines := strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' })
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	return strings.Join(slices.DeleteFunc(lines, func(l string) bool { return l == "" }), " ")
}

// fenced renders body as a fenced code block that no line of body can
// close. GitHub neither mentions nor links inside it, so body is shown as
// it is, but for a "<!--" and control characters (see blockSafe).
func fenced(lang, body string) string {
	body = blockSafe(body)
	ticks := strings.Repeat("`", max(3, longestRun(body, '`')+1))
	if body != "" && !strings.HasSuffix(body, "\n") {
		body += "\n"
	}
	return ticks + lang + "\n" + body + ticks + "\n"
}

func longestRun(s string, c byte) int {
	best, n := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			n++
			best = max(best, n)
		} else {
			n = 0
		}
	}
	return best
}

// plain escapes text from a report (names, values, verdicts) so that it
// shows as written in Markdown and can open no HTML, link, mention, math
// or code span: it is defanged, and every character Markdown or HTML gives
// a meaning to inline is escaped.
func plain(s string) string {
	var b strings.Builder
	for _, r := range defang(s) {
		switch r {
		case '\\', '`', '*', '_', '[', ']', '#', '|', '~', '$':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		case '\n', '\r':
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// linkURL makes u safe inside a Markdown link destination.
func linkURL(u string) string {
	return strings.NewReplacer(" ", "%20", "(", "%28", ")", "%29", "<", "%3C", ">", "%3E", "\n", "", "\r", "").Replace(u)
}

// plural gives "1 hunk", "2 hunks".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// hunksNamed gives "hunk #2", "hunks #2 and #3".
func hunksNamed(ids []result.HunkID) string {
	if len(ids) == 1 {
		return "hunk " + hunkRefs(ids)
	}
	return "hunks " + hunkRefs(ids)
}

// sortedIDs copies ids sorted, each once.
func sortedIDs(ids []result.HunkID) []result.HunkID {
	out := slices.Clone(ids)
	slices.Sort(out)
	return slices.Compact(out)
}

// hunkRefs gives "#2", "#2 and #3", "#2, #3 and #5".
func hunkRefs(ids []result.HunkID) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = "#" + strconv.Itoa(int(id))
	}
	switch len(parts) {
	case 0:
		return "none"
	case 1:
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// seconds formats a duration in seconds for people: to a tenth of a
// second under ten seconds, to the second above. The bounds are where the
// rounded value changes form, so that 9.96 s reads "10 s", not "10.0 s".
// The JSON keeps the exact value.
func seconds(s float64) string {
	switch {
	case s < 9.95:
		return fmt.Sprintf("%.1f s", s)
	case s < 119.5:
		return fmt.Sprintf("%.0f s", s)
	}
	n := int(math.Round(s))
	return fmt.Sprintf("%dm%02ds", n/60, n%60)
}

// budgetText rounds the durations of a budget as the engine words it, in
// the go command's form ("1.46961404s", "20m0s, 64 trials"), to the form
// of seconds; any other part stays as it is.
func budgetText(limit string) string {
	parts := strings.Split(limit, ", ")
	for i, p := range parts {
		if d, err := time.ParseDuration(p); err == nil {
			parts[i] = seconds(d.Seconds())
		}
	}
	return strings.Join(parts, ", ")
}

// firstLine returns the first non-blank line of s, trimmed.
func firstLine(s string) string {
	for line := range strings.Lines(s) {
		if t := strings.TrimSpace(line); t != "" {
			return t
		}
	}
	return ""
}

// cutRunes returns the longest prefix of s of at most n bytes that ends at
// a rune boundary.
func cutRunes(s string, n int) string {
	if n >= len(s) {
		return s
	}
	if n <= 0 {
		return ""
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// clip shortens one line of text to about n bytes, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return cutRunes(s, n) + "…"
}
