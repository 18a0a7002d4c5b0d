package report

import (
	"strings"
	"testing"

	"github.com/culprit-dev/culprit/analyzer/note"
	"github.com/culprit-dev/culprit/analyzer/result"
)

// TestAmplifiedRates: when runs were amplified, the verdict and the rates
// count amplified runs, and the rates section gives the way every run went
// and what each candidate did on head; plain runs keep their words.
func TestAmplifiedRates(t *testing.T) {
	r := flakyRegression()
	r.Flakiness.Amplification = &result.Amplification{Iterations: 19, GoMaxProcs: 8, Tried: []result.AmplificationRuns{
		{Iterations: 1, Runs: 3, Failures: 0, Seconds: 0.3},
		{Iterations: 19, Runs: 6, Failures: 1, Seconds: 0.75},
		{Iterations: 19, GoMaxProcs: 8, Runs: 6, Failures: 4, Seconds: 0.66},
	}}
	md := Markdown(r)
	verdict, _, _ := strings.Cut(md, "\n### ")
	if !strings.Contains(verdict, "amplified runs on head") {
		t.Errorf("the verdict does not count amplified runs:\n%s", verdict)
	}
	_, rates, ok := strings.Cut(md, "Failure rates\n")
	if !ok {
		t.Fatalf("no failure rates:\n%s", md)
	}
	rates, _, _ = strings.Cut(rates, "\n\n<")
	for _, want := range []string{"up to 19 times", "GOMAXPROCS=8", "plain 0 of 3", "19 iterations 1 of 6", "19 iterations and GOMAXPROCS=8 4 of 6"} {
		if !strings.Contains(rates, want) {
			t.Errorf("the rates do not give %q:\n%s", want, rates)
		}
	}
	plain := Markdown(flakyRegression())
	if strings.Contains(plain, "amplified") {
		t.Errorf("plain runs are called amplified:\n%s", plain)
	}
}

// TestAmplificationNoneFailed: when no measured run failed, the report
// does not claim the choice made head fail most often.
func TestAmplificationNoneFailed(t *testing.T) {
	r := flakyRegression()
	r.Flakiness.Amplification = &result.Amplification{Iterations: 19, NoneFailed: true, Tried: []result.AmplificationRuns{
		{Iterations: 1, Runs: 3, Seconds: 0.3},
		{Iterations: 19, Runs: 24, Seconds: 3.1},
		{Iterations: 19, GoMaxProcs: 8, Runs: 24, Seconds: 4.4},
	}}
	md := Markdown(r)
	if !strings.Contains(md, "no run failed while the ways of running it were measured") || strings.Contains(md, "fail most often") {
		t.Errorf("the choice is not said to be made without failures:\n%s", md)
	}
}

// TestPerturbedRates: a chosen perturbation is named with its rate and a
// failing run's seed, its runs ran the test once each, and the notes do
// not call the runs plain.
func TestPerturbedRates(t *testing.T) {
	r := flakyRegression()
	r.Flakiness.Amplification = &result.Amplification{Iterations: 1, GoMaxProcs: 8, Perturb: 16, Seed: 4242, Tried: []result.AmplificationRuns{
		{Iterations: 1, Runs: 3, Seconds: 0.2},
		{Iterations: 29, Runs: 24, Failures: 2, Seconds: 5.3},
		{Iterations: 1, GoMaxProcs: 8, Perturb: 16, Runs: 6, Failures: 3, Seconds: 3.2},
	}}
	md := Markdown(r) + "\n" + words(result.Note{Code: note.Amplified, N: 1, M: 8}) + "\n" + words(result.Note{Code: note.Perturbed, N: 16})
	for _, want := range []string{"ran the test once, with GOMAXPROCS=8, built with the tracing runtime and paused at about 1 in 16 traced points (a failing head run had seed 4242; `culprit trace --replay 4242/16 --gomaxprocs 8`, with `--run` and `--pkg` naming this test, runs it again so)",
		"plain and GOMAXPROCS=8, perturbed at 1 in 16 3 of 6", "every run ran the test once in its process, with GOMAXPROCS=8", "paused it (a yield, or a sleep of up to 200 µs) at about 1 in 16"} {
		if !strings.Contains(md, want) {
			t.Errorf("the report does not say %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "every run was a plain run") || strings.Contains(md, "up to 1 time") {
		t.Errorf("perturbed runs are called plain:\n%s", md)
	}
}
