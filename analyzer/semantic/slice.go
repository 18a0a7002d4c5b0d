package semantic

import (
	"github.com/culprit-dev/culprit/analyzer/smt"
)

// slice returns the soft clauses of the backward dynamic slice from the
// given events (def-use and dynamic control dependence), up to
// Setup.MaxSlice events, without pins; labels[k] is the event of
// soft[k].
func (a *Analysis) slice(from []int, target int) (labels []int, soft []smt.Term, err error) {
	w := a.newWindow(target)
	if b := a.control(target); b >= 0 {
		from = append(from, b)
	}
	if err := w.grow(from, a.opt.MaxSlice); err != nil {
		return nil, nil, err
	}
	labels, soft, pinned, err := w.clauses()
	if err != nil {
		return nil, nil, err
	}
	n := len(pinned)
	for n > 0 && pinned[n-1] {
		n--
	}
	return labels[:n], soft[:n], nil
}

type byLabel struct {
	l []int
	t []smt.Term
}

func (b byLabel) Len() int           { return len(b.l) }
func (b byLabel) Less(i, j int) bool { return b.l[i] < b.l[j] }
func (b byLabel) Swap(i, j int) {
	b.l[i], b.l[j] = b.l[j], b.l[i]
	b.t[i], b.t[j] = b.t[j], b.t[i]
}
