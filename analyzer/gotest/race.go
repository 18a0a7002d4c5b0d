package gotest

import (
	"strconv"
	"strings"
)

// Race is one report of the race detector: two conflicting accesses of
// one memory location by different goroutines, the current one first.
type Race struct {
	Accesses []Access
}

// Access is one side of a data race: "write", "read", "previous write"
// or "previous read", the goroutine that made it, and its stack, innermost
// call first.
type Access struct {
	Op        string
	Goroutine int
	Stack     []Frame
}

// Frame is one call of a stack: the function and where it was.
type Frame struct {
	Func string
	File string
	Line int
}

// Races returns the data races reported in a test's output, in the order
// they were reported, each once. A report the output cut short keeps the
// accesses it holds in full.
func Races(output string) []Race {
	var out []Race
	seen := map[string]bool{}
	lines := strings.Split(output, "\n")
	for i := 0; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) != "WARNING: DATA RACE" {
			continue
		}
		var r Race
		var cur *Access
		for i++; i < len(lines); i++ {
			line := strings.TrimSpace(lines[i])
			if line == "==================" || line == "WARNING: DATA RACE" {
				break
			}
			if a, ok := accessHeader(line); ok {
				r.Accesses = append(r.Accesses, a)
				cur = &r.Accesses[len(r.Accesses)-1]
				continue
			}
			if strings.HasPrefix(line, "Goroutine ") || line == "" {
				cur = nil // the creation stacks that follow are not accesses
				continue
			}
			if cur == nil || i+1 >= len(lines) {
				continue
			}
			// A frame is a function line, then its file:line +offset.
			file, n, ok := fileLine(strings.TrimSpace(lines[i+1]))
			if !ok {
				continue
			}
			cur.Stack = append(cur.Stack, Frame{Func: strings.TrimSuffix(line, "()"), File: file, Line: n})
			i++
		}
		if len(r.Accesses) < 2 {
			continue
		}
		k := r.Key()
		if !seen[k] {
			seen[k] = true
			out = append(out, r)
		}
		i-- // the line that ended the report may start the next
	}
	return out
}

// accessHeader parses "Write at 0x00c000120010 by goroutine 8:" and its
// "Previous read at … by goroutine 7:" and "… by main goroutine:" forms.
func accessHeader(line string) (Access, bool) {
	op, rest, ok := strings.Cut(line, " at ")
	if !ok || !strings.HasSuffix(rest, ":") {
		return Access{}, false
	}
	op = strings.ToLower(op)
	switch op {
	case "read", "write", "previous read", "previous write":
	default:
		return Access{}, false
	}
	_, by, ok := strings.Cut(strings.TrimSuffix(rest, ":"), " by ")
	if !ok {
		return Access{}, false
	}
	g := 0
	if n, ok := strings.CutPrefix(by, "goroutine "); ok {
		g, _ = strconv.Atoi(n)
	}
	return Access{Op: op, Goroutine: g}, true
}

// fileLine parses "/path/to/file.go:16 +0x64".
func fileLine(s string) (string, int, bool) {
	s, _, _ = strings.Cut(s, " +0x")
	k := strings.LastIndexByte(s, ':')
	if k < 0 || !strings.HasSuffix(s[:k], ".go") {
		return "", 0, false
	}
	n, err := strconv.Atoi(s[k+1:])
	if err != nil {
		return "", 0, false
	}
	return s[:k], n, true
}

// Key names a race by its accesses' kinds and innermost places, so that
// the same race reported in several runs or tests counts once.
func (r Race) Key() string {
	var b strings.Builder
	for _, a := range r.Accesses {
		b.WriteString(a.Op)
		if len(a.Stack) > 0 {
			b.WriteString("@" + a.Stack[0].File + ":" + strconv.Itoa(a.Stack[0].Line))
		}
		b.WriteString(";")
	}
	return b.String()
}
