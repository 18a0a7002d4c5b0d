package bot

import (
	"iter"
	"strings"
)

// proseLines yields the lines of a comment's Markdown body that begin as
// text a reader sees: not in a fenced or indented code block, not in an
// HTML comment. Each comes without its indentation and line ending, with
// the HTML comments in it cut out. It follows CommonMark (and so GitHub)
// where a command could hide or show:
//
//   - a fence of three or more backticks or tildes, indented at most three
//     spaces, is closed only by a fence of the same character, at least as
//     long, with nothing after it; an unclosed fence runs to the end. A
//     backtick fence's info string has no backtick (otherwise the line is
//     an inline code span);
//   - a line indented four columns or more (a tab reaches the next
//     multiple of four) is code unless it continues a paragraph;
//   - "<!--" opens a comment up to the next "-->" (or "<!-->", "<!--->"),
//     across lines; text after a comment that a line begins in is not the
//     line's beginning.
//
// Container blocks (block quotes, list items) are not followed: a line
// that starts with their markers does not start with a command anyway.
func proseLines(body string) iter.Seq[string] {
	return func(yield func(string) bool) {
		var (
			open      fence // the fenced code block the line is in, if any
			inComment bool
			paragraph bool // the line before continues a paragraph
		)
		for line := range strings.Lines(body) {
			line = strings.TrimRight(line, "\r\n")
			if open.char != 0 {
				if open.closedBy(line) {
					open = fence{}
				}
				continue
			}
			if inComment {
				_, after, closed := strings.Cut(line, "-->")
				if closed {
					// Whatever follows is not where the line begins; it
					// may open another comment.
					_, inComment = stripComments(after)
					paragraph = true
				}
				continue
			}
			indent, text := indentation(line)
			if strings.TrimSpace(text) == "" {
				paragraph = false
				continue
			}
			if indent >= 4 && !paragraph {
				continue // indented code
			}
			if f, ok := openingFence(text); ok && indent < 4 {
				open, paragraph = f, false
				continue
			}
			startsInComment := strings.HasPrefix(text, "<!--")
			text, inComment = stripComments(text)
			paragraph = !startsInComment && !isATXHeading(text)
			if startsInComment {
				continue
			}
			if !yield(strings.TrimRight(text, " \t")) {
				return
			}
		}
	}
}

// fence is an open fenced code block: its character and length.
type fence struct {
	char byte
	n    int
}

// openingFence reports whether text, a line without its indentation,
// opens a fenced code block.
func openingFence(text string) (fence, bool) {
	if text == "" || text[0] != '`' && text[0] != '~' {
		return fence{}, false
	}
	f := fence{char: text[0], n: runLength(text, text[0])}
	if f.n < 3 || f.char == '`' && strings.Contains(text[f.n:], "`") {
		return fence{}, false
	}
	return f, true
}

// closedBy reports whether line closes the fenced block f.
func (f fence) closedBy(line string) bool {
	indent, text := indentation(line)
	if indent >= 4 || text == "" || text[0] != f.char {
		return false
	}
	n := runLength(text, f.char)
	return n >= f.n && strings.Trim(text[n:], " \t") == ""
}

func runLength(s string, c byte) int {
	n := 0
	for n < len(s) && s[n] == c {
		n++
	}
	return n
}

// indentation is line's leading white space in columns, tabs reaching the
// next multiple of four, and the rest of the line.
func indentation(line string) (columns int, rest string) {
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case ' ':
			columns++
		case '\t':
			columns += 4 - columns%4
		default:
			return columns, line[i:]
		}
	}
	return columns, ""
}

// stripComments replaces each complete HTML comment in s by a space and
// cuts s at one left open, reporting that it is.
func stripComments(s string) (string, bool) {
	var b strings.Builder
	for {
		before, after, found := strings.Cut(s, "<!--")
		if !found {
			b.WriteString(s)
			return b.String(), false
		}
		b.WriteString(before)
		b.WriteByte(' ')
		// "<!-->" and "<!--->" are whole (empty) comments.
		if rest, ok := strings.CutPrefix(after, ">"); ok {
			s = rest
			continue
		}
		if rest, ok := strings.CutPrefix(after, "->"); ok {
			s = rest
			continue
		}
		_, rest, closed := strings.Cut(after, "-->")
		if !closed {
			return b.String(), true
		}
		s = rest
	}
}

// isATXHeading reports whether text is a "#" heading, after which a line
// indented four columns is code again.
func isATXHeading(text string) bool {
	n := runLength(text, '#')
	return n >= 1 && n <= 6 && (len(text) == n || text[n] == ' ' || text[n] == '\t')
}
