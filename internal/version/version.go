// Package version says which build of culprit is running, from the build
// information the go command records in every binary: the main module's
// version and, for a build from a git checkout, the commit and whether
// the tree had uncommitted changes. `culprit version` prints it and every
// report carries it.
//
// A binary installed with `go install …@v1.2.0` has the version and no
// revision (a module zip has no VCS data); one built from a checkout has a
// pseudo-version and the revision; one built with -buildvcs=false, or a
// test binary, has "(devel)" and no revision.
package version

import (
	"runtime/debug"

	"github.com/culprit-dev/culprit/analyzer/result"
)

// Tool returns the running binary's build of culprit.
func Tool() result.Tool {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return result.Tool{Version: "(unknown)"}
	}
	return of(bi)
}

// of reads a build's information.
func of(bi *debug.BuildInfo) result.Tool {
	t := result.Tool{Version: bi.Main.Version}
	if t.Version == "" {
		t.Version = "(devel)"
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			t.Revision = s.Value
		case "vcs.modified":
			t.Modified = s.Value == "true"
		}
	}
	return t
}
