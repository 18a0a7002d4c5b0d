package action

import (
	"fmt"
	"slices"
	"strings"
)

const (
	zwj  = "\u200d" // after "@": no mention
	zwsp = "\u200b" // inside "//", "www.", "<x", "&x", "](": no link, tag or entity
)

// ownTags are the HTML elements culprit writes in a comment; neutral
// leaves them, and breaks any other tag.
var ownTags = map[string]bool{"details": true, "summary": true, "sub": true, "br": true}

// neutral makes the Markdown body of a comment unable to notify anyone,
// link anywhere, load anything or pass for another comment, on the pull
// request's behalf. It is the second line of defence: report makes every
// string of a report inert where it puts it in; neutral covers the text
// culprit writes around it, and whatever a renderer might miss.
//
// Outside fenced code blocks an "@" before a name gets a zero-width
// joiner; "//", "www.", a tag other than culprit's own, an entity other
// than &lt;, &gt; and &amp;, and a "](" not followed by a kept string get
// a zero-width space, so that no mention, URL, "//host" link, HTML or
// entity survives, and links go only to the strings in keep (culprit's
// own URLs). Everywhere, blocks included, any other "<!--" gets one too:
// markers are looked up in the raw text. Code spans are not told apart
// from text: an escaped backtick once opened a span here that GitHub
// never opened, leaving what followed it live.
//
// The strings in keep are culprit's own links and markers. A link is
// kept wherever it is; a marker (a keep that starts with "<!--") only on
// a line of its own outside a block, where culprit puts it and data never
// stands alone, so that data holding the very marker cannot pass for it.
func neutral(body string, keep ...string) string {
	// A NUL in the body could pass for a placeholder below.
	body = strings.ReplaceAll(body, "\x00", "\ufffd")
	var markers, saved []string
	for _, k := range keep {
		switch {
		case k == "":
		case strings.HasPrefix(k, "<!--"):
			markers = append(markers, k)
		case strings.Contains(body, k):
			body = strings.ReplaceAll(body, k, placeholder(len(saved)))
			saved = append(saved, k)
		}
	}
	lines := strings.Split(body, "\n")
	open := ""    // the fence of the block we are in
	blank := true // the line before was blank
	for i, l := range lines {
		fence, rest := fenceOf(l)
		switch {
		case open != "":
			// Only a run of the same character, at least as long and
			// with nothing after it, closes a block: a suggestion of
			// code that holds a shorter fence stays whole.
			if fence != "" && fence[0] == open[0] && len(fence) >= len(open) && strings.TrimSpace(rest) == "" {
				open = ""
			} else {
				lines[i] = strings.ReplaceAll(l, "<!--", "<"+zwsp+"!--")
			}
		case fence != "" && blank && !(fence[0] == '`' && strings.Contains(rest, "`")):
			// Culprit puts a blank line before every block it opens; a
			// fence line elsewhere may be part of an HTML block or a
			// list item to GitHub, so it is taken for text.
			open = fence
		case slices.Contains(markers, l):
		default:
			lines[i] = neutralLine(l)
		}
		blank = strings.TrimSpace(l) == ""
	}
	body = strings.Join(lines, "\n")
	for i, k := range saved {
		body = strings.ReplaceAll(body, placeholder(i), k)
	}
	return body
}

func placeholder(i int) string { return fmt.Sprintf("\x00%d\x00", i) }

// neutralLine neutralises one line outside code blocks.
func neutralLine(l string) string {
	var b strings.Builder
	for i := 0; i < len(l); i++ {
		c := l[i]
		next := byte(0)
		if i+1 < len(l) {
			next = l[i+1]
		}
		switch {
		case c == '@' && isNameByte(next):
			b.WriteString("@" + zwj)
			continue
		case c == '/' && next == '/',
			c == '<' && !ownTag(l[i:]),
			c == '&' && (isLetterByte(next) || next == '#') && !ownEntity(l[i:]),
			c == ']' && next == '(' && !strings.HasPrefix(l[i+2:], "\x00"):
			b.WriteByte(c)
			b.WriteString(zwsp)
			continue
		case (c == 'w' || c == 'W') && len(l)-i >= 4 && strings.EqualFold(l[i:i+4], "www."):
			b.WriteString(l[i:i+3] + zwsp)
			i += 2
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// ownTag reports whether s starts with one of culprit's own tags, opening
// or closing, or with a "<" that starts no tag at all (x < y).
func ownTag(s string) bool {
	t := strings.TrimPrefix(s[1:], "/")
	if t == "" || !isLetterByte(t[0]) {
		// "<!", "<?" start comments and declarations; a lone "<" or a
		// "</" before a non-letter starts nothing.
		return !(strings.HasPrefix(s, "<!") || strings.HasPrefix(s, "<?"))
	}
	n := 0
	for n < len(t) && (isNameByte(t[n]) && t[n] != '_') {
		n++
	}
	return ownTags[strings.ToLower(t[:n])]
}

// ownEntity reports whether s starts with an entity culprit's escaping
// writes, which decodes into nothing GitHub acts on.
func ownEntity(s string) bool {
	for _, e := range []string{"&lt;", "&gt;", "&amp;"} {
		if strings.HasPrefix(s, e) {
			return true
		}
	}
	return false
}

func isLetterByte(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isNameByte(c byte) bool {
	return c == '-' || c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// fenceOf splits a line that starts, after at most three spaces (four make
// an indented code block, or a list item's text), with a run of three or
// more backticks or tildes into that run and what follows it; fence is ""
// for any other line.
func fenceOf(l string) (fence, rest string) {
	t := strings.TrimLeft(l, " ")
	if len(l)-len(t) > 3 || t == "" || t[0] != '`' && t[0] != '~' {
		return "", ""
	}
	n := len(t) - len(strings.TrimLeft(t, t[:1]))
	if n < 3 {
		return "", ""
	}
	return t[:n], t[n:]
}
