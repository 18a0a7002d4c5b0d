package trace

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// TableFile is the site table's file name inside a trace directory, next
// to the event file.
const TableFile = "sites.json"

// Table is the site table, the static half of a trace: the build that
// records the events writes it, in JSON, to TableFile, and Read takes the
// sites, skips and unentered count of a Trace from it.
type Table struct {
	Sites   []*Site // indexed by SiteID; Sites[0] is a zero placeholder
	Skipped []Skip
	// Unentered counts the functions left uninstrumented because the probe
	// run never entered them (instrument.Config.Probe).
	Unentered int `json:",omitempty"`
}

func readTable(dir string) (*Table, error) {
	b, err := os.ReadFile(filepath.Join(dir, TableFile))
	if err != nil {
		return nil, fmt.Errorf("reading site table: %w", err)
	}
	t := &Table{}
	if err := json.Unmarshal(b, t); err != nil {
		return nil, fmt.Errorf("decoding site table: %w", err)
	}
	return t, nil
}

// SiteList returns the sites as values, indexed by SiteID, as Read puts
// them in Trace.Sites.
func (t *Table) SiteList() []Site {
	out := make([]Site, 0, len(t.Sites))
	for _, s := range t.Sites {
		if s == nil {
			s = &Site{}
		}
		out = append(out, *s)
	}
	return out
}
