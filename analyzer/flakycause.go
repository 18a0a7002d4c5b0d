package analyzer

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/culprit-dev/culprit/analyzer/aid"
	"github.com/culprit-dev/culprit/analyzer/note"
	"github.com/culprit-dev/culprit/analyzer/result"
	"github.com/culprit-dev/culprit/analyzer/trace"
	"github.com/culprit-dev/culprit/analyzer/trace/instrument"
	"github.com/culprit-dev/culprit/analyzer/trial"
	"github.com/culprit-dev/culprit/diffhunks"
)

// Shares of the explanation by intervention (FLAKY.md §5): tracing head
// and intervening get what is left after the search and the race
// detector, less a spare twentieth for the report; a traced run is given
// tracedSlowdown plain runs' time, and never less than minTracedTimeout.
const (
	interveneShare   = 0.95
	tracedSlowdown   = 30
	minTracedTimeout = 20 * time.Second
	// minIntervene is the least time worth starting with: a build and a
	// few dozen traced runs.
	minIntervene = 30 * time.Second
	// minInterveneRuns is the least of --max-trials worth starting with:
	// observation wants ten failing and ten passing traced runs.
	minInterveneRuns = 20
	// serialExpiry is how long a serialised call waits for its lock
	// before it goes on without it (the run then does not count).
	serialExpiry = 200 * time.Millisecond
	// tracedPerturbEvery is the perturbation of traced runs when none
	// failed unperturbed: a quarter of the judged runs' (perturbEvery).
	tracedPerturbEvery = 4 * perturbEvery
	// flakyTraceBytes bounds each traced run's trace. The explanation
	// decodes two runs at once and keeps a few failing ones, and a
	// decoded trace takes about eight times its file: at this size the
	// phase stays within a few GiB. A run whose trace fills up is set
	// aside (aid.Observation.Full).
	flakyTraceBytes = 64 << 20
)

// Interventions is how a flaky regression's chain was found: head traced
// without interventions, and every group test that ran (FLAKY.md §4).
type Interventions struct {
	// Traced are the unintervened traced runs and how many failed.
	Traced, TracedFailures int
	// Perturb, when positive, says that every traced run was perturbed
	// at 1 in Perturb traced points, since none of the Unperturbed runs
	// traced first failed.
	Perturb, Unperturbed int
	Tests                []InterventionTest
}

// InterventionTest is one group test: what it did, in words built from
// the site table (never from the spec's site ids), and what its runs
// gave. Valid counts the runs that showed the hooks acted.
type InterventionTest struct {
	Items                 []string
	Runs, Valid, Failures int
	// Reused counts the runs, among Runs, that an earlier test of the
	// same intervention made.
	Reused  int
	Verdict string
	Placebo bool
}

// tracedHead runs head's traced test binary for the explanation. With
// perturb set, every run perturbs its schedule at that rate with a seed of
// its own, interventions and the runs without one alike.
type tracedHead struct {
	bin     *instrument.Binary
	timeout time.Duration
	perturb int
	done    func() // counts a finished run in the progress
}

func (h tracedHead) Run(ctx context.Context, spec string) (aid.Run, error) {
	if spec != "" {
		// A loaded runner can hold a lock's owner off its CPU for longer
		// than the runtime's default expiry; a deadlock still ends.
		spec += ";expire=" + serialExpiry.String()
	}
	if h.perturb > 0 {
		spec += ";" + trial.PerturbItem(trial.NewSeed(), h.perturb)
	}
	tr, err := h.bin.Run(ctx, instrument.RunOptions{Intervene: spec, Timeout: h.timeout})
	h.done()
	if err != nil {
		return aid.Run{}, err
	}
	iv := tr.Intervention
	return aid.Run{Trace: tr, Applied: int(iv.Applied), Expired: int(iv.Expired), Waited: iv.Waited}, nil
}

// explainFlaky explains a flaky regression whose root is proven: it
// builds head's test traced once, observes it, and confirms the chain
// from the root hunks to the failure by intervention (package aid). The
// tree it sets is marked link by link; when it cannot derive one, a note
// says why and the root stands on the failure rates alone.
func explainFlaky(ctx context.Context, req Request, b *budget, mod module, res *Result) {
	dl, ok := ctx.Deadline()
	remaining := time.Until(dl)
	left := req.MaxTrials - b.Runner.Counts().Trials
	if ok && remaining < minIntervene || req.MaxTrials > 0 && left < minInterveneRuns {
		res.Notes.Add(result.Note{Code: note.InterventionSkip, Limit: limit(req)})
		return
	}
	if ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(interveneShare*float64(remaining)))
		defer cancel()
	}
	b.enter(PhaseIntervene)
	timeout := max(tracedSlowdown*median(headRuns(res.Evidence)), minTracedTimeout)
	if req.Timeout > 0 {
		timeout = min(timeout, req.Timeout)
	}
	bytes := int64(flakyTraceBytes)
	if req.TraceBytes > 0 {
		bytes = min(bytes, req.TraceBytes)
	}
	cfg := instrument.Config{Dir: b.Runner.HeadDir(), Pkg: mod.pkg, Test: req.Test.Name, Timeout: timeout,
		Passthrough: req.EnvPassthrough, MaxBytes: bytes}
	ex, err := observeFlaky(ctx, req, b, mod, res, cfg)
	if err == nil && ex.Traced.Runs == 0 && ex.Traced.Full > 0 && ctx.Err() == nil {
		// Every traced run outgrew its trace: the test runs too much
		// code for one. What explains the failure lies where the root
		// hunks are, so the test is traced again with only their
		// functions and the test itself instrumented (FLAKY.md, the
		// observer effect).
		if funcs := funcNames(ex.sites, ex.funcs); len(funcs) > 0 {
			cfg.Functions, cfg.NarrowTests = funcs, true
			if again, err2 := observeFlaky(ctx, req, b, mod, res, cfg); err2 == nil {
				names := slices.Sorted(maps.Keys(funcs))
				for i, f := range names {
					names[i] = shortFunc(f)
				}
				again.Notes = append(result.Findings{{Code: note.TracesNarrowed, N: ex.Traced.Full, Limit: mibLimit(bytes), Detail: strings.Join(names, ", ")}}, again.Notes...)
				ex = again
			} else if ctx.Err() == nil {
				ex.Notes.Add(result.Note{Code: note.InterventionFailed, Detail: "tracing only the root hunks' functions: " + firstLine(err2.Error())})
			}
		}
	}
	if err != nil {
		res.Notes.Add(result.Note{Code: note.InterventionFailed, Detail: firstLine(err.Error())})
		return
	}
	sites, perturbed, unperturbed := ex.sites, ex.perturbed, ex.unperturbed
	repo := mod.repoPath
	ivs := &Interventions{Traced: ex.Traced.Runs, TracedFailures: ex.Traced.Failures, Perturb: perturbed, Unperturbed: unperturbed}
	for _, t := range ex.Interventions {
		words := make([]string, 0, len(t.Items))
		for _, it := range t.Items {
			words = append(words, describeItem(it, sites, repo))
		}
		ivs.Tests = append(ivs.Tests, InterventionTest{Items: words, Runs: t.Runs, Valid: t.Valid,
			Failures: t.Failures, Reused: t.Reused, Verdict: string(t.Verdict), Placebo: t.Placebo})
	}
	res.Flakiness.Interventions = ivs
	addAll(&res.Notes, ex.Notes)
	if ex.Tree == nil || len(ex.Tree.Children) == 0 {
		return
	}
	mod.toRepoPaths(ex.Tree)
	ex.Tree.Walk(func(n *result.Node) {
		place := func(s *result.Statement) {
			if s.File != "" {
				s.Hunk = hunkAtPath(res.Hunks, s.File, s.Line)
			}
		}
		place(&n.Target)
		for i := range n.Statements {
			place(&n.Statements[i])
		}
	})
	res.Tree = ex.Tree
	// The tree's values are one traced run's; the message that printed
	// them is that run's, not the first failing run's.
	res.tracedOutput = ex.Output
	res.Notes = slices.DeleteFunc(res.Notes, func(n result.Note) bool { return n.Code == note.NoIntervention })
}

// flakyExplanation is one observation and intervention of traced head:
// what package aid found, the site table of the build it ran, and
// whether its traced runs were perturbed (Interventions.Perturb).
type flakyExplanation struct {
	*aid.Explanation
	sites []trace.Site
	// funcs are the build's function sites that hold the root hunks
	// (rootFuncs).
	funcs                  []trace.SiteID
	perturbed, unperturbed int
}

// observeFlaky builds head's test with the tracing runtime as cfg says and
// explains its failure by observation and intervention (package aid). When
// no traced run fails, they go again with their schedules perturbed.
func observeFlaky(ctx context.Context, req Request, b *budget, mod module, res *Result, cfg instrument.Config) (*flakyExplanation, error) {
	bin, err := instrument.Build(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer bin.Close()
	sites := bin.Sites()
	prefer := func(id trace.SiteID) bool {
		if int(id) <= 0 || int(id) >= len(sites) {
			return false
		}
		p := sites[id].Pos
		return slices.Contains(res.Root, hunkAtPath(res.Hunks, mod.repoPath(p.File), p.Line))
	}
	funcs := rootFuncs(sites, res, mod.repoPath)
	opt := aid.Bounds{Workers: req.Workers, Prefer: prefer, TraceLimit: mibLimit(cfg.MaxBytes), Direct: funcs}
	if req.MaxTrials > 0 {
		// Traced runs are test runs: they share --max-trials.
		opt.MaxTotal = req.MaxTrials - b.Runner.Counts().Trials
	}
	head := tracedHead{bin: bin, timeout: cfg.Timeout, done: b.tracedRun}
	ex, err := aid.Explain(ctx, head, opt)
	if err != nil {
		return nil, err
	}
	out := &flakyExplanation{Explanation: ex, sites: sites, funcs: funcs}
	if ex.Traced.Runs > 0 && ex.Traced.Failures == 0 && ctx.Err() == nil {
		// Tracing slows the program and can hide a rare interleaving:
		// the traced runs go again with their schedules perturbed,
		// gentler than the judged runs' perturbation, so that some
		// runs pass and some fail.
		head.perturb = tracedPerturbEvery
		if again, err := aid.Explain(ctx, head, opt); err == nil && again.Traced.Failures > 0 {
			out.Explanation, out.perturbed, out.unperturbed = again, tracedPerturbEvery, ex.Traced.Runs
		}
	}
	return out, nil
}

// rootFuncs are the function sites that hold the root hunks: the
// functions (and function literals) whose declaration spans a root hunk's
// head lines, or for a hunk that only deletes lines, the place they were
// deleted from; in the order of the site table.
func rootFuncs(sites []trace.Site, res *Result, repo func(string) string) []trace.SiteID {
	roots := slices.DeleteFunc(slices.Clone(res.Hunks), func(h diffhunks.Hunk) bool { return !slices.Contains(res.Root, h.ID) })
	var out []trace.SiteID
	for _, s := range sites {
		if s.Kind != trace.SiteFunc || s.Func == "" {
			continue
		}
		file := repo(s.Pos.File)
		if slices.ContainsFunc(roots, func(h diffhunks.Hunk) bool {
			from, to := h.Head.Start, max(h.Head.End, h.Head.Start)
			return file == h.File && s.Pos.Line <= to && max(s.Pos.EndLine, s.Pos.Line) >= from
		}) {
			out = append(out, s.ID)
		}
	}
	return out
}

// funcNames are the qualified names (types.Func.FullName) of function
// sites ids.
func funcNames(sites []trace.Site, ids []trace.SiteID) map[string]bool {
	out := map[string]bool{}
	for _, id := range ids {
		out[sites[id].Func] = true
	}
	return out
}

// shortFunc is a qualified function name (types.Func.FullName) without
// its package path: "copyBucket", "(*Counter).Add".
func shortFunc(name string) string {
	if inner, rest, ok := strings.Cut(strings.TrimPrefix(name, "("), ")"); ok && strings.HasPrefix(name, "(") {
		star := strings.HasPrefix(inner, "*")
		inner = strings.TrimPrefix(inner, "*")
		_, typ, _ := strings.Cut(inner[strings.LastIndex(inner, "/")+1:], ".")
		if star {
			typ = "*" + typ
		}
		return "(" + typ + ")" + rest
	}
	name = name[strings.LastIndex(name, "/")+1:]
	if _, fn, ok := strings.Cut(name, "."); ok {
		return fn
	}
	return name
}

// describeItem words an intervention spec item for the report, from the
// build's site table: the spec's site ids mean nothing outside the build.
func describeItem(item string, sites []trace.Site, repo func(string) string) string {
	kind, arg, _ := strings.Cut(item, ":")
	target, val, _ := strings.Cut(arg, "=")
	var names []string
	for _, s := range strings.Split(target, ",") {
		id, err := strconv.Atoi(s)
		if err != nil || id <= 0 || id >= len(sites) {
			return item
		}
		site := sites[id]
		switch kind {
		case "serial", "delay", "yield":
			names = append(names, site.Func)
		default:
			names = append(names, fmt.Sprintf("%s:%d %s", repo(site.Pos.File), site.Pos.Line, site.Text))
		}
	}
	what := strings.Join(names, ", ")
	switch kind {
	case "serial":
		return "run " + what + " one call at a time"
	case "delay":
		return "wait " + val + " on entering " + what
	case "yield":
		return "yield on entering " + what
	case "force":
		outcome := "true"
		if val == "0" {
			outcome = "false"
		}
		return "force " + what + " to " + outcome
	}
	return item
}
