// Package childenv builds the environment of the processes culprit starts
// on a pull request's code: builds, tests and traced test binaries. That
// code is hostile, so the environment carries none of the runner's
// secrets: GitHub tokens, the Action's inputs (INPUT_*, which include the
// token it was given), the Actions runtime's request tokens, culprit's own
// settings, and anything named like a credential. A variable the tests
// really need is passed through by name.
package childenv

import (
	"slices"
	"strings"
)

// secretNames are dropped by exact name.
var secretNames = []string{
	"GITHUB_TOKEN", "GH_TOKEN", "GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN",
	"ACTIONS_RUNTIME_TOKEN", "ACTIONS_RUNTIME_URL", "ACTIONS_RESULTS_URL",
	"ACTIONS_ID_TOKEN_REQUEST_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_URL", "ACTIONS_CACHE_URL",
}

// secretPrefixes are dropped by prefix: the Action's inputs and culprit's
// own variables (the bot's webhook secret, app key, tokens).
var secretPrefixes = []string{"INPUT_", "CULPRIT_"}

// secretParts mark a credential anywhere in an upper-cased name.
var secretParts = []string{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "PRIVATE_KEY", "API_KEY", "ACCESS_KEY", "CREDENTIAL"}

// Secret reports whether the variable name looks like one of the runner's
// secrets.
func Secret(name string) bool {
	up := strings.ToUpper(name)
	if slices.Contains(secretNames, up) {
		return true
	}
	for _, p := range secretPrefixes {
		if strings.HasPrefix(up, p) {
			return true
		}
	}
	for _, p := range secretParts {
		if strings.Contains(up, p) {
			return true
		}
	}
	return strings.HasSuffix(up, "_KEY") || strings.HasSuffix(up, "_PAT")
}

// Filter returns environ ("K=V" entries) without the secrets, keeping the
// names listed in passthrough even when they look like secrets.
func Filter(environ, passthrough []string) []string {
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if Secret(name) && !slices.Contains(passthrough, name) {
			continue
		}
		out = append(out, kv)
	}
	return out
}
