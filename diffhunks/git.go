package diffhunks

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"strings"

	"github.com/culprit-dev/culprit/internal/proc"
)

// FromGit builds the Set between two revisions of the git repository in
// dir. Renames are found by git's own detection (-M), with or without
// edits; submodule entries are ignored, as they have no content to revert.
func FromGit(ctx context.Context, dir, base, head string) (*Set, error) {
	b, err := Commit(ctx, dir, base)
	if err != nil {
		return nil, err
	}
	h, err := Commit(ctx, dir, head)
	if err != nil {
		return nil, err
	}
	// --raw gives modes and blob ids for both sides in one pass; the flags
	// pin down behaviour that user configuration could otherwise change.
	out, err := proc.Git(ctx, dir, "diff", "--raw", "-z", "-M", "--no-abbrev", "--no-relative", "--no-ext-diff", "--no-color", b, h, "--")
	if err != nil {
		return nil, fmt.Errorf("listing changes %s..%s: %w", base, head, err)
	}
	entries, err := parseRaw(out)
	if err != nil {
		return nil, fmt.Errorf("listing changes %s..%s: %w", base, head, err)
	}
	var blobs []string
	for _, e := range entries {
		blobs = append(blobs, e.oldBlob, e.newBlob)
	}
	content, err := catBlobs(ctx, dir, blobs)
	if err != nil {
		return nil, fmt.Errorf("reading blobs of %s..%s: %w", base, head, err)
	}
	bt, ht := map[string]file{}, map[string]file{}
	var renames []rename
	for _, e := range entries {
		if e.oldMode != 0 {
			bt[e.oldPath] = file{data: content[e.oldBlob], mode: e.oldMode}
		}
		if e.newMode != 0 {
			ht[e.newPath] = file{data: content[e.newBlob], mode: e.newMode}
		}
		if e.status == 'R' {
			renames = append(renames, rename{old: e.oldPath, new: e.newPath})
		}
	}
	s, err := newSet(bt, ht, renames)
	if err != nil {
		return nil, fmt.Errorf("splitting %s..%s: %w", base, head, err)
	}
	return s, nil
}

// Commit resolves a revision of the repository in dir to its full commit
// id, so that a bad revision is reported as such rather than as an obscure
// diff failure, and an analysis can name the commits it ran on.
func Commit(ctx context.Context, dir, rev string) (string, error) {
	if rev == "" || strings.HasPrefix(rev, "-") {
		return "", fmt.Errorf("invalid revision %q", rev)
	}
	out, err := proc.Git(ctx, dir, "rev-parse", "--verify", "--quiet", rev+"^{commit}")
	if err != nil {
		var ge *proc.GitError
		if errors.As(err, &ge) && ge.ExitCode == 1 {
			return "", fmt.Errorf("unknown revision %q in %s", rev, dir)
		}
		return "", fmt.Errorf("resolving revision %q: %w", rev, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// rawEntry is one record of `git diff --raw -z`. An absent side has mode 0.
type rawEntry struct {
	oldMode, newMode fs.FileMode
	oldBlob, newBlob string
	status           byte
	oldPath, newPath string
}

// parseRaw reads `git diff --raw -z` output: records
// ":oldmode newmode oldsha newsha STATUS\0path\0", with a second path for
// renames and copies.
func parseRaw(out []byte) ([]rawEntry, error) {
	fields := strings.Split(string(out), "\x00")
	var entries []rawEntry
	for i := 0; i < len(fields); i++ {
		meta := fields[i]
		if meta == "" {
			continue
		}
		parts := strings.Fields(strings.TrimPrefix(meta, ":"))
		if !strings.HasPrefix(meta, ":") || len(parts) != 5 || parts[4] == "" {
			return nil, fmt.Errorf("unexpected raw diff record %q", meta)
		}
		var e rawEntry
		var ok1, ok2 bool
		e.oldMode, ok1 = parseGitMode(parts[0])
		e.newMode, ok2 = parseGitMode(parts[1])
		e.oldBlob, e.newBlob, e.status = parts[2], parts[3], parts[4][0]
		npaths := 1
		if e.status == 'R' || e.status == 'C' {
			npaths = 2
		}
		if i+npaths >= len(fields) {
			return nil, fmt.Errorf("raw diff record %q lacks its path", meta)
		}
		e.oldPath, e.newPath = fields[i+1], fields[i+npaths]
		i += npaths
		if !ok1 || !ok2 {
			continue // a submodule: no blob to read or revert
		}
		if e.status == 'C' {
			// A copy leaves its source untouched: only the new file counts.
			e.status, e.oldMode, e.oldPath, e.oldBlob = 'A', 0, e.newPath, ""
		}
		entries = append(entries, e)
	}
	return entries, nil
}

// parseGitMode maps a git mode to ours; ok is false for submodules and
// unknown modes.
func parseGitMode(s string) (m fs.FileMode, ok bool) {
	switch s {
	case "000000":
		return 0, true
	case "100644":
		return modeFile, true
	case "100755":
		return modeExec, true
	case "120000":
		return modeLink, true
	}
	return 0, false
}

// catBlobs reads blobs through one `git cat-file --batch` process rather
// than one process per file, which matters on large pull requests.
func catBlobs(ctx context.Context, dir string, ids []string) (map[string][]byte, error) {
	seen := map[string]bool{}
	var want []string
	for _, id := range ids {
		// An all-zero id stands for an absent side (SHA-1 or SHA-256).
		if strings.Trim(id, "0") != "" && !seen[id] {
			seen[id] = true
			want = append(want, id)
		}
	}
	content := map[string][]byte{}
	if len(want) == 0 {
		return content, nil
	}
	out, err := proc.GitInput(ctx, dir, strings.NewReader(strings.Join(want, "\n")+"\n"), "cat-file", "--batch")
	if err != nil {
		return nil, err
	}
	if err := readBatch(bufio.NewReader(bytes.NewReader(out)), want, content); err != nil {
		return nil, err
	}
	return content, nil
}

// readBatch reads one `git cat-file --batch` answer per id, in order.
func readBatch(r *bufio.Reader, ids []string, content map[string][]byte) error {
	for _, id := range ids {
		header, err := r.ReadString('\n')
		if err != nil {
			return fmt.Errorf("reading blob %s: %w", id, err)
		}
		f := strings.Fields(header)
		if len(f) != 3 || f[1] != "blob" {
			return fmt.Errorf("reading blob %s: git answered %q", id, strings.TrimSpace(header))
		}
		size, err := strconv.Atoi(f[2])
		if err != nil {
			return fmt.Errorf("reading blob %s: bad size in %q", id, strings.TrimSpace(header))
		}
		data := make([]byte, size+1) // content and its trailing "\n"
		if _, err := io.ReadFull(r, data); err != nil {
			return fmt.Errorf("reading blob %s: %w", id, err)
		}
		content[id] = data[:size:size]
	}
	return nil
}
