package analyzer

import (
	"context"
	"strings"

	"github.com/culprit-dev/culprit/analyzer/search"
	"github.com/culprit-dev/culprit/diffhunks"
)

// preferUses decides which side of a compile dependency is the root. When
// reverting the root alone leaves identifiers undefined (it removed a
// declaration that the auxiliary hunks use), and reverting the auxiliary
// hunks alone only leaves declarations unused (they removed the uses), the
// auxiliary hunks are where behaviour changes and the root hunks are only
// the declarations they need: the two swap. The reverted set, and so the
// proof, is the same either way. Both builds are usually cached already.
//
// The two also swap when reverting the root alone only brings back
// declarations that nothing uses (every error an unused variable or import,
// in the root's own restored lines): such a root changes no behaviour by
// itself, the auxiliary hunks that used what it declared do.
func preferUses(ctx context.Context, b search.Builder, f *search.Found, hunks []diffhunks.Hunk) error {
	if f == nil || len(f.Root) == 0 || len(f.Aux) == 0 {
		return nil
	}
	root, err := b.Build(ctx, f.Root)
	if err != nil || root.Compiled() {
		return err
	}
	if onlyUnused(root.Message) && search.ErrorsInReverted(hunks, f.Root, root.Message) {
		f.Root, f.Aux = f.Aux, f.Root
		return nil
	}
	if !strings.Contains(root.Message, "undefined:") {
		return nil
	}
	aux, err := b.Build(ctx, f.Aux)
	if err != nil || aux.Compiled() || !onlyUnused(aux.Message) {
		return err
	}
	f.Root, f.Aux = f.Aux, f.Root
	return nil
}

// onlyUnused reports whether every compiler error in msg is an unused
// variable or import.
func onlyUnused(msg string) bool {
	errs := search.CompileErrors(msg)
	for _, e := range errs {
		if !strings.Contains(e.Text, "declared and not used") && !strings.Contains(e.Text, "imported and not used") {
			return false
		}
	}
	return len(errs) > 0
}
