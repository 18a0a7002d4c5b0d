package analyzer

import (
	"context"
	"slices"

	"github.com/culprit-dev/culprit/analyzer/note"
	"github.com/culprit-dev/culprit/analyzer/result"
	"github.com/culprit-dev/culprit/analyzer/search"
	"github.com/culprit-dev/culprit/analyzer/trial"
	"github.com/culprit-dev/culprit/diffhunks"
)

// maxAuxChecked bounds the auxiliary hunks checked one by one. Most checks
// are answered by builds the search already made, or by the in-process type
// checker; a larger set is left as the search gave it, which a note says.
const maxAuxChecked = 12

// auxNeeds checks that every auxiliary hunk of found is needed, and says
// why. Without hunk h (the root and every other auxiliary hunk reverted),
// the variant must not compile: the compiler's first error is the reason
// shown. A variant that compiles without h is run:
//   - it passes: h was not needed; it leaves the auxiliary hunks and that
//     run, of exactly the hunks that remain, is the proof;
//   - it fails: the failure depends on what h changed, so h is root,
//     unless it is in the test's own files (testHunks), which are never
//     root: those stay, as the hunks a root needs to pass.
//
// The checks run in turn, each against the set as the previous ones left
// it. A check the budget stops keeps the hunk as it is.
func auxNeeds(ctx context.Context, t search.Tester, found *search.Found, testHunks []diffhunks.ID) (needs []result.AuxNeed, notes result.Findings, err error) {
	if found == nil || len(found.Root) == 0 || len(found.Aux) == 0 || !found.Proof.Passed() {
		return nil, nil, nil
	}
	if len(found.Aux) > maxAuxChecked || found.Notes.Has(note.MinimiseCut) {
		return nil, nil, nil
	}
	var dropped, joined, kept []diffhunks.ID // kept: test hunks the test needs to pass
	// A hunk that leaves may have been all that needed another one, so
	// the checks start over after each change; the builds they repeat are
	// cached by the runner.
	for again := true; again; {
		again = false
		needs = needs[:0]
		for _, h := range found.Aux {
			if slices.Contains(kept, h) {
				continue
			}
			without := slices.DeleteFunc(slices.Concat(found.Root, found.Aux), func(id diffhunks.ID) bool { return id == h })
			b, err := t.Build(ctx, without)
			if err != nil {
				return nil, notes, err
			}
			if !b.Compiled() {
				if errs := search.CompileErrors(b.Message); len(errs) > 0 {
					e := errs[0]
					needs = append(needs, result.AuxNeed{Hunk: result.HunkID(h), File: e.Path, Line: e.Line, Error: e.Text})
				}
				continue
			}
			r, err := t.Run(ctx, without)
			if err != nil {
				return nil, notes, err
			}
			failed := r.Outcome == trial.Fail || r.Outcome == trial.Crash
			switch {
			case r.Passed():
				found.Proof = r
				found.Aux = slices.DeleteFunc(slices.Clone(found.Aux), func(id diffhunks.ID) bool { return id == h })
				dropped = append(dropped, h)
			case failed && slices.Contains(testHunks, h):
				kept = append(kept, h)
				continue
			case failed:
				found.Root, found.Aux = promote(found.Root, found.Aux, []diffhunks.ID{h})
				joined = append(joined, h)
			default:
				continue // a timeout, say: h stays, with no reason shown
			}
			again = true
			break
		}
	}
	if len(dropped) > 0 {
		notes.Add(result.Note{Code: note.AuxNotNeeded, Hunks: dropped})
	}
	if len(joined) > 0 {
		notes.Add(result.Note{Code: note.AuxChangesBehaviour, Hunks: joined})
	}
	return needs, notes, nil
}
