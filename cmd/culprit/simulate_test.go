package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/culprit-dev/culprit/analyzer/trial"
	"github.com/google/go-cmp/cmp"
)

const sec = time.Second

func secs(ns ...int) []time.Duration {
	out := make([]time.Duration, len(ns))
	for i, n := range ns {
		out[i] = time.Duration(n) * sec
	}
	return out
}

// remote is a round of test runs only.
func remote(ds ...int) round { return round{remote: secs(ds...)} }

// TestReplay checks the scheduler against sums worked out by hand.
func TestReplay(t *testing.T) {
	// Three rounds: one run of 10 s, four of 10, 20, 30, 40 s, two of
	// 5 s.
	rounds := []round{remote(10), remote(10, 20, 30, 40), remote(5, 5)}
	tests := []struct {
		name   string
		rounds []round
		model  execModel
		want   replayed
	}{
		// One worker: everything in a row, 10+100+10.
		{"local 1", rounds, execModel{Local: true, Runners: 1}, replayed{Rounds: 3, Trials: 7, Wall: 120 * sec, RunnerTime: 120 * sec}},
		// Two workers take the next trial when free: round 2 is
		// 10|20, then 30 after 10 (40), 40 after 20 (60): 60; round 3
		// 5.
		{"local 2", rounds, execModel{Local: true, Runners: 2}, replayed{Rounds: 3, Trials: 7, Wall: 75 * sec, RunnerTime: 75 * sec}},
		// One runner, 45 s queue: each round is 45 + its sum; the
		// runner works 120 s and the waiting job holds its own for the
		// wall, 255 s.
		{"actions 1", rounds, execModel{Runners: 1, Latency: 45 * sec}, replayed{Rounds: 3, Trials: 7, Wall: 255 * sec, RunnerTime: 375 * sec}},
		// Two runners: round 2 splits into {10,20} and {30,40}, 70; the
		// rest one trial a shard. Wall 45+10 + 45+70 + 45+5.
		{"actions 2", rounds, execModel{Runners: 2, Latency: 45 * sec}, replayed{Rounds: 3, Trials: 7, Wall: 220 * sec, RunnerTime: 340 * sec}},
		// Eight runners: one shard a trial, the round as long as its
		// longest; 3 s setup on every shard (7 shards).
		{"actions 8 with setup", rounds, execModel{Runners: 8, Latency: 45 * sec, Setup: 3 * sec},
			replayed{Rounds: 3, Trials: 7, Wall: (45 + 13 + 45 + 43 + 45 + 8) * sec, RunnerTime: (120+7*3)*sec + 199*sec}},
		// Three runners over four trials: shards {10,20}, {30}, {40}.
		{"actions 3", rounds, execModel{Runners: 3}, replayed{Rounds: 3, Trials: 7, Wall: (10 + 40 + 5) * sec, RunnerTime: 120*sec + 55*sec}},
		// The job's own work beside the shards: a round of checks only
		// costs no queue (3 s and 4 s on two workers: 4 s); a round
		// with runs is as long as the longer side: max(6 s on two
		// workers, 45+10 s) = 55 s.
		{"checks stay in the job", []round{{local: secs(3, 4)}, {local: secs(6, 6), remote: secs(10)}},
			execModel{Runners: 8, Workers: 2, Latency: 45 * sec}, replayed{Rounds: 2, Trials: 5, Wall: 59 * sec, RunnerTime: 10*sec + 59*sec}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, replay(tt.rounds, tt.model)); diff != "" {
				t.Errorf("replay (-want +got):\n%s", diff)
			}
		})
	}
}

func TestShardsOf(t *testing.T) {
	got := shardsOf(secs(1, 2, 3, 4, 5), 3)
	if diff := cmp.Diff([][]time.Duration{secs(1, 2), secs(3, 4), secs(5)}, got); diff != "" {
		t.Errorf("shards (-want +got):\n%s", diff)
	}
	if got := shardsOf(secs(1, 2), 32); len(got) != 2 {
		t.Errorf("2 trials on 32 runners: %d shards, want 2", len(got))
	}
}

// TestRoundsOf: runs take the test's time more than recorded, checks
// what they took; checks and repeats are the job's; an empty round stays.
func TestRoundsOf(t *testing.T) {
	entries := []trial.Entry{
		{Round: 1, Seconds: 1, Repeat: true},
		{Round: 3, Seconds: 0.5, Build: true},
		{Round: 3, Seconds: 2},
	}
	want := []round{{local: []time.Duration{121 * sec}}, {}, {local: []time.Duration{500 * time.Millisecond}, remote: []time.Duration{122 * sec}}}
	if diff := cmp.Diff(want, roundsOf(entries, 2*time.Minute, false), cmp.AllowUnexported(round{})); diff != "" {
		t.Errorf("rounds (-want +got):\n%s", diff)
	}
	// What if the repeats were dispatched too.
	want[0] = round{remote: []time.Duration{121 * sec}}
	if diff := cmp.Diff(want, roundsOf(entries, 2*time.Minute, true), cmp.AllowUnexported(round{})); diff != "" {
		t.Errorf("rounds with repeats dispatched (-want +got):\n%s", diff)
	}
}

func TestRecordedFor(t *testing.T) {
	logs := []trialLog{{Parallel: 2}, {Parallel: 8}, {Parallel: 1}}
	for _, tt := range []struct{ runners, want int }{{1, 1}, {2, 2}, {4, 2}, {8, 8}, {32, 8}} {
		if got := recordedFor(logs, tt.runners).Parallel; got != tt.want {
			t.Errorf("%d runners: replayed the window of %d, want %d", tt.runners, got, tt.want)
		}
	}
	if got := recordedFor([]trialLog{{Parallel: 8}, {Parallel: 4}}, 2).Parallel; got != 4 {
		t.Errorf("2 runners with windows 8 and 4: replayed %d, want 4", got)
	}
}

// TestBenchSimulate runs the command over trial logs on disk.
func TestBenchSimulate(t *testing.T) {
	dir := t.TempDir()
	write := func(l trialLog) {
		data, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, trialLogName(l.Case, l.Strategy, l.Parallel)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := func(round int) trial.Entry { return trial.Entry{Round: round, Seconds: 0} }
	write(trialLog{Case: "c", Strategy: "ddmin", Parallel: 2, Hunks: 12, Rounds: 2, Trials: []trial.Entry{run(1), run(2), run(2)}})
	write(trialLog{Case: "c", Strategy: "ddmin", Parallel: 8, Hunks: 12, Rounds: 1, Trials: []trial.Entry{run(1), run(1), run(1), run(1)}})
	var out, errb bytes.Buffer
	err := runCmd(t, []string{"bench", "--simulate", dir, "--runners", "2,8", "--latency", "10s", "--test-time", "1m"}, &out, &errb)
	if err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	var rows [][]string
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n")[2:] {
		rows = append(rows, strings.Fields(line))
	}
	// local 2 over the window of 2: 60 s + 60 s. actions 2: 70 + 70.
	// actions 8 over the window of 8: one round of four, 70 s.
	want := [][]string{
		{"c", "12", "ddmin", "local", "2", "2", "3", "2", "2m0s", "2.0", "1.00"},
		{"c", "12", "ddmin", "actions", "2", "2", "3", "2", "2m20s", "5.3", "1.17"},
		{"c", "12", "ddmin", "actions", "8", "8", "4", "1", "1m10s", "5.2", "0.58"},
	}
	if diff := cmp.Diff(want, rows); diff != "" {
		t.Errorf("table (-want +got):\n%s\n%s", diff, out.String())
	}
	if err := runCmd(t, []string{"bench", "--simulate", t.TempDir()}, &out, &errb); err == nil {
		t.Error("no logs: want an error")
	}
	if err := runCmd(t, []string{"bench", "--simulate", dir, "--runners", "0"}, &out, &errb); err != errUsage {
		t.Errorf("--runners 0: %v, want a usage error", err)
	}
}

func runCmd(t *testing.T, args []string, stdout, stderr *bytes.Buffer) error {
	t.Helper()
	return run(t.Context(), args, stdout, stderr)
}
