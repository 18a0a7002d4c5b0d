package report

import (
	"strings"
	"testing"

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
