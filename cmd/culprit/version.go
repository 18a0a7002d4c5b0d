package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/culprit-dev/culprit/internal/version"
)

// versionCmd prints the build of culprit: the module version and the VCS
// revision, as every report's "tool" records them.
func versionCmd(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	if err := parseFlags(fs, "version", args, stdout, stderr); err != nil {
		return err
	}
	t := version.Tool()
	fmt.Fprintf(stdout, "culprit %s\n", t.Version)
	switch {
	case t.Revision == "":
		fmt.Fprintln(stdout, "revision unknown (built without VCS information: go install at a version, -buildvcs=false, or not from a git checkout)")
	case t.Modified:
		fmt.Fprintf(stdout, "revision %s (modified)\n", t.Revision)
	default:
		fmt.Fprintf(stdout, "revision %s\n", t.Revision)
	}
	return nil
}
