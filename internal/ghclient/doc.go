// Package ghclient builds the go-github client that the Action and the bot
// share, so that both treat GitHub's rate limits alike.
//
// Decisions worth knowing:
//
//   - Rate limits are handled in the HTTP transport ([Transport]), below
//     go-github, so that every call is covered without wrapping each one. A
//     limited request (429, or 403 with X-RateLimit-Remaining: 0, a
//     Retry-After header or "rate limit" in its message) is retried at most
//     [MaxRetries] times, each after Retry-After, or until
//     X-RateLimit-Reset, or a minute as GitHub advises when neither is given.
//   - A limit that lasts longer than [MaxWait], or outlives the retries,
//     ends the request with a [*RateLimitError] ("rate limited until
//     <time>") instead of GitHub's 403, so that no caller mistakes it for a
//     missing permission. go-github wraps it in a *url.Error; use
//     [IsRateLimit] or errors.As.
//   - Waiting honours the request's context.
//   - Like action/ and bot/, the only importers, this package may import
//     go-github; the engine and the renderers still do not.
package ghclient
