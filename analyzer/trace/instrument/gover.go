package instrument

import (
	"bytes"
	"go/build/constraint"
	"go/version"
	"strings"
)

// minInstrumentedGo is the language version instrumented code needs (the
// runtime helpers are generic). Files of a module declaring an older version
// are raised to exactly this version: go1.21 still has per-loop (not
// per-iteration) loop variables, so the program's semantics do not change.
const minInstrumentedGo = "go1.21"

// needsGoUpgrade reports whether a module declaring modVersion (the go.mod
// go line without "go", "" if absent) is too old for instrumented code.
func needsGoUpgrade(modVersion string) bool {
	if modVersion == "" {
		return true // no go line: go1.16 semantics
	}
	return version.Compare("go"+modVersion, minInstrumentedGo) < 0
}

// runtimeGo is the language version the runtime helper files are written
// for (per-iteration loop variables, range over an integer); in a module
// that declares an older one they are raised to it.
const runtimeGo = "go1.22"

// needsRuntimeUpgrade reports whether the runtime helper files must be
// raised to runtimeGo in a module declaring modVersion: the compiler
// otherwise reads them at the module's language version.
func needsRuntimeUpgrade(modVersion string) bool {
	return modVersion == "" || version.Compare("go"+modVersion, runtimeGo) < 0
}

// withGoVersion returns src with its build constraint requiring goVer as
// well, which makes the compiler use (at least) that language version for
// the file. An existing //go:build or // +build constraint is kept (ANDed).
// Line numbers are preserved: a new constraint line is followed by a line
// directive naming filename, the file's path for positions.
func withGoVersion(src []byte, goVer, filename string) []byte {
	tag := &constraint.TagExpr{Tag: goVer}
	lines := bytes.SplitAfter(src, []byte("\n"))
	var expr constraint.Expr
	first, end := -1, 0
	inBlock := false
	for i, l := range lines {
		s := strings.TrimSpace(string(l))
		if inBlock {
			if strings.Contains(s, "*/") {
				inBlock = false
			}
			continue
		}
		if strings.HasPrefix(s, "/*") {
			inBlock = !strings.Contains(s[2:], "*/")
			continue
		}
		if s != "" && !strings.HasPrefix(s, "//") {
			break // the package clause
		}
		if constraint.IsGoBuild(s) {
			if x, err := constraint.Parse(s); err == nil {
				expr, first, end = x, i, i+1
				break
			}
		}
		if constraint.IsPlusBuild(s) {
			if x, err := constraint.Parse(s); err == nil {
				if expr == nil {
					expr, first = x, i
				} else {
					expr = &constraint.AndExpr{X: expr, Y: x}
				}
				end = i + 1
			}
		}
	}
	if expr == nil {
		return append([]byte("//go:build "+goVer+"\n\n/*line "+filename+":1:1*/"), src...)
	}
	var out bytes.Buffer
	for i, l := range lines {
		switch {
		case i == first:
			out.WriteString("//go:build " + (&constraint.AndExpr{X: expr, Y: tag}).String() + "\n")
		case i > first && i < end:
			// an ANDed // +build line: replaced by the //go:build line
			if constraint.IsPlusBuild(strings.TrimSpace(string(l))) {
				out.WriteString("\n")
				continue
			}
			out.Write(l)
		default:
			out.Write(l)
		}
	}
	return out.Bytes()
}
