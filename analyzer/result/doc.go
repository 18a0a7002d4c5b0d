// Package result is the Go form of the report JSON ("Report JSON" in
// ARCHITECTURE.md): the document one analysis produces, with its status,
// hunks, proof, evidence, flakiness, causal tree and chain, and its
// findings as codes with their data.
//
// It is a leaf: it imports the standard library and the codes of
// analyzer/note, and runs nothing. The engine (package analyzer) builds a
// Report at the end of an analysis; package report renders one; the Action
// writes it as an artifact and posts what report renders. Keeping the
// contract apart from the engine lets the renderers and the posting code
// build, test and read documents without the tracer, the solver or the
// go command.
//
// # Decisions worth knowing
//
//   - One hunk id type, HunkID, serves the whole program: diffhunks.ID is
//     an alias of it, so the engine's ids reach the document without a
//     conversion.
//   - Field names and their JSON names are a contract: fields may be
//     added, none renamed or given another meaning.
//   - The document holds findings as codes with data and never words
//     them; Notes, the findings in words, is filled by the report package
//     when it writes the JSON.
package result
