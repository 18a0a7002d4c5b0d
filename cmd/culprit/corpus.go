package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/culprit-dev/culprit/analyzer"
	"github.com/culprit-dev/culprit/analyzer/note"
	"github.com/culprit-dev/culprit/analyzer/result"
	"github.com/culprit-dev/culprit/analyzer/trial"
	"github.com/culprit-dev/culprit/diffhunks"
	"github.com/culprit-dev/culprit/report"
)

// corpusCase is one real regression as eval/realworld/cases/*.json states
// it, beside its rebuilt repository (branches base and head).
type corpusCase struct {
	Name    string      `json:"name"`
	Test    string      `json:"test"`
	Package string      `json:"package"`
	Truth   []lineRange `json:"truth"`
	// Equivalent names other lines a proven root may hold instead of the
	// truth, with the argument why it is as valid (Why), for a fault that
	// no 1-minimal revert can isolate.
	Equivalent *struct {
		Lines []lineRange `json:"lines"`
		Why   string      `json:"why"`
	} `json:"equivalent"`
	Traits []string `json:"traits"`
	// Set is the part of the corpus a case belongs to: "validation"
	// for the cases no change is tuned on, "" for the rest.
	Set string `json:"set"`
}

// set names the part of the corpus the case belongs to, for the summary.
func (c *corpusCase) set() string {
	if c.Set == "" {
		return "tuning"
	}
	return c.Set
}

// lineRange is an inclusive range of head lines of a repository file.
type lineRange struct {
	File  string `json:"file"`
	Lines [2]int `json:"lines"`
}

// hits reports whether file:line lies in one of the truth ranges.
func (c *corpusCase) hits(file string, line int) bool {
	for _, t := range c.Truth {
		if t.File == file && line >= t.Lines[0] && line <= t.Lines[1] {
			return true
		}
	}
	return false
}

// hitsHunk reports whether a hunk's head lines meet a truth range. A pure
// deletion (an empty head range) meets a range that touches the lines on
// either side of where it stood.
func (c *corpusCase) hitsHunk(h diffhunks.Hunk) bool {
	return meets(h, c.Truth)
}

// hitsEquivalent reports whether a hunk meets the argued equivalent lines.
func (c *corpusCase) hitsEquivalent(h diffhunks.Hunk) bool {
	return c.Equivalent != nil && meets(h, c.Equivalent.Lines)
}

func meets(h diffhunks.Hunk, ranges []lineRange) bool {
	lo, hi := h.Head.Start, h.Head.End
	if h.Head.Len() <= 0 {
		lo, hi = h.Head.End, h.Head.Start
	}
	for _, t := range ranges {
		if t.File == h.File && lo <= t.Lines[1] && hi >= t.Lines[0] {
			return true
		}
	}
	return false
}

// treeHits reports whether any statement of the tree lies in the truth:
// a step, a branch it went through, or a node's target (the failing
// statement itself when the failure is a panic in the faulty line).
func (c *corpusCase) treeHits(tree *result.Node) bool {
	hit := false
	tree.Walk(func(n *result.Node) {
		hit = hit || c.hits(n.Target.File, n.Target.Line)
		for _, s := range n.Statements {
			hit = hit || c.hits(s.File, s.Line)
		}
		if n.Via != nil {
			hit = hit || c.hits(n.Via.File, n.Via.Line)
		}
	})
	return hit
}

func loadCorpus(dir, only string) ([]*corpusCase, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("no case files (*.json) in %s: rebuild the corpus first (eval/realworld/README.md)", dir)
	}
	sort.Strings(names)
	var out []*corpusCase
	for _, n := range names {
		data, err := os.ReadFile(n)
		if err != nil {
			return nil, err
		}
		c := new(corpusCase)
		if err := json.Unmarshal(data, c); err != nil {
			return nil, fmt.Errorf("reading case %s: %w", n, err)
		}
		if c.Name == "" || c.Test == "" || len(c.Truth) == 0 {
			return nil, fmt.Errorf("case %s: name, test and truth are required", n)
		}
		if only != "" && !strings.Contains(c.Name, only) {
			continue
		}
		out = append(out, c)
	}
	return out, nil
}

// benchCorpus explains every case of a rebuilt corpus with each strategy
// and prints one table. The first strategy is the one judged (root and
// tree against the truth); the others are compared by the trials of their
// search, after the classification runs, which cost the same for all.
//
// reports, when set, receives each case's Markdown report (NAME.md).
func benchCorpus(ctx context.Context, dir, only, reports, memprofile string, strats []string, opt analyzer.Options, stdout, stderr io.Writer) error {
	if reports != "" {
		if err := os.MkdirAll(reports, 0o755); err != nil {
			return fmt.Errorf("bench: the reports directory: %w", err)
		}
	}
	cases, err := loadCorpus(dir, only)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	head := []string{"case", "hunks", "status", "root", "root hits truth", "tree reaches truth", "tree reaches root", "chain"}
	for _, s := range strats {
		head = append(head, s+" search trials")
	}
	for _, s := range strats[1:] {
		head = append(head, s+" root")
	}
	head = append(head, "ratio", "wall", "semantic s", "contrast s", "values", "peak heap")
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	var sum summary
	for _, c := range cases {
		// What the previous case left is collected first: the peak is
		// this case's own.
		runtime.GC()
		w := watchHeap(memprofile)
		row := benchCase(ctx, dir, reports, c, strats, opt, stderr)
		row = append(row, mib(w.end()))
		fmt.Fprintln(tw, strings.Join(row, "\t"))
		// The table is aligned only once every row is in; each row also
		// goes to standard error as it is made, so that a run cut short
		// (killed, out of memory) keeps the rows it finished.
		fmt.Fprintf(stderr, "bench: %s done: %s\n", c.Name, strings.Join(row, " | "))
		sum.add(c.set(), row)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return sum.print(stdout)
}

// summary counts, per part of the corpus, the cases whose root and whose
// tree reach the truth, so that the cases changes were tuned on and the
// validation cases are reported apart.
type summary struct {
	count map[string]*[3]int // by set: cases, root hits (yes or equivalent), tree reaches
}

// add counts one row of the table (columns as benchCase makes them).
func (s *summary) add(set string, row []string) {
	if s.count == nil {
		s.count = map[string]*[3]int{}
	}
	n := s.count[set]
	if n == nil {
		n = new([3]int)
		s.count[set] = n
	}
	n[0]++
	if row[4] == "yes" || row[4] == "equivalent" {
		n[1]++
	}
	if row[5] == "yes" {
		n[2]++
	}
}

func (s *summary) print(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "\nset\tcases\troot hits truth\ttree reaches truth")
	for _, set := range slices.Sorted(maps.Keys(s.count)) {
		n := s.count[set]
		fmt.Fprintf(tw, "%s\t%d\t%d/%d\t%d/%d\n", set, n[0], n[1], n[0], n[2], n[0])
	}
	return tw.Flush()
}

func benchCase(ctx context.Context, dir, reports string, c *corpusCase, strats []string, opt analyzer.Options, stderr io.Writer) []string {
	judged := []string{"-", "error", "-", "-", "-", "-", "-"} // hunks, status, root, root hit, tree hit, tree in root, chain
	tail := []string{"-", "-", "-", "-"}                      // wall, semantic, contrast, values
	var trials, roots []string                                // roots: the root size of each strategy after the first
	first, last := -1, -1
	for i, s := range strats {
		o := opt
		o.Strategy = analyzer.Strategy(s)
		req := analyzer.Request{
			Dir: filepath.Join(dir, c.Name), Base: "base", Head: "head", Mode: trial.ModeGo,
			Test: analyzer.TestRef{Package: c.Package, Name: c.Test}, Options: o,
		}
		lctx, led := trial.WithLedger(ctx)
		res, err := analyzer.Explain(lctx, req)
		if err != nil {
			fmt.Fprintf(stderr, "bench %s %s: %v\n", c.Name, s, err)
			trials = append(trials, "error")
			if i > 0 {
				roots = append(roots, "error")
			}
			continue
		}
		if i > 0 {
			roots = append(roots, fmt.Sprint(len(res.Root)))
		}
		if reports != "" {
			if err := writeTrialLog(reports, c.Name, o, res, led); err != nil {
				fmt.Fprintf(stderr, "bench %s: %v\n", c.Name, err)
			}
		}
		// The search's trials: classification runs the same few variants
		// whatever the strategy.
		searched := res.Cost.Trials - len(res.Evidence)
		trials = append(trials, fmt.Sprint(searched))
		switch i {
		case 0:
			first = searched
			hit := rootHolds(res, c.hitsHunk)
			mark := yesNo(hit)
			if !hit && rootHolds(res, c.hitsEquivalent) {
				mark = "equivalent"
			}
			if res.Notes.Has(note.BudgetUnminimised) {
				// The budget ended the search: the set holds the truth
				// only because it holds nearly everything.
				mark = "unminimised"
			}
			judged = []string{fmt.Sprint(len(res.Hunks)), string(res.Status), short(res.Root), mark, treeMark(c, res.Tree),
				rootMark(res), fmt.Sprint(len(res.Chain))}
			doc := res.Document()
			values := checkValues(doc)
			for _, m := range values.Mismatches {
				fmt.Fprintf(stderr, "bench %s: value check: %s: %s\n", c.Name, values.where, m)
			}
			tail = []string{res.Cost.Wall.Round(time.Second).String(), fmt.Sprintf("%.1f", res.Cost.Semantic.Seconds()),
				fmt.Sprintf("%.1f", res.Cost.Contrast.Seconds()), values.mark()}
			if reports != "" {
				if err := writeReports(reports, c.Name, doc); err != nil {
					fmt.Fprintf(stderr, "bench %s: %v\n", c.Name, err)
				}
			}
		case len(strats) - 1:
			last = searched
		}
	}
	ratio := "-"
	if first >= 0 && last > 0 {
		ratio = fmt.Sprintf("%.2f", float64(first)/float64(last))
	}
	row := append([]string{c.Name}, judged...)
	row = append(row, trials...)
	row = append(row, roots...)
	return append(append(row, ratio), tail...)
}

// writeReports writes a case's report as Markdown and as JSON, which
// later checks (the value check) read again.
func writeReports(dir, name string, doc *result.Report) error {
	if err := os.WriteFile(filepath.Join(dir, name+".md"), []byte(report.Markdown(doc)), 0o644); err != nil {
		return err
	}
	var b bytes.Buffer
	if err := report.WriteJSON(&b, doc); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, name+".json"), b.Bytes(), 0o644)
}

// rootHolds reports whether a root hunk of res satisfies meets.
func rootHolds(res *analyzer.Result, meets func(diffhunks.Hunk) bool) bool {
	return slices.ContainsFunc(res.Hunks, func(h diffhunks.Hunk) bool {
		return slices.Contains(res.Root, h.ID) && meets(h)
	})
}

// short lists up to five hunk ids, then how many more.
func short(ids []diffhunks.ID) string {
	if len(ids) <= 5 {
		return fmt.Sprint(ids)
	}
	return fmt.Sprintf("%v…(%d)", ids[:5], len(ids))
}

func treeMark(c *corpusCase, tree *result.Node) string {
	if tree == nil {
		return "no tree"
	}
	return yesNo(c.treeHits(tree))
}

// rootMark says whether the tree shows a statement of a root hunk.
func rootMark(res *analyzer.Result) string {
	if res.Tree == nil {
		return "no tree"
	}
	hit := false
	res.Tree.Walk(func(n *result.Node) {
		for _, s := range append([]result.Statement{n.Target}, n.Statements...) {
			hit = hit || s.Hunk != 0 && slices.Contains(res.Root, s.Hunk)
		}
	})
	return yesNo(hit)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
