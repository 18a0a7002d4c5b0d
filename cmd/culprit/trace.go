package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"sort"
	"text/tabwriter"

	"github.com/culprit-dev/culprit/analyzer/trace/instrument"
)

// traceCmd is `culprit trace --skipped`: it instruments a package as the
// semantic analysis would and lists what the tracer leaves untraced, by
// reason, so that gaps in coverage show on real code before an analysis
// depends on them.
func traceCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("trace", flag.ContinueOnError)
	dir := fs.String("dir", ".", "the module root (the directory of go.mod)")
	pkg := fs.String("pkg", "./...", "the package(s) to instrument, relative to --dir")
	skipped := fs.Bool("skipped", false, "list the constructs left untraced")
	all := fs.Bool("v", false, "with --skipped: list every place, not only the counts by reason")
	if err := parseFlags(fs, "trace --skipped [flags]\n\nInstruments a package as the semantic analysis would and lists the\nconstructs the tracer leaves untraced, by reason.", args, stdout, stderr); err != nil {
		return err
	}
	if !*skipped {
		fmt.Fprintln(stderr, "culprit trace: only --skipped is supported: it lists what the tracer leaves untraced")
		return errUsage
	}
	skips, err := instrument.Untraced(ctx, *dir, *pkg)
	if err != nil {
		return err
	}
	counts := map[string]int{}
	for _, s := range skips {
		counts[s.Reason]++
	}
	reasons := make([]string, 0, len(counts))
	for r := range counts {
		reasons = append(reasons, r)
	}
	sort.Slice(reasons, func(i, j int) bool {
		if counts[reasons[i]] != counts[reasons[j]] {
			return counts[reasons[i]] > counts[reasons[j]]
		}
		return reasons[i] < reasons[j]
	})
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "untraced\treason\n")
	for _, r := range reasons {
		fmt.Fprintf(tw, "%d\t%s\n", counts[r], r)
	}
	fmt.Fprintf(tw, "%d\ttotal\n", len(skips))
	if err := tw.Flush(); err != nil {
		return err
	}
	if *all {
		for _, s := range skips {
			fmt.Fprintf(stdout, "%s:%d:%d: %s\n", s.Pos.File, s.Pos.Line, s.Pos.Col, s.Reason)
		}
	}
	return nil
}
