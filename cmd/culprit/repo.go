package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/culprit-dev/culprit/internal/proc"
)

// repoRoot returns the top level of the git repository that holds dir, so
// that culprit runs from anywhere in the repository: hunks, --pkg and every
// path in the report are relative to the top level. A dir that does not
// exist, is no directory or lies in no repository is said to be so before
// git is asked anything it cannot answer.
func repoRoot(ctx context.Context, dir string) (string, error) {
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("--repo %s: the directory does not exist", dir)
	case err != nil:
		return "", fmt.Errorf("--repo %s: %w", dir, err)
	case !st.IsDir():
		return "", fmt.Errorf("--repo %s is not a directory", dir)
	}
	out, err := proc.Git(ctx, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		var ge *proc.GitError
		if errors.As(err, &ge) {
			return "", fmt.Errorf("--repo %s is not in a git repository (or its work tree): %s", dir, ge.Stderr)
		}
		return "", fmt.Errorf("--repo %s: finding the repository's top level: %w", dir, err)
	}
	return strings.TrimSpace(string(out)), nil
}
