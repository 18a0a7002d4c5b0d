package action

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/culprit-dev/culprit/analyzer/result"
	"github.com/culprit-dev/culprit/report"
)

// contextFile sits next to the reports and tells the comment mode which
// pull request and commit they are about. It is written by the analyze
// run, which runs pull-request code, so the comment mode checks it against
// the API before trusting it.
const contextFile = "culprit-pr.json"

// runContext is the content of contextFile.
type runContext struct {
	Repository string `json:"repository"`
	PR         int    `json:"pr"`
	Base       string `json:"base"`
	Head       string `json:"head"`
	Status     string `json:"status"`
	Skipped    int    `json:"skipped,omitempty"`
	// Tests is the tests input the run was given ("" every failing test):
	// with the workflow, it keys the comment that posts this report.
	Tests string `json:"tests,omitempty"`
}

// writeReports writes the first report to path, the others next to it as
// <stem>-2.json, <stem>-3.json…, and the run context, and returns the
// paths of the reports.
func writeReports(path string, reps []*result.Report, rc runContext) ([]string, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("writing the report: %w", err)
	}
	var paths []string
	for i, r := range reps {
		p := path
		if i > 0 {
			p = strings.TrimSuffix(path, ".json") + "-" + strconv.Itoa(i+1) + ".json"
		}
		f, err := os.Create(p)
		if err != nil {
			return nil, fmt.Errorf("writing the report: %w", err)
		}
		err = report.WriteJSON(f, r)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, fmt.Errorf("writing the report %s: %w", p, err)
		}
		paths = append(paths, p)
	}
	data, err := json.MarshalIndent(rc, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, contextFile), append(data, '\n'), 0o644); err != nil {
		return nil, fmt.Errorf("writing the report context: %w", err)
	}
	return paths, nil
}

// readReports reads what writeReports wrote. path is the first report or
// the directory holding the reports (a downloaded artifact). The context is
// nil when there is no context file.
func readReports(path string) ([]*result.Report, *runContext, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: report-json: %v (download the analyze run's artifact first)", errBadInput, err)
	}
	dir, stem := path, ""
	if !st.IsDir() {
		dir, stem = filepath.Dir(path), strings.TrimSuffix(filepath.Base(path), ".json")
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("reading reports: %w", err)
	}
	type file struct {
		name string
		n    int
	}
	var files []file
	for _, e := range ents {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".json") || name == contextFile {
			continue
		}
		s, n := strings.TrimSuffix(name, ".json"), 1
		if i := strings.LastIndexByte(s, '-'); i >= 0 {
			if k, err := strconv.Atoi(s[i+1:]); err == nil && k > 1 {
				s, n = s[:i], k
			}
		}
		if stem != "" && s != stem {
			continue
		}
		files = append(files, file{name, n})
	}
	sort.Slice(files, func(i, j int) bool {
		if files[i].n != files[j].n {
			return files[i].n < files[j].n
		}
		return files[i].name < files[j].name
	})
	var reps []*result.Report
	for _, f := range files {
		r, err := readReport(filepath.Join(dir, f.name))
		if err != nil {
			return nil, nil, err
		}
		if !validStatus(string(r.Status)) {
			return nil, nil, fmt.Errorf("%w: %s: status %.40q is not one of the documented statuses", errBadInput, f.name, r.Status)
		}
		reps = append(reps, r)
	}
	var rc *runContext
	data, err := os.ReadFile(filepath.Join(dir, contextFile))
	switch {
	case err == nil:
		rc = new(runContext)
		if err := json.Unmarshal(data, rc); err != nil {
			return nil, nil, fmt.Errorf("%w: %s: %v", errBadInput, contextFile, err)
		}
		if rc.Status != "" && !validStatus(rc.Status) {
			return nil, nil, fmt.Errorf("%w: %s: status %.40q is not one of the documented statuses", errBadInput, contextFile, rc.Status)
		}
	case !os.IsNotExist(err):
		return nil, nil, err
	}
	if len(reps) == 0 && rc == nil {
		return nil, nil, fmt.Errorf("%w: no culprit report in %s", errBadInput, path)
	}
	return reps, rc, nil
}

func readReport(path string) (*result.Report, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r, err := report.ReadJSON(f)
	if err != nil {
		return nil, fmt.Errorf("%w: reading the report %s: %v", errBadInput, path, err)
	}
	return r, nil
}
