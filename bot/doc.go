// Package bot is the culprit webhook server: a small, stateless GitHub App
// (or single-repository token) bot that turns "/culprit" comments on pull
// requests, and failed workflow runs in opted-in repositories, into a
// workflow_dispatch of the repository's own culprit workflow.
//
// The server never runs an analysis itself. Each delivery is verified
// (X-Hub-Signature-256), deduplicated by its delivery id, decoded and
// answered at once; the few API calls it leads to (permission check,
// reaction, dispatch, reply) run in a bounded worker pool. A full queue
// answers 503 so that GitHub's redelivery retries it later: a delivery is
// either accepted, ignored on purpose, or refused with a status that says so.
//
// What must outlive a restart is kept on GitHub, not in the process: the
// one reply per pull request to someone who may not run /culprit carries
// a hidden marker, an HMAC of the pull request under the webhook secret,
// that the bot looks for before replying (refusal.go). The in-memory sets
// only save API calls.
//
// The tests run against internal/fakegh, the fake GitHub API the Action's
// tests use too; it fails a test on any request it does not serve.
package bot
