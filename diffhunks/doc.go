// Package diffhunks splits the change between two trees into the smallest
// independent hunks and builds any variant of the head tree with a subset of
// those hunks reverted.
//
// A Set comes from two git revisions (FromGit), two directories (FromDirs)
// or two in-memory trees (FromFiles). Within a text file every maximal run
// of changed lines is one Modify hunk, so that the revert search can isolate
// single lines. Whole files that are added, deleted, renamed, binary or
// changed in mode are single hunks: they cannot be reverted by halves.
//
// Decisions worth knowing:
//
//   - A file is binary when it has a NUL byte in its first 8000 bytes, as
//     git decides. Text that is not UTF-8 is still split into lines, and
//     every byte (CRLF, a missing final newline, invalid UTF-8) survives a
//     revert unchanged, because variants are spliced from the original
//     bytes rather than rebuilt from the diff.
//   - A mode change makes the whole file one Mode hunk, content included.
//     Variant reports content only; VariantModes reports modes.
//   - Line diffs are exact (no time limit), so hunk ids are the same on
//     every run and every machine.
package diffhunks
