package report

import (
	"fmt"
	"strings"

	"github.com/culprit-dev/culprit/analyzer/note"
	"github.com/culprit-dev/culprit/analyzer/result"
)

// words is the one wording of each note. Detail is data from a tool (an
// error, a compiler line) and is quoted as code.
func words(n result.Note) string {
	hunks := hunksNamed(sortedIDs(n.Hunks))
	if s, ok := flakyWords(n, hunks); ok {
		return s
	}
	if s, ok := rolesWords(n, hunks); ok {
		return s
	}
	switch n.Code {
	case note.Identical:
		return "base and head are identical: there is no change to blame"
	case note.HeadBuildFails:
		return "head does not build: " + code(n.Detail)
	case note.PassesOnHead:
		return fmt.Sprintf("the test passed on head in all %s: there is no failure to explain", plural(n.N, "run", "runs"))
	case note.OverMemory:
		return fmt.Sprintf("%s stopped when the test's processes passed %s of memory (a third of the machine's): each counts as a crash, never as a pass", plural(n.N, "test run was", "test runs were"), plain(n.Limit))
	case note.BudgetSuspect:
		return fmt.Sprintf("the budget (%s) ran out during the search: reverting %s stopped the failures in the search's runs, but was neither minimised nor proven", plain(budgetText(n.Limit)), hunks)
	case note.TimedOutOnBoth:
		return fmt.Sprintf("the test timed out on head and on base alike (%s): raise --timeout (the Action's timeout input) if it needs longer", plural(n.N, "run", "runs"))
	case note.BudgetClassify:
		return fmt.Sprintf("the budget (%s) ran out while base and head were run: nothing could be concluded", plain(budgetText(n.Limit)))
	case note.BudgetNothing:
		return fmt.Sprintf("the budget (%s) ran out during the search before any variant passed", plain(budgetText(n.Limit)))
	case note.BudgetUnminimised:
		return fmt.Sprintf("the budget (%s) ran out during the search: reverting these %d hunks passed, but the set was not minimised and may hold hunks that are not needed; roles were not told apart", plain(budgetText(n.Limit)), n.N)
	case note.SemanticBudget:
		if n.Limit != "" {
			return fmt.Sprintf("the semantic analysis used its budget (%s) while tracing: the root was found by the revert search alone", plain(budgetText(n.Limit)))
		}
		return fmt.Sprintf("the semantic analysis used its budget after %s: the root was found by the revert search alone", plural(n.N, "cause", "causes"))
	case note.LargeAux:
		return fmt.Sprintf("%d auxiliary hunks remain after minimising: each is needed for the reverted code to compile (a signature or name the root changed is used there)", n.N)
	case note.RolesUnchecked:
		return fmt.Sprintf("the search found %d auxiliary hunks, too many to try each as a root of its own: the causal tree, where there is one, tells the hunks that change behaviour from those only the compiler needs", n.N)
	case note.CommandModeDynamic:
		return "the semantic analysis traces Go tests only: in command mode the root was found by the revert search alone, and the explanation is dynamic only"
	case note.SemanticFailed:
		return "the semantic analysis could not run (" + code(n.Detail) + "): the root was found by the revert search alone"
	case note.TraceTruncated:
		return "the trace of the failing run filled its buffer and was cut short: events after the cut are missing from the analysis"
	case note.TraceWrapped:
		return fmt.Sprintf("the failing run outran its trace buffer, which kept the run's last %d events: what the earlier events computed enters the analysis as observed input", n.N)
	case note.TraceWindow:
		from := fmt.Sprintf("%d steps of the test function before its first failure", n.N)
		if n.Detail != "" {
			from = code(n.Detail) + ", " + from
		}
		return "the failing run filled its trace buffer before it failed, so it was traced again from " + from + ": what ran before enters the analysis as observed input, and the passing run is traced from the same step"
	case note.TraceNarrowed:
		return "the trace of the failing run filled its buffer, so the run was traced again with only the test's package and those the change touches instrumented (" + code(n.Detail) + "): calls into other packages are observed, not traced"
	case note.TraceProbed:
		if n.N == 1 {
			return "only the functions the test entered in a probe run were instrumented; the 1 function it never entered was compiled as it is, and a call into it would be observed, not traced"
		}
		return fmt.Sprintf("only the functions the test entered in a probe run were instrumented; the %d functions it never entered were compiled as they are, and a call into one would be observed, not traced", n.N)
	case note.Untraced:
		if n.N == 1 {
			return "1 construct was not traced; its effects enter the formula as observed inputs"
		}
		return fmt.Sprintf("%d constructs were not traced; their effects enter the formula as observed inputs", n.N)
	case note.NoFailureInTrace:
		return "the failing assertion could not be located in the trace (" + code(n.Detail) + "): the root was found by the revert search alone"
	case note.CauseFailed:
		return "no cause could be derived for one predicate (" + code(n.Detail) + ")"
	case note.CausesTouchNothing:
		if n.N == 1 {
			return "the 1 cause derived from the failing run touches no set of hunks whose revert passes: the root was found by the revert search over all hunks"
		}
		return fmt.Sprintf("the %d causes derived from the failing run touch no set of hunks whose revert passes: the root was found by the revert search over all hunks", n.N)
	case note.CausesIdle:
		return fmt.Sprintf("the semantic analysis stopped after %s, the last %d touching no changed line the earlier ones had not: the root was found by the revert search over all hunks", plural(n.N, "cause", "causes"), n.M)
	case note.SolverGaveUp:
		return fmt.Sprintf("the solver gave up on %s: those causes may not be minimal", plural(n.N, "check", "checks"))
	case note.SliceCut:
		return fmt.Sprintf("the slice of %s stopped at %d events: the values its statements read from beyond that enter as observed, and what decided them is not explained", plural(n.N, "cause", "causes"), n.M)
	case note.ContrastSkipped:
		return "the passing run was not compared with the failing run (" + code(n.Detail) + "): the tree shows the failing run alone"
	case note.ContrastBudget:
		return fmt.Sprintf("too little of the budget (%s) was left to trace the passing run: the tree shows the failing run alone", plain(budgetText(n.Limit)))
	}
	return unknownNote + code(string(n.Code))
}

// flakyWords words the notes of amplification, flaky failures and the
// explanation by intervention (words), false for another code.
func flakyWords(n result.Note, hunks string) (string, bool) {
	switch n.Code {
	case note.Amplified:
		if n.N <= 1 && n.M <= 0 {
			return "running the test many times per process, or with more threads than cores, did not make it fail more often: every run was a plain run", true
		}
		s := "to make the failure show, every run ran the test once in its process"
		if n.N > 1 {
			s = fmt.Sprintf("to make the failure show, every run ran the test up to %d times in one process, stopping at the first failure", n.N)
		}
		if n.M > 0 {
			s += fmt.Sprintf(", with GOMAXPROCS=%d", n.M)
		}
		return s + "; the rates count processes, alike on base and head", true
	case note.Perturbed:
		return fmt.Sprintf("every run was also built with the tracing runtime, which paused it (a yield, or a sleep of up to 200 µs) at about 1 in %d of its traced points, with a seed drawn per run: this exposes rare interleavings, alike on base and head, and explains nothing by itself", n.N), true
	case note.SharedWorker:
		return fmt.Sprintf("made alone, a run kept its processor about %d %% busy, so runs went %d to a worker's place, alike on base, head and every variant", n.M, n.N), true
	case note.PerturbFailed:
		return "perturbing the runs' schedules was not measured: the build with the tracing runtime failed: " + code(n.Detail), true
	case note.FlakyOnHead:
		return fmt.Sprintf("the test is flaky on head: %d of %s failed", n.N, plural(n.M, "run", "runs")), true
	case note.NewTest:
		return "the test does not exist on base: it is new in this change, so its failure is not a regression", true
	case note.BaseBuildFails:
		// The engine keeps the output's first line, which is often the
		// go command's "# package" header: that names no error.
		if line := compilerLine(n.Detail); line != "" && !strings.HasPrefix(line, "# ") {
			return "base does not build, so no regression can be proven: " + code(line), true
		}
		return "base does not build, so no regression can be proven", true
	case note.FailsOnBase:
		return fmt.Sprintf("the test fails on base too (%d of %s): the failure is not caused by this change", n.N, plural(n.M, "run", "runs")), true
	case note.FlakyOnBase:
		return fmt.Sprintf("the test is flaky on base: %d of %s failed, while it failed in every head run", n.N, plural(n.M, "run", "runs")), true
	case note.FlakyOnBoth:
		return fmt.Sprintf("the test is flaky on base too: %d of %s failed, so the change did not make it flaky", n.N, plural(n.M, "base run", "base runs")), true
	case note.FlakyInconclusive:
		return fmt.Sprintf("base passed all %s that fit the budget, but %d without a failure were needed to rule out head's failure rate: no regression is claimed", plural(n.M, "run", "runs"), n.N), true
	case note.NoIntervention:
		return "no causal chain was derived: the root hunks are shown by failure rates (reverting them brings head's rate down to base's), not by tracing or interventions", true
	case note.NoTracedFailure:
		if n.M == 0 {
			return fmt.Sprintf("the test failed in all %s under tracing, so no passing run could be compared: no chain was derived", plural(n.N, "traced run", "traced runs")), true
		}
		return fmt.Sprintf("the test never failed in %s under tracing (tracing changes the timing): no chain was derived", plural(n.N, "traced run", "traced runs")), true
	case note.ObserveCut:
		return fmt.Sprintf("head's traced runs stopped after %s, %d of them passing: at those rates, the ten failing and ten passing runs a comparison wants were out of reach in the time left", plural(n.N, "run", "runs"), n.M), true
	case note.TracesFull:
		if n.N == n.M {
			return fmt.Sprintf("every one of head's %s filled its %s trace before the test ended, so none recorded the failure or a whole passing run: no chain was derived, and observing stopped there", plural(n.M, "traced run", "traced runs"), plain(n.Limit)), true
		}
		return fmt.Sprintf("%d of head's %s filled the %s trace before the test ended and were set aside: a cut trace records neither the failure nor a whole passing run", n.N, plural(n.M, "traced run", "traced runs"), plain(n.Limit)), true
	case note.TracesNarrowed:
		return fmt.Sprintf("every one of head's first %s filled its %s trace before the test ended, so head was traced again with only the functions that hold the root hunks (%s) and the test function itself instrumented: calls into other code, the test's helpers included, are observed, not traced", plural(n.N, "traced run", "traced runs"), plain(n.Limit), code(n.Detail)), true
	case note.DirectIntervention:
		return fmt.Sprintf("no runtime fact the traced runs recorded told the failing runs from the passing ones, so the calls of each function that holds the root hunks were run one at a time instead: %s stopped the failure (the steps marked timing); which accesses inside interleave is not shown", plural(n.N, "function's serialisation", "functions' serialisations")), true
	case note.NoDiscriminator:
		if n.M > 0 {
			which := "the function"
			if n.M > 1 {
				which = fmt.Sprintf("each of the %d functions", n.M)
			}
			return fmt.Sprintf("no runtime fact (branch, interleaving, order or value) told the failing traced runs from the passing ones, and the failure went on with the calls of %s that hold the root hunks run one at a time: no chain was derived", which), true
		}
		return "no runtime fact (branch, interleaving, order or value) told the failing traced runs from the passing ones: no chain was derived", true
	case note.Unintervenable:
		return fmt.Sprintf("%s no safe intervention (a value or a panic cannot be undone without side effects): shown as correlated, not as causes", plural(n.N, "step has", "steps have")), true
	case note.InterventionBudget:
		return fmt.Sprintf("the budget ended the interventions after %s: %s left open are shown as correlated only", plural(n.N, "group test", "group tests"), plural(n.M, "candidate", "candidates")), true
	case note.NoPlacebo:
		return fmt.Sprintf("%s confirmed by serialising code %s not checked against a delay of the same length (%d checked): the delay alone might have hidden the failure", plural(n.N, "link", "links"), isAre(n.N), n.M), true
	case note.InterventionFailed:
		return "the explanation by intervention could not run (" + code(n.Detail) + "): the root hunks are shown by failure rates only", true
	case note.InterventionSkip:
		return fmt.Sprintf("too little of the budget (%s) was left to trace head and intervene: the root hunks are shown by failure rates only", plain(budgetText(n.Limit))), true
	}
	return "", false
}

// rolesWords words the notes of the revert search, the roles of the hunks
// it found and the proof (words), false for another code.
func rolesWords(n result.Note, hunks string) (string, bool) {
	switch n.Code {
	case note.AlternativeRoot:
		return fmt.Sprintf("reverting %s instead also makes the test pass; the root shown is the one the failing run executed nearer its failure", hunks), true
	case note.ExecutedRoot:
		if len(n.Hunks) == 1 {
			return fmt.Sprintf("%s, reverted so the root's revert compiles, counts as root too: the failing run executed it and none of the root's lines", hunks), true
		}
		return fmt.Sprintf("%s, reverted so the root's revert compiles, count as root too: the failing run executed them and none of the root's lines", hunks), true
	case note.TreeRoot:
		if len(n.Hunks) == 1 {
			return fmt.Sprintf("%s, reverted with the root, counts as root too: the causal tree passes through it", hunks), true
		}
		return fmt.Sprintf("%s, reverted with the root, count as root too: the causal tree passes through them", hunks), true
	case note.RenameRoot:
		if len(n.Hunks) == 1 {
			return fmt.Sprintf("%s only renames identifiers, so it changes no behaviour: it is shown as auxiliary, needed so that the hunks the causal tree passes through compile", hunks), true
		}
		return fmt.Sprintf("%s only rename identifiers, so they change no behaviour: they are shown as auxiliary, needed so that the hunks the causal tree passes through compile", hunks), true
	case note.OffTreeAux:
		if len(n.Hunks) == 1 {
			return fmt.Sprintf("%s is shown as auxiliary: the causal tree shows an effect of the change in the other root hunks and none in it, and their revert does not compile without it", hunks), true
		}
		return fmt.Sprintf("%s are shown as auxiliary: the causal tree shows an effect of the change in the other root hunks and none in them, and their revert does not compile without them", hunks), true
	case note.WholeRoles:
		s := fmt.Sprintf("the proven revert does not compile without any one of its hunks, so no run can tell which of them the failure depends on: the root is %s, where the causal tree shows an effect of the change, and the rest are auxiliary", hunks)
		if n.N > 0 {
			s += fmt.Sprintf(", with %s of the tree that only thread a parameter through, rename, or declare what the others use", plural(n.N, "hunk", "hunks"))
		}
		return s, true
	case note.AuxNotNeeded:
		if len(n.Hunks) == 1 {
			return fmt.Sprintf("%s was left out of the auxiliary hunks: without it the reverted code compiles and the test passes, and that run is the proof", hunks), true
		}
		return fmt.Sprintf("%s were left out of the auxiliary hunks: without them the reverted code compiles and the test passes, and that run is the proof", hunks), true
	case note.AuxChangesBehaviour:
		if len(n.Hunks) == 1 {
			return fmt.Sprintf("%s, reverted so the root's revert compiles, counts as root too: without it the reverted code compiles but the test still fails", hunks), true
		}
		return fmt.Sprintf("%s, reverted so the root's revert compiles, count as root too: without them the reverted code compiles but the test still fails", hunks), true
	case note.ContrastOnly:
		return "the tree is the path of differences between the failing and the passing run: no cause derived from the failing run alone reaches the change", true
	case note.ContrastOutside:
		return "the failing and the passing run first differ at " + code(n.Detail) + ", which the change did not touch", true
	case note.ContrastCut:
		return fmt.Sprintf("the comparison of the runs stopped after %s: earlier differences are not shown", plural(n.N, "step", "steps")), true
	case note.TestHunks:
		if n.N == 1 {
			return "1 hunk in the test's own _test.go files is never root; it is reverted only as an auxiliary hunk when a root needs it", true
		}
		return fmt.Sprintf("%d hunks in the test's own _test.go files are never root; they are reverted only as auxiliary hunks a root needs", n.N), true
	case note.NoCandidates:
		return "there were no candidate hunks to revert", true
	case note.AllFail:
		return fmt.Sprintf("reverting all %d candidates gives %s", n.N, outcomeWord(n.Outcome)), true
	case note.TestHunksReverted:
		return fmt.Sprintf("with the test's own %s reverted too it passes, so they were reverted with every variant and kept only where needed", plural(n.N, "hunk", "hunks")), true
	case note.NotMonotone:
		return "so single hunks and complements were tried as well", true
	case note.NoSubset:
		return fmt.Sprintf("no subset of the %d candidates passes", n.N), true
	case note.NoSingle:
		return fmt.Sprintf("no single hunk's revert passes, nor reverting all %d candidates (%s)", n.N, outcomeWord(n.Outcome)), true
	case note.OnlyCandidate:
		return "reverting the only candidate does not pass", true
	case note.FellBackToAll:
		return fmt.Sprintf("no single hunk's revert passes; fell back to reverting all %d candidates", n.N), true
	case note.Unresolved:
		return fmt.Sprintf("%s did not compile even with auxiliary hunks and counted as not passing", plural(n.N, "variant", "variants")), true
	case note.Reduced:
		w := fmt.Sprintf("the change is large (%d candidates) and no function the failing run points at passes reverted alone, so the whole change was reduced (files, then functions, then hunks) to a set that still passes, each of whose hunks is needed", n.N)
		if n.M == 0 {
			return w + "; without any one of them the rest does not compile, so the runs cannot tell root from auxiliary hunks and all are shown as root", true
		}
		return w + "; the root hunks are those without which the rest compiles but fails, the auxiliary ones those without which it does not compile", true
	case note.MinimiseCut:
		return fmt.Sprintf("minimising the reverted set stopped with %s of the budget left, to leave time for the proof and the explanation: the auxiliary hunks were reverted because the compiler asked for them but were not checked one by one, so some may not be needed, and the failure may depend on them as well as on the root", plain(budgetText(n.Limit))), true
	case note.RootByRole:
		return hunks + " passes reverted with only what it needs to compile, so it is the root", true
	case note.CompileOnly:
		they := "they are"
		if len(n.Hunks) == 1 {
			they = "it is"
		}
		return "without " + hunks + " the rest of the revert does not compile: " + they + " needed by the other root hunks so that they compile, and shown as auxiliary", true
	case note.ProofRepeat:
		return "reverting " + hunks + " passed during the search but gave " + outcomeWord(n.Outcome) + " when run again", true
	case note.FlakyProof:
		return "reverting " + hunks + " made the test pass once but not in the proof run: the test looks flaky, so no culprit is claimed", true
	case note.FlakyRemeasured:
		return "reverting " + hunks + " made the test pass once but not in the proof run, so head was run again: it passed " + fmt.Sprint(n.N) + " of " + plural(n.M, "run", "runs") + ", and the failure was measured as a flaky one", true
	case note.NothingPasses:
		return "no subset of the change's hunks could be reverted to make the test pass", true
	case note.ProofFailed:
		return "the proof run with " + hunks + " reverted did not pass (" + outcomeWord(n.Outcome) + ")", true
	}
	return "", false
}

// unknownNote starts the words of a code words does not know: a code a
// newer version added, or one a forged report made up (ReadJSON refuses
// those by this prefix).
const unknownNote = "note "

// Notes words the findings of r and what its Subtests says, as the JSON's
// "notes" holds them. A document without either (written by a version
// that kept only words) keeps the words it has.
func Notes(r *result.Report) []string {
	if len(r.Findings) == 0 && r.Subtests == nil {
		return append([]string{}, r.Notes...)
	}
	out := make([]string, 0, len(r.Findings))
	for _, n := range r.Findings {
		if applies(r, n) {
			out = append(out, words(n))
		}
	}
	if r.Subtests != nil {
		out = append(out, subtestNotes(r.Subtests)...)
	}
	return out
}

// applies reports whether n says anything about r. A cut minimisation
// can only have left auxiliary hunks unchecked: without any in the
// answer, the note would speak of hunks that are not there.
func applies(r *result.Report, n result.Note) bool {
	return n.Code != note.MinimiseCut || len(r.Aux) > 0
}

// notesMarkdown words the notes for Markdown from their data, which every
// wording quotes safely; a document without findings (written by an older
// version) has only words, shown as plain text.
func notesMarkdown(r *result.Report) []string {
	if len(r.Findings) == 0 && r.Subtests == nil {
		var out []string
		for _, n := range r.Notes {
			out = append(out, plain(n))
		}
		return out
	}
	return Notes(r)
}

// subtestNotes words what Subtests found.
func subtestNotes(s *result.Subtests) []string {
	var out []string
	if s.Explained != "" {
		out = append(out, fmt.Sprintf("explained the failing subtest %s, which passes on base", code(s.Explained)))
	}
	if len(s.Same) > 0 {
		out = append(out, fmt.Sprintf("%d more subtest(s) fail at the same place, so this explanation covers them: %s", len(s.Same), codeList(s.Same)))
	}
	if len(s.Other) > 0 {
		out = append(out, fmt.Sprintf("%d more regressed subtest(s) fail elsewhere and were not explained (run again naming one): %s", len(s.Other), codeList(s.Other)))
	}
	if len(s.New) > 0 {
		out = append(out, fmt.Sprintf("%d failing subtest(s) do not exist on base: they are new in this change, so their failure is not a regression: %s", len(s.New), codeList(s.New)))
	}
	return out
}

// codeList quotes up to ten names, saying how many more there are.
func codeList(names []string) string {
	const most = 10
	quoted := make([]string, 0, min(len(names), most))
	for _, n := range names[:min(len(names), most)] {
		quoted = append(quoted, code(n))
	}
	out := strings.Join(quoted, ", ")
	if len(names) > most {
		out += fmt.Sprintf(" and %d more", len(names)-most)
	}
	return out
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}
