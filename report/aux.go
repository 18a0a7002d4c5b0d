package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/culprit-dev/culprit/analyzer/result"
)

// renderAux lists the auxiliary hunks. Those the causal tree passes
// through come first, outside the fold: they are needed to compile with the
// root, but the failure also depends on what they changed, so in a change
// whose hunks only compile together they are where behaviour moved.
func renderAux(b *strings.Builder, r *result.Report, d detail) {
	if len(r.Aux) == 0 {
		return
	}
	onTree := auxOnTree(r)
	what := plural(len(r.Aux), "auxiliary hunk", "auxiliary hunks") + " reverted with them so the code compiles"
	if d.aux == auxCount {
		fmt.Fprintf(b, "%s%s.\n\n", capitalize(what), shortRefs(r.Aux))
		if len(onTree) > 0 {
			if len(r.Aux) == 1 {
				b.WriteString("The causal tree below passes through it.\n\n")
			} else {
				fmt.Fprintf(b, "The causal tree below passes through %s of them%s.\n\n", countOf(len(onTree), len(r.Aux)), shortRefs(onTree))
			}
		}
		return
	}
	rest := r.Aux
	if len(onTree) > 0 {
		fmt.Fprintf(b, "%s. %s\n\n", capitalize(what), alsoCauses(len(onTree), len(r.Aux), len(auxChanged(r))))
		for _, id := range onTree {
			if d.spent(b) {
				return
			}
			renderAuxHunk(b, r, id, d.aux == auxDiffs, d.diffLines)
		}
		if d.aux != auxDiffs {
			b.WriteString("\n")
		}
		rest = without(r.Aux, onTree)
		if len(rest) == 0 {
			return
		}
		what = plural(len(rest), "other auxiliary hunk", "other auxiliary hunks")
	}
	// In the comment the hunks already sit in the report's one fold: a
	// fold in it would only ask for one more click.
	if d.fold {
		fmt.Fprintf(b, "%s:\n\n", capitalize(what))
	} else {
		fmt.Fprintf(b, "<details><summary>%s</summary>\n\n", capitalize(what))
	}
	for _, id := range rest {
		if d.spent(b) {
			return
		}
		renderAuxHunk(b, r, id, d.aux == auxDiffs, d.diffLines)
	}
	if d.aux != auxDiffs {
		b.WriteString("\n")
	}
	if !d.fold {
		b.WriteString("</details>\n\n")
	}
}

// renderAuxHunk writes an auxiliary hunk as renderHunk does, with why it
// is needed when the analysis checked it: where the compiler stops
// without it.
func renderAuxHunk(b *strings.Builder, r *result.Report, id result.HunkID, diff bool, diffLines int) {
	stop := ""
	if i := slices.IndexFunc(r.AuxNeeds, func(n result.AuxNeed) bool { return n.Hunk == id }); i >= 0 {
		n := r.AuxNeeds[i]
		stop = code(fmt.Sprintf("%s:%d: %s", n.File, n.Line, n.Error))
	}
	renderHunk(b, r, id, diff, diffLines, stop)
}

// alsoCauses says that n of the all auxiliary hunks hold steps of the
// causal tree.
func alsoCauses(n, all, changed int) string {
	var out string
	switch {
	case all == 1:
		out = "The failure also depends on statements in it, on the causal tree below: it is needed to compile"
	case n == 1:
		out = "The failure also depends on statements in 1 of them, on the causal tree below: it is needed to compile"
	default:
		out = fmt.Sprintf("The failure also depends on statements in %s of them, on the causal tree below: they are needed to compile", countOf(n, all))
	}
	// Behaviour is claimed only where a step ran otherwise without the
	// change: a step that ran alike in both runs (a renamed function's
	// body) shows the dependence, not a change.
	switch {
	case changed == 0:
		return out + "."
	case n == 1:
		return out + ", and it changes behaviour too: the run without the change did otherwise there."
	case changed == n:
		return out + ", and they change behaviour too: the run without the change did otherwise there."
	}
	return out + fmt.Sprintf(", and %d of them change behaviour too: the run without the change did otherwise there.", changed)
}

// countOf is "all 3" when n is all of them, else n.
func countOf(n, all int) string {
	if n == all {
		return fmt.Sprintf("all %d", n)
	}
	return fmt.Sprint(n)
}

// auxOnTree returns the auxiliary hunks, in their order, that hold a step
// of the causal tree.
func auxOnTree(r *result.Report) []result.HunkID { return auxWhere(r, nil) }

// auxChanged returns the auxiliary hunks that hold a step of the causal
// tree where the run without the change did otherwise.
func auxChanged(r *result.Report) []result.HunkID { return auxWhere(r, result.Statement.Changed) }

// auxWhere returns the auxiliary hunks, in their order, that hold a step
// of the causal tree for which keep is true (any step when keep is nil).
func auxWhere(r *result.Report, keep func(result.Statement) bool) []result.HunkID {
	on := r.Tree.Hunks(keep)
	var out []result.HunkID
	for _, id := range r.Aux {
		if on[id] {
			out = append(out, id)
		}
	}
	return out
}
