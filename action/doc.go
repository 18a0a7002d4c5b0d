// Package action is the entry point of culprit's GitHub Action. It reads
// the inputs and the triggering event through go-githubactions, finds the
// failing tests of the pull request (from a `go test -json` file or by
// running them on head), has each distinct failure explained by the
// analyzer, and publishes the result: outputs, the job summary, the JSON
// report file, and, when the token may write, one sticky pull-request
// comment and review comments on the culprit lines; when it may not,
// annotations instead.
//
// Analysis and publishing are separate: [Explainer] is all the driving code
// needs of the analyzer, and the posting lives in package action/pr, which
// works on rendered text. The `comment` mode of the fork-safe pattern only
// reads a report written by an earlier `analyze` run: it never checks out
// or runs the pull request's code.
package action
