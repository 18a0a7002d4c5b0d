// Package bot is the culprit webhook server: a small, stateless GitHub App
// (or single-repository token) bot that turns "/culprit" comments on pull
// requests, and failed workflow runs in opted-in repositories, into a
// workflow_dispatch of the repository's own culprit workflow.
//
// The server never runs an analysis itself. Each delivery is read under
// deadlines that follow the body's rate and a memory budget that bodies
// take as they arrive (read.go), so that senders without the secret
// cannot hold what signed deliveries need; then verified
// (X-Hub-Signature-256), deduplicated by its delivery id and by the
// comment it carries (the id is not signed), decoded and answered at
// once. The few API calls it leads to (permission check, the pull
// request's head, reaction, dispatch, reply) run in a bounded worker
// pool. A full queue answers 503 so that GitHub's redelivery retries it
// later: a delivery is either accepted, ignored on purpose, or refused
// with a status that says so.
//
// A command is a line of its own that a reader of the rendered comment
// sees begin with "/culprit": fenced and indented code blocks and HTML
// comments are read as CommonMark reads them (markdown.go). Its arguments
// are Go test names as go test makes them, or nothing; a near miss
// ("/culprit.", "/Culprit", a non-breaking space) and words that are not
// test names get the usage, from the same permission check as a command,
// so someone without write access gets at most the one refusal per pull
// request (command.go).
//
// A dispatch is pinned: it passes the head commit the analysis is of (the
// pull request's when the command is handled, or the failed run's), and
// a workflow without the head-sha input is told so rather than run
// unpinned. GitHub names no pull request in the failed run of a fork's:
// the bot finds the one open pull request whose head is the run's fork,
// branch and commit. A failed run of a fork's pull request by a
// first-time contributor is not explained on the bot's own initiative
// (pull.go).
//
// What must outlive a restart is kept on GitHub, not in the process: the
// one reply per pull request to someone who may not run /culprit carries
// a hidden marker, an HMAC of the pull request under the webhook secret,
// that the bot looks for before replying (refusal.go). The in-memory sets
// only save API calls.
//
// The tests run against internal/fakegh, the fake GitHub API the Action's
// tests use too; it fails a test on any request it does not serve. They
// replay GitHub's published example payloads (testdata/octokit), signed
// as GitHub signs them.
package bot
