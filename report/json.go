package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/culprit-dev/culprit/analyzer/result"
)

// WriteJSON writes r as indented JSON with fields in a fixed order. Its
// "notes" are its findings in words (see Notes), for readers that do not
// know the codes; r itself is not changed.
func WriteJSON(w io.Writer, r *result.Report) error {
	doc := *r
	doc.Notes = Notes(r)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // diffs are full of < and &; keep them readable
	enc.SetIndent("", "  ")
	if err := enc.Encode(&doc); err != nil {
		return fmt.Errorf("encoding report: %w", err)
	}
	if _, err := w.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("writing report: %w", err)
	}
	return nil
}

// ReadJSON reads a document written by WriteJSON. It rejects other
// versions, unknown statuses and documents whose ids do not add up; fields
// it does not know are ignored, as newer writers may add some.
func ReadJSON(rd io.Reader) (*result.Report, error) {
	data, err := io.ReadAll(rd)
	if err != nil {
		return nil, fmt.Errorf("reading report: %w", err)
	}
	var head struct {
		Version *int `json:"version"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("decoding report JSON: %w", err)
	}
	if head.Version == nil {
		return nil, errors.New("decoding report JSON: no \"version\" field; not a culprit report")
	}
	if *head.Version != result.Version {
		return nil, fmt.Errorf("decoding report JSON: unsupported version %d (this culprit reads version %d)", *head.Version, result.Version)
	}
	r := new(result.Report)
	if err := json.Unmarshal(data, r); err != nil {
		return nil, fmt.Errorf("decoding report JSON: %w", err)
	}
	if err := validate(r); err != nil {
		return nil, fmt.Errorf("decoding report JSON: %w", err)
	}
	normalize(r)
	return r, nil
}

// normalize gives absent lists the empty value the engine gives them, so
// that a document read back equals the one written.
func normalize(r *result.Report) {
	if r.Hunks == nil {
		r.Hunks = []result.Hunk{}
	}
	if r.Root == nil {
		r.Root = []result.HunkID{}
	}
	if r.Aux == nil {
		r.Aux = []result.HunkID{}
	}
	if r.Notes == nil {
		r.Notes = []string{}
	}
	if r.Evidence == nil {
		r.Evidence = []result.Run{}
	}
	if r.Proof != nil && r.Proof.Reverted == nil {
		r.Proof.Reverted = []result.HunkID{}
	}
}
