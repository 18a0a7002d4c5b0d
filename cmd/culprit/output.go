package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/culprit-dev/culprit/analyzer/result"
	"github.com/culprit-dev/culprit/report"
)

// checkOut makes sure the report can be written to out before any work
// starts, so that a typo does not throw away minutes of analysis: out must
// not be a directory, its directory must exist, and it must be writable.
// An existing file is opened for writing and left as it is; a new one is
// created and removed again, so that a run that ends without a report
// leaves nothing behind.
func checkOut(out string) error {
	if out == "" {
		return nil // standard output
	}
	st, err := os.Stat(out)
	switch {
	case err == nil && st.IsDir():
		return fmt.Errorf("--out %s is a directory: name a file", out)
	case err == nil:
		f, err := os.OpenFile(out, os.O_WRONLY, 0)
		if err != nil {
			return fmt.Errorf("--out %s cannot be written: %w", out, err)
		}
		return f.Close()
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("--out %s: %w", out, err)
	}
	dir := filepath.Dir(out)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return fmt.Errorf("--out %s: the directory %s does not exist", out, dir)
	}
	f, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		return fmt.Errorf("--out %s cannot be created: %w", out, err)
	}
	f.Close()
	return os.Remove(out)
}

// write renders a report in the requested format to out, or to stdout when
// out is empty.
func write(r *result.Report, format, out string, stdout io.Writer) (err error) {
	w := stdout
	if out != "" {
		f, err := os.Create(out)
		if err != nil {
			return err
		}
		defer func() {
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}()
		w = f
	}
	switch format {
	case "json":
		return report.WriteJSON(w, r)
	case "markdown", "md":
		_, err := io.WriteString(w, report.Markdown(r))
		return err
	}
	return fmt.Errorf("unknown format %q (want markdown or json)", format)
}
