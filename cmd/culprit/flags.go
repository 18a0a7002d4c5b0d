package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// errHelp ends a command whose help was asked for: exit code 0.
var errHelp = errors.New("help requested")

// parseFlags parses a command's flags. -h or --help prints the command's
// usage (synopsis, flags, exit codes) on standard output and returns
// errHelp; a bad flag or value, or an argument that is no flag's value
// (the flag package stops at the first one and would leave the rest
// unread), says so on standard error and returns errUsage.
func parseFlags(fs *flag.FlagSet, synopsis string, args []string, stdout, stderr io.Writer) error {
	// The flag package prints its own messages and the flags on any
	// error; which stream they belong on depends on the error.
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprintf(stdout, "usage: culprit %s\n\nflags:\n", synopsis)
		fs.SetOutput(stdout)
		fs.PrintDefaults()
		fmt.Fprint(stdout, exitCodes)
		return errHelp
	case err != nil:
		fmt.Fprintf(stderr, "culprit %s: %v\n'culprit %s --help' lists the flags\n", fs.Name(), err, fs.Name())
		return errUsage
	case fs.NArg() > 0:
		fmt.Fprintf(stderr, "culprit %s: unexpected argument %q: every value belongs to a flag, and flags come before anything else\n", fs.Name(), fs.Arg(0))
		return errUsage
	}
	return nil
}
