// Package report renders the result of an analysis for people and tools: the
// JSON document other tools read (a versioned contract), the full Markdown
// report (CLI output and job summary), the sticky pull-request comment with
// its size limit, workflow annotations and review comments on the culprit
// lines.
//
// The analyzer decides what is true; this package decides how it reads. It
// never says more than the document holds: a culprit is named only when the
// status is explained, a fix is claimed only when the proof run passed, and
// every fallback the analysis took is stated in plain words. It renders the
// document of package analyzer/result, the engine's findings as codes with
// data, and imports nothing that runs anything: it knows neither the engine
// nor GitHub's API, and its tests build documents by hand.
//
// # Decisions worth knowing
//
//   - Every string of a Report is data, and hostile: in the Action's
//     comment mode the document is an artifact a job running the pull
//     request's code wrote. Each is made inert at the leaf, where the
//     renderer puts it in: plain (prose), code (code spans), textOf (plain
//     text), fenced (code blocks), mermaidText and commentSafe (inside a
//     label, inside a hidden marker). Nothing escapes or strips a rendered
//     whole afterwards: that is what failed before.
//   - Outside code blocks, code spans included, data is also defanged: an
//     invisible character breaks every mention, "//", "www.", tag start,
//     entity and "](" (see defang), so that nothing depends on GitHub
//     parsing a span as culprit meant. In code blocks only "<!--" and
//     control characters are touched; a suggestion that would hold them is
//     not offered, as GitHub applies it verbatim.
//   - No "<!--" comes out of data anywhere, so a marker (Marker, a review
//     comment's key) is always culprit's own.
//   - The JSON's "notes" are worded here, from the findings, when WriteJSON
//     writes a document: the engine records codes with data only, and a
//     reader that does not know the codes still gets the words.
//   - ReadJSON refuses a value outside an enumerated field's set (status,
//     kinds, outcomes, verdicts, links, facts, note codes) rather than
//     render it as "unknown": the same version wrote the document, so only
//     a forged or corrupted one holds such a value (see validate).
//   - The two Markdown forms show the same facts for different readers.
//     The full report (Markdown: CLI output, job summary) shows everything
//     open, under headings. The PR comment (Comment) is read by a reviewer
//     in its first screen: for each test only the verdict, the root hunks
//     with their diffs, the chain and the proof's line are open; the
//     chart, auxiliary hunks, causal tree, compiler output, failure rates,
//     evidence, notes and cost are in one <details> per test, its summary
//     naming what it holds (renderFolded).
//   - A chart is drawn only where it shows what a list cannot: the chain's
//     failing and passing runs as two lanes that part where the runs
//     diverge (chainLanes). A chain without a passing side gets no chart;
//     the full report still draws the causal tree when there is no chain,
//     the comment never does. A label never cuts a value: too many values
//     lose whole pairs and end in "…" (valueLine).
//   - A comment over the size limit loses detail level by level (levels);
//     past the last level it becomes a table of the tests (compact), whole
//     rows only, never text cut at a byte: a cut inside a code block or a
//     <details> breaks everything after it.
//   - The tests parse every golden comment and report with goldmark's GFM
//     parser and check its structure (gfm_test.go): headings only where
//     written, "---" a thematic break, code blocks closed, <details>
//     balanced, table rows as wide as their header.
//   - reporttest checks all of this: FuzzRenderInert fills every string
//     of a Report, found by reflection, with one text and checks every
//     rendering.
package report
