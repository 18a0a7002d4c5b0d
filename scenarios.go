// Package culprit holds the regression scenarios bundled with culprit: the
// txtar archives under testdata/, embedded so that `culprit demo` and
// `culprit bench` run anywhere the binary runs.
package culprit

import "embed"

// Scenarios holds testdata/*.txtar.
//
//go:embed testdata/*.txtar
var Scenarios embed.FS
