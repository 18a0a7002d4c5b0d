package search

import (
	"context"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/culprit-dev/culprit/diffhunks"
)

// followRounds bounds the builds of one follow: 6, or one for every 10
// hunks of a larger pool, up to 40. A refactor of hundreds of hunks breaks
// the build in a cascade (a changed signature, then its callers, then
// theirs), one step of which each round undoes.
func followRounds(pool int) int {
	return min(max(6, pool/10), 40)
}

// follow grows an auxiliary set for revert from the compiler's complaints:
// each round adds the pool hunks the errors point at, builds again, and
// reads the new errors. It returns the added hunks once the variant
// compiles, nil when the complaints point at nothing new or followRounds
// builds did not get there. On a large pool this takes a few builds where
// partitioning the whole pool takes hundreds; the caller still shrinks
// what it returns.
func (a *auxSearch) follow(ctx context.Context, revert, pool []diffhunks.ID, msg string) ([]diffhunks.ID, error) {
	var added []diffhunks.ID
	for range followRounds(len(pool)) {
		cur := union(revert, added)
		more := minus(a.blamed(cur, pool, msg), cur)
		if len(more) == 0 && len(added) > 0 {
			// Halfway through a cascade, nothing the errors point at is
			// left to revert: a syntax error between reverted hunks, say,
			// when a function's rewrite was cut into several. The rest
			// of each erring file's hunks brings the whole file back to
			// base. (Stuck at the start, the caller's guesses are
			// cheaper.)
			more = minus(a.inErringFiles(pool, msg), cur)
		}
		if len(more) == 0 {
			return nil, nil
		}
		added = union(added, more)
		b, err := a.build(ctx, union(revert, added))
		if err != nil {
			return nil, err
		}
		if b.ok {
			return added, nil
		}
		msg = b.msg
	}
	return nil, nil
}

// compileError matches one compiler error: "path.go:line:col: text", the
// path relative to wherever the go command ran.
var compileError = regexp.MustCompile(`(?m)^\s*(\S+\.go):(\d+)(?::\d+)?: (.*)$`)

// CompileError is one error in the go command's compiler output.
type CompileError struct {
	Path string // as printed: relative to the go command's directory
	Line int
	Text string
}

// CompileErrors returns the compiler errors in msg, in order; other lines
// (package headers, go command chatter) are skipped.
func CompileErrors(msg string) []CompileError {
	var out []CompileError
	for _, m := range compileError.FindAllStringSubmatch(msg, -1) {
		line, err := strconv.Atoi(m[2])
		if err != nil {
			continue // a line number too large for an int
		}
		out = append(out, CompileError{Path: m[1], Line: line, Text: m[3]})
	}
	return out
}

// errorNames pick the identifiers an error is about.
var errorNames = []*regexp.Regexp{
	regexp.MustCompile(`undefined: ([\w.]+)`),
	regexp.MustCompile(`has no field or method (\w+)`),
	regexp.MustCompile(`(?:call to|argument to|return statement of) ([\w.]+)`),
	regexp.MustCompile(`unknown field (\w+)`),
	regexp.MustCompile(`(\w+) redeclared`),
	regexp.MustCompile(`missing method (\w+)`),
	regexp.MustCompile(`declared and not used: (\w+)`),
	regexp.MustCompile(`"(?:[^"]*/)?([^"/]+)" imported and not used`),
	regexp.MustCompile(`imported as (\w+) and not used`),
	regexp.MustCompile(`\btypes? \*?([\w.]+)`),
	regexp.MustCompile(`\bas \*?([\w.]+) value`),
}

// predeclared names say nothing about which hunk to revert.
var predeclared = map[string]bool{
	"any": true, "bool": true, "byte": true, "comparable": true, "complex64": true, "complex128": true,
	"error": true, "float32": true, "float64": true, "int": true, "int8": true, "int16": true,
	"int32": true, "int64": true, "rune": true, "string": true, "uint": true, "uint8": true,
	"uint16": true, "uint32": true, "uint64": true, "uintptr": true, "nil": true, "untyped": true,
}

// blamed returns the pool hunks that the errors in msg, reported against
// the variant with cur reverted, point at: the hunks whose changed lines
// name an identifier an error is about, and the hunks at an error's line
// (see hunksAt; widely for an error that names nothing, such as a syntax
// error).
func (a *auxSearch) blamed(cur, pool []diffhunks.ID, msg string) []diffhunks.ID {
	inPool := make(map[diffhunks.ID]bool, len(pool))
	for _, id := range pool {
		inPool[id] = true
	}
	var out []diffhunks.ID
	// A name is looked for in the package it belongs to: the error's own
	// for a bare name, the one its qualifier names (by directory) for
	// pkg.Name.
	type scoped struct{ name, dir string }
	names := map[scoped]bool{}
	for _, e := range CompileErrors(msg) {
		files := a.filesNamed(e.Path)
		named := false
		for _, re := range errorNames {
			for _, n := range re.FindAllStringSubmatch(e.Text, -1) {
				name, qual := n[1], ""
				if i := strings.LastIndexByte(name, '.'); i >= 0 {
					name, qual = name[i+1:], name[:i]
				}
				if name == "" || predeclared[name] {
					continue
				}
				named = true
				for _, f := range files {
					names[scoped{name, path.Dir(f)}] = true
				}
				if qual != "" || len(files) == 0 {
					names[scoped{name, qual}] = true
				}
			}
		}
		for _, file := range files {
			out = append(out, a.hunksAt(cur, inPool, file, e.Line, !named)...)
		}
	}
	for n := range names {
		word := regexp.MustCompile(`\b` + regexp.QuoteMeta(n.name) + `\b`)
		for _, id := range pool {
			h := a.byID[id]
			// A deleted file's hunk brings back what it declared.
			if h.Kind != diffhunks.Modify && h.Kind != diffhunks.Delete || !word.MatchString(h.Diff) {
				continue
			}
			// A qualifier names the package's directory by its last
			// element (or a receiver variable: then nothing matches and
			// the bare name's own package does).
			dir := path.Dir(h.File)
			if n.dir == dir || n.dir != "" && !strings.Contains(n.dir, "/") && path.Base(dir) == n.dir || n.dir == "" {
				out = append(out, id)
			}
		}
	}
	return norm(out)
}

// inErringFiles returns the pool hunks of the files msg's errors are in.
func (a *auxSearch) inErringFiles(pool []diffhunks.ID, msg string) []diffhunks.ID {
	files := map[string]bool{}
	for _, e := range CompileErrors(msg) {
		for _, f := range a.filesNamed(e.Path) {
			files[f] = true
		}
	}
	return a.filter(pool, func(h diffhunks.Hunk) bool { return files[h.File] })
}

// filesNamed returns the hunk files that a path in a compiler message may
// stand for. The path is relative to the go command's directory and may lie
// in a copy of the tree (an overlay), so a hunk file matches when it ends
// the path; the longest such match wins. Failing that, a path that ends a
// hunk file (a package below the go command's directory) matches.
func (a *auxSearch) filesNamed(p string) []string {
	best := ""
	var below []string
	for _, h := range a.byID {
		f := h.File
		switch {
		case p == f || strings.HasSuffix(p, "/"+f):
			if len(f) > len(best) {
				best = f
			}
		case strings.HasSuffix(f, "/"+strings.TrimPrefix(p, "./")) && !slices.Contains(below, f):
			below = append(below, f)
		}
	}
	if best != "" {
		return []string{best}
	}
	return below
}

// hunksAt returns the pool hunks of file at line, a line of the variant
// with cur reverted: a whole-file hunk of the file, and the modify hunk
// whose head lines hold the line once it is mapped back to head. When wide
// is set and no pool hunk holds the line, it returns the pool hunks of the
// function of the reverted hunk holding or preceding the line: code brought
// back by a revert, or just after it, usually needs the rest of its
// function's old version. Outside functions it returns the pool hunks
// next to that reverted hunk.
func (a *auxSearch) hunksAt(cur []diffhunks.ID, inPool map[diffhunks.ID]bool, file string, line int, wide bool) []diffhunks.ID {
	head, near, inside := diffhunks.VariantLine(a.hunks, cur, file, line)
	var out []diffhunks.ID
	for id := range inPool {
		h := a.byID[id]
		if h.File == file && (h.Kind != diffhunks.Modify || !inside && h.Head.Contains(head)) {
			out = append(out, id)
		}
	}
	if len(out) > 0 || !wide || near.ID == 0 {
		return out
	}
	if near.Func != "" {
		for id := range inPool {
			if h := a.byID[id]; h.File == file && h.Func == near.Func {
				out = append(out, id)
			}
		}
		return out
	}
	// Outside functions: the pool hunks next to it in the file.
	var prev, next diffhunks.Hunk
	for id := range inPool {
		h := a.byID[id]
		if h.File != file || h.Kind != diffhunks.Modify {
			continue
		}
		if h.Head.Start < near.Head.Start && h.Head.Start > prev.Head.Start {
			prev = h
		}
		if h.Head.Start > near.Head.Start && (next.ID == 0 || h.Head.Start < next.Head.Start) {
			next = h
		}
	}
	for _, h := range []diffhunks.Hunk{prev, next} {
		if h.ID != 0 {
			out = append(out, h.ID)
		}
	}
	return out
}

// ErrorsInReverted reports whether msg, the compiler's output for head with
// revert reverted, has errors and every one of them lies in lines that the
// revert restored: the revert itself brought back code that does not
// compile there (a declaration nothing uses any more, say), rather than
// breaking code it left in place.
func ErrorsInReverted(hunks []diffhunks.Hunk, revert []diffhunks.ID, msg string) bool {
	a := newAuxSearch(nil, hunks)
	errs := CompileErrors(msg)
	for _, e := range errs {
		files := a.filesNamed(e.Path)
		if len(files) != 1 {
			return false
		}
		if _, _, inside := diffhunks.VariantLine(a.hunks, norm(revert), files[0], e.Line); !inside {
			return false
		}
	}
	return len(errs) > 0
}

// Unused reports whether a compiler error's text is an unused variable or
// import.
func Unused(text string) bool {
	return strings.Contains(text, "declared and not used") || strings.Contains(text, "imported and not used")
}

// DeclaresOnly reports whether hunk id only adds lines, and msg, the
// compiler's output for head with revert reverted and id left as head has
// it, has errors, each an unused variable or import in id's own head
// lines: id only declares what the reverted code used, a declaration whose
// uses left with the revert. A hunk that also removed code changed more
// than a declaration.
func DeclaresOnly(hunks []diffhunks.Hunk, revert []diffhunks.ID, id diffhunks.ID, msg string) bool {
	a := newAuxSearch(nil, hunks)
	h, ok := a.byID[id]
	if removed, _ := sideTokens(h.Diff); !ok || len(removed) > 0 {
		return false
	}
	errs := CompileErrors(msg)
	for _, e := range errs {
		files := a.filesNamed(e.Path)
		if !Unused(e.Text) || len(files) != 1 || files[0] != h.File {
			return false
		}
		head, _, inside := diffhunks.VariantLine(a.hunks, norm(revert), files[0], e.Line)
		if inside || !h.Head.Contains(head) {
			return false
		}
	}
	return len(errs) > 0
}
