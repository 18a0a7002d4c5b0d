package shard

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/culprit-dev/culprit/analyzer/trial"
	"github.com/culprit-dev/culprit/diffhunks"

	"github.com/google/go-cmp/cmp"
)

func TestSlice(t *testing.T) {
	var got [][2]int
	for i := range 3 {
		lo, hi := Slice(7, i, 3)
		got = append(got, [2]int{lo, hi})
	}
	if diff := cmp.Diff([][2]int{{0, 3}, {3, 5}, {5, 7}}, got); diff != "" {
		t.Errorf("7 in 3 (-want +got):\n%s", diff)
	}
	if lo, hi := Slice(2, 3, 4); lo != hi {
		t.Errorf("2 in 4, shard 3: [%d, %d), want empty", lo, hi)
	}
}

// TestReadOutcomes: a shard's answer is taken only whole and only for
// what was asked.
func TestReadOutcomes(t *testing.T) {
	rd := &Round{Version: Version, ID: "r", Head: "h", Requests: []trial.Request{
		{Revert: []diffhunks.ID{1}}, {Revert: []diffhunks.ID{2}}, {Revert: []diffhunks.ID{3}},
	}}
	good := func() Outcomes {
		return Outcomes{Version: Version, ID: "r", Shard: 0, Shards: 2, Outcomes: []Outcome{
			{Revert: []diffhunks.ID{1}, Result: trial.Result{Outcome: trial.Pass}},
			{Revert: []diffhunks.ID{2}, Result: trial.Result{Outcome: trial.Fail, Signature: "a_test.go:3"}},
		}}
	}
	read := func(v any) ([]trial.Result, error) {
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return ReadOutcomes(bytes.NewReader(data), rd, 0, 2)
	}
	res, err := read(good())
	if err != nil {
		t.Fatal(err)
	}
	want := []trial.Result{{Reverted: []diffhunks.ID{1}, Outcome: trial.Pass}, {Reverted: []diffhunks.ID{2}, Outcome: trial.Fail, Signature: "a_test.go:3"}}
	if diff := cmp.Diff(want, res); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	bad := map[string]func(*Outcomes){
		"another round":     func(o *Outcomes) { o.ID = "s" },
		"another shard":     func(o *Outcomes) { o.Shard = 1 },
		"another slicing":   func(o *Outcomes) { o.Shards = 3 },
		"another version":   func(o *Outcomes) { o.Version = 2 },
		"forged hunks":      func(o *Outcomes) { o.Outcomes[0].Revert = []diffhunks.ID{1, 2} },
		"forged reverted":   func(o *Outcomes) { o.Outcomes[0].Result.Reverted = []diffhunks.ID{3} },
		"twice":             func(o *Outcomes) { o.Outcomes[1] = o.Outcomes[0] },
		"one missing":       func(o *Outcomes) { o.Outcomes = o.Outcomes[:1] },
		"one more":          func(o *Outcomes) { o.Outcomes = append(o.Outcomes, o.Outcomes[1]) },
		"unknown outcome":   func(o *Outcomes) { o.Outcomes[1].Result.Outcome = "passed, trust me" },
		"cached":            func(o *Outcomes) { o.Outcomes[1].Result.Cached = true },
		"huge message":      func(o *Outcomes) { o.Outcomes[1].Result.Message = strings.Repeat("x", maxText+1) },
		"negative duration": func(o *Outcomes) { o.Outcomes[1].Result.Duration = -1 },
	}
	for name, edit := range bad {
		t.Run(name, func(t *testing.T) {
			o := good()
			edit(&o)
			if res, err := read(o); err == nil {
				t.Errorf("taken: %+v", res)
			}
		})
	}
	if _, err := ReadOutcomes(strings.NewReader("\x00garbage"), rd, 0, 2); err == nil {
		t.Error("garbage taken")
	}
	if _, err := ReadOutcomes(strings.NewReader(strings.Repeat(" ", MaxOutcomesBytes+1)), rd, 0, 2); err == nil {
		t.Error("an answer over the limit taken")
	}
}
