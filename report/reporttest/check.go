package reporttest

import (
	"fmt"
	"html"
	"regexp"
	"strings"
)

// Tags are the HTML elements culprit itself writes outside code blocks;
// each must be closed where it was opened. Any other tag is refused.
var Tags = []string{"details", "summary", "sub"}

// CheckMarkdown returns an error naming the first way md, a Markdown body
// culprit rendered, could act on GitHub: a tag that is not culprit's or
// does not balance, a mention, a link or autolink (also once entities are
// decoded), a control character, or a "<!--" anywhere, code blocks
// included. Each string in allow (culprit's own marker, its own link) may
// appear at most once and is left out of the checks.
func CheckMarkdown(md string, allow ...string) error {
	md, err := strip(md, allow)
	if err != nil {
		return err
	}
	if strings.Contains(md, "<!--") {
		return fmt.Errorf("a %q that is not culprit's marker", "<!--")
	}
	prose, code, err := splitFences(md)
	if err != nil {
		return err
	}
	if i := strings.IndexFunc(code, func(r rune) bool { return r < 0x20 && r != '\n' && r != '\t' && r != '\r' || r == 0x7f }); i >= 0 {
		return fmt.Errorf("control character %q in a code block", code[i])
	}
	return checkProse(prose)
}

// CheckText is CheckMarkdown for text GitHub shows without rendering it
// (annotations): it holds no code blocks and no marker, and is checked as
// prose all the same, since a client may render it.
func CheckText(s string) error {
	if strings.Contains(s, "<!--") {
		return fmt.Errorf("a %q in plain text", "<!--")
	}
	return checkProse(s)
}

// strip removes each allowed string, which may appear once at most.
func strip(md string, allow []string) (string, error) {
	for _, a := range allow {
		if a == "" {
			continue
		}
		if n := strings.Count(md, a); n > 1 {
			return "", fmt.Errorf("%q appears %d times; only culprit writes it, once", a, n)
		}
		md = strings.Replace(md, a, "allowed", 1)
	}
	return md, nil
}

var fenceLine = regexp.MustCompile("^ {0,3}(`{3,}|~{3,})(.*)$")

// splitFences separates the lines of fenced code blocks from the rest. A
// fence opens only after a blank line (or at the start); a fence line
// elsewhere is prose. An unclosed block is an error: culprit closes every
// block it opens.
func splitFences(md string) (prose, code string, err error) {
	var p, c strings.Builder
	open := ""
	blank := true
	for _, l := range strings.Split(md, "\n") {
		m := fenceLine.FindStringSubmatch(l)
		switch {
		case open != "":
			if m != nil && m[1][0] == open[0] && len(m[1]) >= len(open) && strings.TrimSpace(m[2]) == "" {
				open = ""
			} else {
				c.WriteString(l + "\n")
			}
		case m != nil && blank && !(m[1][0] == '`' && strings.Contains(m[2], "`")):
			open = m[1]
		default:
			p.WriteString(l + "\n")
		}
		blank = strings.TrimSpace(l) == ""
	}
	if open != "" {
		return "", "", fmt.Errorf("a code block opened with %s is not closed", open)
	}
	return p.String(), c.String(), nil
}

var (
	tag     = regexp.MustCompile(`<(/?)([A-Za-z][A-Za-z0-9-]*)|<[!?]`)
	mention = regexp.MustCompile(`@[A-Za-z0-9_-]`)
	link    = regexp.MustCompile(`(?i)//|www\.|\]\(`)
)

// checkProse checks text outside code blocks, code spans included.
func checkProse(s string) error {
	if i := strings.IndexFunc(s, func(r rune) bool { return r < 0x20 && r != '\n' && r != '\t' || r == 0x7f }); i >= 0 {
		return fmt.Errorf("control character %q in text", s[i])
	}
	var stack []string
	for _, m := range tag.FindAllStringSubmatch(s, -1) {
		name := strings.ToLower(m[2])
		switch {
		case name == "" || !isTag(name):
			return fmt.Errorf("raw HTML %q", m[0])
		case m[1] == "":
			stack = append(stack, name)
		case len(stack) == 0 || stack[len(stack)-1] != name:
			return fmt.Errorf("</%s> closes what it did not open (open: %v)", name, stack)
		default:
			stack = stack[:len(stack)-1]
		}
	}
	if len(stack) > 0 {
		return fmt.Errorf("HTML left open: %v", stack)
	}
	// A browser decodes entities once; what they decode to counts.
	d := html.UnescapeString(s)
	if m := mention.FindStringIndex(d); m != nil {
		return fmt.Errorf("a live mention in %q", around(d, m[0]))
	}
	if m := link.FindStringIndex(d); m != nil {
		return fmt.Errorf("a live link in %q", around(d, m[0]))
	}
	return nil
}

func isTag(name string) bool {
	for _, t := range Tags {
		if name == t {
			return true
		}
	}
	return false
}

// around quotes s near i, for an error message.
func around(s string, i int) string {
	return s[max(0, i-30):min(len(s), i+30)]
}
