// Command culprit-action is the entry point of culprit's GitHub Action
// (action.yml builds and runs it). It explains the pull request's failing
// tests and posts the result; see package action.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/culprit-dev/culprit/action"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdout)
	stop()
	if err != nil {
		// The Action has reported err as one ::error:: line; printing
		// it again raw would let data from the pull request (in the
		// error's text) reach the runner as workflow commands.
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	if len(args) > 0 {
		err := fmt.Errorf("culprit-action takes no arguments (inputs come from INPUT_* variables), got %q", args)
		fmt.Fprintln(os.Stderr, "culprit-action:", err)
		return err
	}
	return action.Run(ctx, getenv, stdout)
}
