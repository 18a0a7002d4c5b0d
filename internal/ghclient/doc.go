// Package ghclient builds the go-github client that the Action and the bot
// share, so that both treat GitHub's rate limits and transient errors
// alike.
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
//   - Errors are classified here only: [Status] is the HTTP status of any
//     error go-github or [Transport] returns, [Message] what GitHub said.
//     go-github picks among several error types for one status (a 403 is
//     an *ErrorResponse, a *RateLimitError or an *AbuseRateLimitError by
//     its headers), which callers need not know.
//   - Server errors (500, 502, 503, 504) are retried, [MaxRetries] times
//     after 1 s and 2 s (or Retry-After), only for requests that may be
//     repeated: reads, PUT and DELETE, and the App installation-token
//     exchange. A POST that creates something (a comment, a dispatch) is
//     not, as GitHub may have acted on it before failing; its caller sees
//     the 5xx.
//   - [NewApp] puts [Transport] below ghinstallation's authentication, so
//     an App's token exchange is retried under the same policy as its API
//     calls, by one retry layer.
//   - Waiting honours the request's context.
//   - Like action/ and bot/, the only importers, this package may import
//     go-github; the engine and the renderers still do not.
package ghclient
