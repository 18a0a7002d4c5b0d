package report

import (
	"strings"
	"unicode/utf8"
)

// Invisible characters that break what GitHub would act on without
// changing what a reader sees.
const (
	zwj  = "\u200d" // after "@": no mention, no e-mail autolink
	zwsp = "\u200b" // inside "//", "www.", "<x", "&x", "](": no link, tag or entity
)

// defang makes text from a report unable to act on GitHub wherever it is
// put outside a fenced code block: in prose, in a code span, in the plain
// text of an annotation. Every string in a report artifact was written by
// a job that ran the pull request's code, so each is treated as hostile:
//
//   - "@name" gets a zero-width joiner, so that it notifies no one;
//   - "//" and "www." get a zero-width space, so that no URL, scheme-less
//     "//host" link or autolink is recognised;
//   - "<" before a letter, "/", "!" or "?" gets one, so that no tag, and
//     no "<!--" marker another lookup could find, can start;
//   - "&" before "#" or a letter gets one, so that no entity decodes into
//     any of the above;
//   - "](" gets one, so that no link destination follows a bracket;
//   - control characters but tabs and line breaks (which each caller
//     turns into what its place needs) become U+FFFD, so that no NUL
//     reaches a later step that might take it for a placeholder of its own.
//
// Code spans are defanged too, rather than trusted: a span is only a span
// if GitHub parses it as culprit meant, and a cut comment, a table cell or
// an escaped backtick can make it otherwise. The characters are invisible,
// so the text reads the same.
func defang(s string) string {
	if !needsDefang(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		next := byte(0)
		if i+n < len(s) {
			next = s[i+n]
		}
		switch {
		case isControl(r):
			b.WriteRune(utf8.RuneError)
		case r == '@' && isNameByte(next):
			b.WriteString("@" + zwj)
		case r == '/' && next == '/',
			r == '<' && (isLetter(next) || next == '/' || next == '!' || next == '?'),
			r == '&' && (isLetter(next) || next == '#'),
			r == ']' && next == '(':
			b.WriteRune(r)
			b.WriteString(zwsp)
		case (r == 'w' || r == 'W') && len(s)-i >= 4 && strings.EqualFold(s[i:i+4], "www."):
			b.WriteString(s[i:i+3] + zwsp + ".")
			n = 4
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// needsDefang reports whether s holds any byte defang acts on, so that
// the common case of plain names and values costs no copy.
func needsDefang(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20 && c != '\n' && c != '\r' && c != '\t', c == 0x7f,
			c == '@', c == '/', c == '<', c == '&', c == ']', c == 'w', c == 'W':
			return true
		}
	}
	return false
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isNameByte(c byte) bool { return isLetter(c) || c >= '0' && c <= '9' || c == '-' || c == '_' }

// blockSafe keeps text in a fenced code block from holding "<!--":
// GitHub shows the block as it is, but a hidden marker is looked up in the
// raw body, so data there could still pass for culprit's own. Control
// characters other than tabs and line breaks become U+FFFD, as in defang.
func blockSafe(s string) string {
	s = strings.ReplaceAll(s, "<!--", "<"+zwsp+"!--")
	return strings.Map(func(r rune) rune {
		if isControl(r) {
			return utf8.RuneError
		}
		return r
	}, s)
}

// isControl reports whether r is a control character other than a tab or
// a line break.
func isControl(r rune) bool {
	return (r < 0x20 || r == 0x7f) && r != '\t' && r != '\n' && r != '\r'
}
