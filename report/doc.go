// Package report renders the result of an analysis for people and tools: the
// JSON document other tools read (a versioned contract), the full Markdown
// report (CLI output and job summary), the sticky pull-request comment with
// its size limit, workflow annotations and review comments on the culprit
// lines.
//
// The analyzer decides what is true; this package decides how it reads. It
// never says more than the Report holds: a culprit is named only when the
// status is explained, a fix is claimed only when the proof run passed, and
// every fallback the analysis took is stated in plain words. It works on its
// own document type, so it knows nothing of GitHub's API.
package report
