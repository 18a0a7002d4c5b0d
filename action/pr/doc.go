// Package pr posts culprit's findings to a GitHub pull request: one sticky
// issue comment found by a hidden marker and its author and edited in place
// on every rerun, and review comments on the culprit lines, deduplicated by
// their own markers, posted as one review, with outdated ones removed.
//
// It knows nothing of the analysis: callers hand it rendered bodies and a
// go-github client (internal/ghclient builds one that waits out short rate
// limits). Errors that mean "this token may not write here" are
// recognisable with [IsPermission], which a rate limit never is, so the
// caller can fall back to annotations.
package pr
