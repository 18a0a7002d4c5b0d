package action

import (
	"fmt"
	"strings"
)

// neutral makes the Markdown body of a comment unable to notify anyone or
// link anywhere on the pull request's behalf: outside code spans and fenced
// blocks (where GitHub neither mentions nor links), an "@" followed by a
// name gets a zero-width joiner, so @user and @org/team stay plain text,
// and "://" and "www." get a zero-width space, so that no URL is linked.
// The strings in keep (culprit's own links and markers) are left as they
// are.
func neutral(body string, keep ...string) string {
	var saved []string
	for _, k := range keep {
		if k == "" || !strings.Contains(body, k) {
			continue
		}
		body = strings.ReplaceAll(body, k, fmt.Sprintf("\x00%d\x00", len(saved)))
		saved = append(saved, k)
	}
	lines := strings.Split(body, "\n")
	open := "" // the fence of the block we are in
	for i, l := range lines {
		fence, rest := fenceOf(l)
		if open != "" {
			// Only a run of the same character, at least as long and
			// with nothing after it, closes a block: a suggestion of
			// code that holds a shorter fence stays whole.
			if fence != "" && fence[0] == open[0] && len(fence) >= len(open) && strings.TrimSpace(rest) == "" {
				open = ""
			}
			continue
		}
		if fence != "" && !(fence[0] == '`' && strings.Contains(rest, "`")) {
			open = fence
			continue
		}
		lines[i] = neutralLine(l)
	}
	body = strings.Join(lines, "\n")
	for i, k := range saved {
		body = strings.ReplaceAll(body, fmt.Sprintf("\x00%d\x00", i), k)
	}
	return body
}

// neutralLine neutralises the parts of one line outside `code spans`.
func neutralLine(l string) string {
	var b strings.Builder
	inCode := 0 // length of the backtick run that opened the span
	for i := 0; i < len(l); {
		if l[i] == '`' {
			j := i
			for j < len(l) && l[j] == '`' {
				j++
			}
			n := j - i
			switch {
			case inCode == 0 && strings.Contains(l[j:], l[i:j]):
				inCode = n
			case inCode == n:
				inCode = 0
			}
			b.WriteString(l[i:j])
			i = j
			continue
		}
		if inCode == 0 {
			switch {
			case l[i] == '@' && i+1 < len(l) && isNameByte(l[i+1]):
				b.WriteString("@\u200d")
				i++
				continue
			case strings.HasPrefix(l[i:], "://"):
				b.WriteString(":\u200b//")
				i += 3
				continue
			case strings.HasPrefix(strings.ToLower(l[i:]), "www."):
				b.WriteString(l[i:i+3] + "\u200b.")
				i += 4
				continue
			}
		}
		b.WriteByte(l[i])
		i++
	}
	return b.String()
}

func isNameByte(c byte) bool {
	return c == '-' || c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// fenceOf splits a line that starts (after spaces) with a run of three or
// more backticks or tildes into that run and what follows it; fence is ""
// for any other line.
func fenceOf(l string) (fence, rest string) {
	t := strings.TrimLeft(l, " ")
	if t == "" || t[0] != '`' && t[0] != '~' {
		return "", ""
	}
	n := len(t) - len(strings.TrimLeft(t, t[:1]))
	if n < 3 {
		return "", ""
	}
	return t[:n], t[n:]
}
