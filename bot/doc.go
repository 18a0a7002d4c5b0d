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
package bot
