package search

import (
	"go/token"
	"slices"

	"github.com/culprit-dev/culprit/diffhunks"
)

// maxPlumbingTokens bounds the tokens of each side of a hunk Plumbing
// compares: the comparison is quadratic, and threading a parameter
// touches a few lines.
const maxPlumbingTokens = 400

// Plumbing reports whether a hunk only threads a parameter: its removed
// and added lines (comments left out) differ only by elements added to or
// removed from parenthesised lists, each either a parameter declaration
// (a name and its type) or a bare name that the same side of the hunk
// declares as such a parameter (a forwarded argument). A reverted form
// that differs only so changes no value by itself, the "plumbing":
// the new parameter's value comes from elsewhere. An argument that is a
// literal, an expression, or a name the hunk does not declare passes a
// value, and is not plumbing.
func Plumbing(h diffhunks.Hunk) bool {
	a, b := sideTokens(h.Diff)
	if len(a) > maxPlumbingTokens || len(b) > maxPlumbingTokens {
		return false
	}
	dels, ins, ok := listEdits(a, b)
	if !ok || len(dels)+len(ins) == 0 {
		return false
	}
	return threads(dels) && threads(ins)
}

// ThreadsOrRenames reports whether h only threads a parameter (Plumbing)
// or only renames identifiers (as RenamesOnly asks of each hunk): either
// way it changes no value by itself.
func ThreadsOrRenames(h diffhunks.Hunk) bool {
	return Plumbing(h) || renameOnly(h.Diff)
}

// importsOnly reports whether a hunk's code (both sides, comments left
// out) is nothing but import paths, each perhaps named: it declares what
// other hunks use and changes no value. A blank import (`_ "pkg"`) runs
// the package's init for its effects, and is not only a declaration.
func importsOnly(h diffhunks.Hunk) bool {
	a, b := sideTokens(h.Diff)
	ts := append(a, b...)
	for i, t := range ts {
		switch {
		case t.tok == token.IMPORT || t.tok == token.LPAREN || t.tok == token.RPAREN || t.tok == token.SEMICOLON:
		case t.tok == token.STRING:
		case (t.tok == token.IDENT && t.lit != "_" || t.tok == token.PERIOD) && i+1 < len(ts) && ts[i+1].tok == token.STRING:
		default:
			return false
		}
	}
	return slices.ContainsFunc(ts, func(t goToken) bool { return t.tok == token.STRING })
}

// listEdits aligns a and b on their longest common subsequence and
// returns the runs of tokens only a has (dels) and only b has (ins),
// each a comma-separated piece of a parenthesised list on its side; ok
// is false when an edit replaces tokens, or lies outside parentheses or
// is not a whole list element.
func listEdits(a, b []goToken) (dels, ins [][]goToken, ok bool) {
	n, m := len(a), len(b)
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	depthA, depthB := parenDepths(a), parenDepths(b)
	i, j := 0, 0
	for i < n || j < m {
		if i < n && j < m && a[i] == b[j] {
			i, j = i+1, j+1
			continue
		}
		// A run of edits: tokens only a has, then tokens only b has.
		i0, j0 := i, j
		for i < n || j < m {
			if i < n && j < m && a[i] == b[j] {
				break
			}
			if j == m || i < n && lcs[i+1][j] >= lcs[i][j+1] {
				i++
			} else {
				j++
			}
		}
		switch {
		case i > i0 && j > j0:
			return nil, nil, false // a replacement
		case i > i0:
			if !listElement(a, i0, i, depthA) {
				return nil, nil, false
			}
			dels = append(dels, a[i0:i])
		default:
			if !listElement(b, j0, j, depthB) {
				return nil, nil, false
			}
			ins = append(ins, b[j0:j])
		}
	}
	return dels, ins, true
}

// parenDepths gives, for each token of ts, how many parentheses are open
// before it.
func parenDepths(ts []goToken) []int {
	out := make([]int, len(ts)+1)
	for i, t := range ts {
		out[i+1] = out[i]
		switch t.tok {
		case token.LPAREN:
			out[i+1]++
		case token.RPAREN:
			out[i+1]--
		}
	}
	return out
}

// listElement reports whether ts[from:to] is whole elements of a
// parenthesised list: inside parentheses, opened by a comma and ended
// before one, or filling the list.
func listElement(ts []goToken, from, to int, depth []int) bool {
	if depth[from] <= 0 || depth[to] != depth[from] {
		return false
	}
	run := ts[from:to]
	before := token.ILLEGAL
	if from > 0 {
		before = ts[from-1].tok
	}
	after := token.ILLEGAL
	if to < len(ts) {
		after = ts[to].tok
	}
	switch {
	case run[0].tok == token.COMMA, run[len(run)-1].tok == token.COMMA:
		return true
	default:
		return before == token.LPAREN && after == token.RPAREN
	}
}

// threads reports whether every edit run is parameter declarations and
// names forwarded from the parameters the runs declare.
func threads(runs [][]goToken) bool {
	var declared, forwarded []string
	for _, run := range runs {
		for piece := range splitCommas(run) {
			switch {
			case len(piece) == 0:
			case len(piece) == 1 && piece[0].tok == token.IDENT:
				forwarded = append(forwarded, piece[0].lit)
			case piece[0].tok == token.IDENT && typeTokens(piece[1:]):
				declared = append(declared, piece[0].lit)
			default:
				return false
			}
		}
	}
	for _, name := range forwarded {
		if !slices.Contains(declared, name) {
			return false
		}
	}
	return true
}

// splitCommas yields the comma-separated pieces of run.
func splitCommas(run []goToken) func(func([]goToken) bool) {
	return func(yield func([]goToken) bool) {
		start := 0
		for i, t := range run {
			if t.tok == token.COMMA {
				if !yield(run[start:i]) {
					return
				}
				start = i + 1
			}
		}
		yield(run[start:])
	}
}

// typeTokens reports whether ts spell a plain type: names, qualified
// names, pointers, slices and variadics.
func typeTokens(ts []goToken) bool {
	for _, t := range ts {
		switch t.tok {
		case token.IDENT, token.PERIOD, token.MUL, token.LBRACK, token.RBRACK, token.ELLIPSIS:
		default:
			return false
		}
	}
	return len(ts) > 0
}
