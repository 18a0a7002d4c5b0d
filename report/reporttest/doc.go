// Package reporttest is the test side of one rule: every string in a report
// artifact was written by a job that ran the pull request's code, so it is
// hostile data, and nothing culprit renders from it may act on GitHub.
//
// Fill gives every string of a value (a report, found by reflection, so a
// field added later is covered without a change here) one hostile text;
// CheckMarkdown and CheckText say whether a rendering of it could still
// mention someone, link somewhere, open or close HTML, or forge a marker.
// Attacks holds the texts a forged artifact has been seen to carry.
//
// # Decisions worth knowing
//
//   - The checks are textual and strict, as no GFM renderer is a
//     dependency: outside fenced code blocks they look inside code spans
//     too, so the renderer must make data inert there as well, not count on
//     GitHub parsing a span the way culprit meant it (an escaped backtick
//     once opened a span for the neutraliser and not for GitHub).
//   - Inside fenced code blocks only a "<!--" is refused: GitHub neither
//     mentions nor links there, but a marker is looked up in the raw text.
//   - Entities are decoded once, as a browser does, before mentions and
//     links are looked for: "&#64;alice" is a mention.
//   - A fence opens only after a blank line, where culprit always puts
//     one; a fence line anywhere else counts as text, which is the stricter
//     reading.
package reporttest
