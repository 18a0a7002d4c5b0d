package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/culprit-dev/culprit/analyzer"
	"github.com/culprit-dev/culprit/analyzer/trial"
	"github.com/culprit-dev/culprit/internal/shard"
)

// trialLog is what culprit bench --corpus --reports DIR writes for each
// case and strategy (NAME.STRATEGY.pN.trials.json): every trial the
// analysis executed, with its round on the critical path and its
// duration, for --simulate to replay.
type trialLog struct {
	Case     string `json:"case"`
	Strategy string `json:"strategy"`
	// Parallel is the search's window (analyzer.Options.Parallel) the
	// rounds were recorded with.
	Parallel int           `json:"parallel"`
	Hunks    int           `json:"hunks"`
	Status   string        `json:"status"`
	Rounds   int           `json:"rounds"`
	Trials   []trial.Entry `json:"trials"`
}

func trialLogName(c, strategy string, parallel int) string {
	return fmt.Sprintf("%s.%s.p%d.trials.json", c, strategy, parallel)
}

// execModel is a simulated executor. Local is today's job: Runners
// workers that take the next trial of a round as soon as one is free, no
// queue. Otherwise test runs go to the trials workflow: each round is one
// dispatch whose matrix cuts the round's runs into at most Runners shards
// of consecutive trials; every shard waits Latency in the queue and Setup
// to check out and build before its first trial. Compile-only checks and
// repeated runs stay in the job, on its Workers, as the executor leaves
// them (action.Trials, trial.Runner.Repeat).
type execModel struct {
	Local   bool
	Runners int
	Workers int
	Latency time.Duration
	Setup   time.Duration
}

func (m execModel) String() string {
	if m.Local {
		return fmt.Sprintf("local %d", m.Runners)
	}
	return fmt.Sprintf("actions %d", m.Runners)
}

// replayed is what a simulated executor took for a recorded analysis.
type replayed struct {
	Rounds int
	Trials int
	Wall   time.Duration
	// RunnerTime is what the runners were busy for: the shards (setup
	// and trials) and the job, which holds its runner for the whole wall
	// time.
	RunnerTime time.Duration
}

// round is one recorded round: the trials the job runs itself and the
// test runs an executor may send elsewhere.
type round struct {
	local, remote []time.Duration
}

// replay runs the rounds, in order, each waiting for the one before, on
// the executor m.
func replay(rounds []round, m execModel) replayed {
	var out replayed
	for _, r := range rounds {
		if len(r.local)+len(r.remote) == 0 {
			continue
		}
		out.Rounds++
		out.Trials += len(r.local) + len(r.remote)
		if m.Local {
			out.Wall += makespan(slices.Concat(r.local, r.remote), m.Runners)
			continue
		}
		wall := time.Duration(0)
		if len(r.local) > 0 {
			wall = makespan(r.local, m.Workers)
		}
		if len(r.remote) > 0 {
			longest := time.Duration(0)
			for _, s := range shardsOf(r.remote, m.Runners) {
				busy := m.Setup + sum(s)
				out.RunnerTime += busy
				longest = max(longest, busy)
			}
			wall = max(wall, m.Latency+longest)
		}
		out.Wall += wall
	}
	// The job that runs the search holds its runner all along.
	out.RunnerTime += out.Wall
	return out
}

// makespan is the time n workers take over the trials when each free
// worker takes the next one in order.
func makespan(trials []time.Duration, n int) time.Duration {
	free := make([]time.Duration, max(n, 1))
	for _, d := range trials {
		i := slices.Index(free, slices.Min(free))
		free[i] += d
	}
	return slices.Max(free)
}

// shardsOf cuts a round into at most n shards of consecutive trials as
// the trials workflow's matrix does (shard.Slice).
func shardsOf(trials []time.Duration, n int) [][]time.Duration {
	n = min(max(n, 1), len(trials))
	out := make([][]time.Duration, 0, n)
	for i := range n {
		lo, hi := shard.Slice(len(trials), i, n)
		out = append(out, trials[lo:hi])
	}
	return out
}

func sum(ds []time.Duration) time.Duration {
	var t time.Duration
	for _, d := range ds {
		t += d
	}
	return t
}

// roundsOf groups the log's trials by round. A run of the test takes
// test longer than recorded: the recorded cases' tests take a second or
// less, so what was recorded is mostly the go command's building and
// linking, which a slower test does not change, and test is what the test
// itself takes. A compile-only check takes what it took. Checks and,
// unless repeats is set, repeated runs are the job's own; other runs may
// go elsewhere. Rounds are numbered from 1; a round no trial of the log
// ran in stays empty.
func roundsOf(entries []trial.Entry, test time.Duration, repeats bool) []round {
	n := 0
	for _, e := range entries {
		n = max(n, e.Round)
	}
	out := make([]round, n)
	for _, e := range entries {
		if e.Round < 1 {
			continue
		}
		d := time.Duration(e.Seconds * float64(time.Second))
		if !e.Build {
			d += test
		}
		r := &out[e.Round-1]
		if e.Build || e.Repeat && !repeats {
			r.local = append(r.local, d)
		} else {
			r.remote = append(r.remote, d)
		}
	}
	return out
}

// readTrialLogs reads the trial logs in dir, in name order.
func readTrialLogs(dir string) ([]trialLog, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.trials.json"))
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("no trial logs (*.trials.json) in %s: run culprit bench --corpus DIR --reports %s first", dir, dir)
	}
	sort.Strings(names)
	var logs []trialLog
	for _, n := range names {
		data, err := os.ReadFile(n)
		if err != nil {
			return nil, err
		}
		var l trialLog
		if err := json.Unmarshal(data, &l); err != nil {
			return nil, fmt.Errorf("reading trial log %s: %w", n, err)
		}
		if l.Case == "" || l.Strategy == "" || l.Parallel < 1 {
			return nil, fmt.Errorf("trial log %s: case, strategy and parallel are required", n)
		}
		logs = append(logs, l)
	}
	return logs, nil
}

// recordedFor picks the log to replay on an executor of n runners: the
// one recorded with a window of n, else the widest narrower one (its
// rounds hold no more than it tried at once), else the narrowest.
func recordedFor(logs []trialLog, n int) trialLog {
	best := -1
	for i, l := range logs {
		switch {
		case best < 0:
			best = i
		case l.Parallel <= n && (logs[best].Parallel > n || l.Parallel > logs[best].Parallel):
			best = i
		case logs[best].Parallel > n && l.Parallel < logs[best].Parallel:
			best = i
		}
	}
	return logs[best]
}

// simulate prints, per case and strategy, what each executor of models
// takes over the recorded rounds, and the wall time against the first
// model's.
func simulate(logs []trialLog, models []execModel, test time.Duration, repeats bool, stdout io.Writer) error {
	type group struct{ name, strategy string }
	by := map[group][]trialLog{}
	var order []group
	for _, l := range logs {
		g := group{l.Case, l.Strategy}
		if _, ok := by[g]; !ok {
			order = append(order, g)
		}
		by[g] = append(by[g], l)
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "case\thunks\tstrategy\texecutor\twindow\ttrials\trounds\twall\trunner min\twall / "+models[0].String())
	for _, g := range order {
		var base time.Duration
		for i, m := range models {
			l := recordedFor(by[g], m.Runners)
			r := replay(roundsOf(l.Trials, test, repeats), m)
			if i == 0 {
				base = r.Wall
			}
			ratio := "-"
			if base > 0 {
				ratio = strconv.FormatFloat(float64(r.Wall)/float64(base), 'f', 2, 64)
			}
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%d\t%d\t%d\t%s\t%.1f\t%s\n", g.name, l.Hunks, g.strategy, m, l.Parallel,
				r.Trials, r.Rounds, r.Wall.Round(time.Second), r.RunnerTime.Minutes(), ratio)
		}
	}
	return tw.Flush()
}

// parseRunners reads a comma-separated list of runner counts.
func parseRunners(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("runners %q: want positive counts separated by commas", s)
		}
		out = append(out, n)
	}
	return out, nil
}

// simulation holds the flags of culprit bench --simulate.
type simulation struct {
	dir                  *string
	runners              *string
	workers              *int
	latency, setup, test *time.Duration
	repeats              *bool
}

func simFlags(fs *flag.FlagSet) simulation {
	return simulation{
		dir:     fs.String("simulate", "", "replay the trial logs in this directory (written by --corpus --reports) on simulated executors instead of running anything"),
		runners: fs.String("runners", "1,2,8,32", "with --simulate: the Actions executors' runner counts"),
		workers: fs.Int("workers", 2, "with --simulate: the workers of the local executor, the baseline"),
		latency: fs.Duration("latency", 45*time.Second, "with --simulate: how long each dispatched shard waits for a runner"),
		setup:   fs.Duration("setup", 0, "with --simulate: what each shard spends checking out and building before its first trial"),
		test:    fs.Duration("test-time", 2*time.Minute, "with --simulate: how long the test itself takes in every run"),
		repeats: fs.Bool("dispatch-repeats", false, "with --simulate: what if the repeated runs (classifying base and head) were dispatched too; the executor keeps them in the job"),
	}
}

func (s simulation) run(stdout, stderr io.Writer) error {
	ns, err := parseRunners(*s.runners)
	if err != nil || *s.workers < 1 {
		fmt.Fprintf(stderr, "culprit bench: %v\n", cmp.Or(err, errors.New("--workers must be positive")))
		return errUsage
	}
	logs, err := readTrialLogs(*s.dir)
	if err != nil {
		return err
	}
	models := []execModel{{Local: true, Runners: *s.workers}}
	for _, n := range ns {
		models = append(models, execModel{Runners: n, Workers: *s.workers, Latency: *s.latency, Setup: *s.setup})
	}
	where := "in the job"
	if *s.repeats {
		where = "dispatched"
	}
	fmt.Fprintf(stdout, "each run %v longer than recorded (the test's own time), shards wait %v and set up in %v, repeats %s\n", *s.test, *s.latency, *s.setup, where)
	return simulate(logs, models, *s.test, *s.repeats, stdout)
}

// writeTrialLog writes the trials of one analysis into dir for --simulate.
func writeTrialLog(dir, name string, opt analyzer.Options, res *analyzer.Result, led *trial.Ledger) error {
	// Explain's defaults: the window is the workers, two unless set.
	parallel := cmp.Or(opt.Parallel, opt.Workers, 2)
	l := trialLog{Case: name, Strategy: string(opt.Strategy), Parallel: parallel, Hunks: len(res.Hunks),
		Status: string(res.Status), Rounds: res.Cost.Rounds, Trials: led.Entries()}
	data, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, trialLogName(name, l.Strategy, parallel)), append(data, '\n'), 0o644)
}
